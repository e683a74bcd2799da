// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize -verify-diagnostics | FileCheck %s

// The backward's dQ summed in the key-block grid, two warpgroups: dS
// (computed in registers, each warpgroup its 64 key rows) staged into a
// slot of 128-byte slabs, dQᵀ = Kᵀ·dS with K read M-major (A "col": the
// instruction's imm-trans-a) against the staged dS (N-major, B "row"), then
// dQᵀ added into the f32 workspace: through a staging slot as one bulk
// reduction, or with an atomic add per element.
// CHECK-LABEL: gpu.func @dqt_kernel
// attn.store_slot: the holders of the tile (256 threads) meet at named
// barrier 8, write their pairs, fence into the async proxy, meet again.
// CHECK:         nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <{{zero|one}}>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// attn.accumulate_tile via a slot (rows padded by 16 bytes: 528 bytes
// apart): 32 f32 stores a thread at dest's positions, fence, barrier, then
// thread t < rows adds row t with one bulk reduction (512 bytes) and waits
// until it has read the slot.
// CHECK:         nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK:         %[[T:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[ROWS:.*]] = arith.minsi %{{.*}}, %c64_i32 : i32
// CHECK:         %[[MINE:.*]] = arith.cmpi slt, %[[T]], %[[ROWS]] : i32
// CHECK-NEXT:    scf.if %[[MINE]] {
// CHECK:           %[[SRC:.*]] = arith.muli %[[T]], %c528_i32 : i32
// CHECK:           llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,r,r" %{{.*}}, %{{.*}}, %c512_i32
// CHECK-NEXT:      nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0 {read}
// attn.accumulate_tile without: whole blocks add without a test a
// element, the last block tests each row.
// CHECK:         scf.if
// CHECK-COUNT-32: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK:         } else {
// CHECK:           %[[IN:.*]] = arith.cmpi slt
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK:             llvm.atomicrmw fadd
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
#st = #attn.shared<swizzle = 0, pad = 16>
func.func @dqt(%k: memref<?x128xbf16>, %ws: memref<?x?x?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %stage = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #sl>>
    %out = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #st>>
    %kt = attn.load_tile %k[%c0] rows %c128 : memref<?x128xbf16> -> tensor<128x128xbf16, #sl>
    %d = arith.constant dense<1.0> : tensor<128x64xbf16, #acc>
    attn.store_slot %d, %stage[%c0] : tensor<128x64xbf16, #acc>, !attn.ring<1, tensor<128x64xbf16, #sl>>
    %ds = attn.ring_slot %stage[%c0] : !attn.ring<1, tensor<128x64xbf16, #sl>>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %dqt = attn.dot %kt, %ds, %z {lhs_transposed} : tensor<128x128xbf16, #sl>, tensor<128x64xbf16, #sl> -> tensor<128x64xf32, #acc>
    attn.accumulate_tile %dqt, %ws[%b, %h, %i] rows %n via %out : !attn.ring<1, tensor<64x128xf32, #st>> {transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
    attn.accumulate_tile %dqt, %ws[%b, %h, %i] rows %n {transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
  }
  return
}

// -----

#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>

// A transposed lhs from registers has no M-major form.
func.func @transposed_register_lhs(%k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %kt = attn.load_tile %k[%c0] rows %n : memref<?x64xbf16> -> tensor<64x64xbf16, #sl>
    %r = arith.constant dense<1.0> : tensor<64x64xbf16, #acc>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @+1 {{unsupported: attn.dot with lhs_transposed on wgmma needs a 16-bit lhs in #attn.shared slabs}}
    %s = attn.dot %r, %kt, %z {lhs_transposed} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #sl> -> tensor<64x64xf32, #acc>
    attn.store_tile %s, %o[%c0] rows %n : tensor<64x64xf32, #acc>, memref<?x64xf32>
  }
  return
}

// -----

// With slot_released (the schedule's other staging op synchronised the
// threads since the slot's last read) each op meets the others once, after
// its writes.
// CHECK-LABEL: gpu.func @released_kernel
// CHECK-NOT:     nvvm.barrier id
// CHECK:         llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK:         nvvm.fence.proxy
// CHECK-NEXT:    nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK-NOT:     nvvm.barrier id
// CHECK:         llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.fence.proxy
// CHECK-NEXT:    nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32
// CHECK-NOT:     nvvm.barrier id
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
#st = #attn.shared<swizzle = 0, pad = 16>
func.func @released(%ws: memref<?x?x?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %stage = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #sl>>
    %out = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #st>>
    %d = arith.constant dense<1.0> : tensor<128x64xbf16, #acc>
    attn.store_slot %d, %stage[%c0] {slot_released} : tensor<128x64xbf16, #acc>, !attn.ring<1, tensor<128x64xbf16, #sl>>
    %t = arith.constant dense<2.0> : tensor<128x64xf32, #acc>
    attn.accumulate_tile %t, %ws[%b, %h, %i] rows %n via %out : !attn.ring<1, tensor<64x128xf32, #st>> {slot_released, transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
  }
  return
}

// -----

// A block of more rows than the tile has threads (256 rows, 128 threads):
// each thread adds rows t and t + 128.
// CHECK-LABEL: gpu.func @many_rows_kernel
// CHECK:         nvvm.barrier id = %c8_i32 number_of_threads = %c128_i32
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,r,r" %{{.*}}, %{{.*}}, %c256_i32
// CHECK-NOT:     cp.reduce.async.bulk
#acc = #attn.mma<warps = 4, version = 3>
#st = #attn.shared<swizzle = 0, pad = 16>
func.func @many_rows(%ws: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %out = attn.alloc_ring : !attn.ring<1, tensor<256x64xf32, #st>>
    %t = arith.constant dense<2.0> : tensor<64x256xf32, #acc>
    attn.accumulate_tile %t, %ws[%c0] rows %n via %out : !attn.ring<1, tensor<256x64xf32, #st>> {transposed} : tensor<64x256xf32, #acc>, memref<?x64xf32>
  }
  return
}

// -----

// dQᵀ added through a two-slot ring of 128-byte f32 slabs (tensor-reduce):
// the workspace gets a tensor map of 64-row boxes of one slab (32 f32
// columns); each warpgroup holds dQ's columns 64w .. 64w + 63, so it meets
// on its own named barrier (9 + w) after its stores (whole block: 32 a
// thread; the last block: rows at or past `rows` as zeros) and its first
// thread adds its two slabs with bulk tensor reductions, then waits only
// for the previous add's reads (the other slot); after the loop it waits
// for all.
// CHECK-LABEL: func.func @dqt_tensor
// CHECK:         attn.tensor_map %arg1 box[64, 32] : memref<?x?x?x128xf32> -> !llvm.ptr
// CHECK-LABEL: gpu.func @dqt_tensor_kernel
// CHECK-SAME:      tensor_maps = [1, 64, 128]
// CHECK:         scf.for
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           scf.if
// CHECK-COUNT-32:    llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:           } else {
// CHECK:             %[[V:.*]] = arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK:             llvm.store %[[V]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      %[[ID:.*]] = arith.addi %{{.*}}, %c9_i32 : i32
// CHECK-NEXT:      nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK:           scf.if
// CHECK-COUNT-2:     nvvm.cp.async.bulk.tensor.reduce %arg4, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>} : !llvm.ptr, <3>
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:        nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:         }
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0 {read}
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @dqt_tensor(%k: memref<?x128xbf16>, %ws: memref<?x?x?x128xf32>, %n: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %stage = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #sl>>
    %out = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #sl>>
    %kt = attn.load_tile %k[%c0] rows %c128 : memref<?x128xbf16> -> tensor<128x128xbf16, #sl>
    scf.for %j = %c0 to %steps step %c1 {
      %d = arith.constant dense<1.0> : tensor<128x64xbf16, #acc>
      attn.store_slot %d, %stage[%c0] : tensor<128x64xbf16, #acc>, !attn.ring<1, tensor<128x64xbf16, #sl>>
      %ds = attn.ring_slot %stage[%c0] : !attn.ring<1, tensor<128x64xbf16, #sl>>
      %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
      %dqt = attn.dot %kt, %ds, %z {lhs_transposed} : tensor<128x128xbf16, #sl>, tensor<128x64xbf16, #sl> -> tensor<128x64xf32, #acc>
      %s = arith.remui %j, %c2 : index
      %row = arith.muli %j, %c64 : index
      attn.accumulate_tile %dqt, %ws[%b, %h, %row] rows %n via %out[%s] : !attn.ring<2, tensor<64x128xf32, #sl>> {slot_released, transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
    }
  }
  return
}
