// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Tiles of 64-byte slabs (rows of 96 16-bit elements: head dim 96), one
// warpgroup. A slab holds 32 columns; chunk c of row r sits at
// c ^ ((r / 2) % 4) (the 64-byte swizzle). wgmma's descriptors say so in
// their high word: swizzle 64 B (2 << 62) | stride offset 8 rows · 64 B =
// 512 >> 4 at bit 32 = -9223371899415822336 as an i64.
// S = Q·Kᵀ (K = 96: 6 k-steps of 32 bytes, two per slab): the k-steps
// start at bytes 0, 32 | 4096, 4128 | 8192, 8224 of both tiles (64 rows a
// slab), so the low words add 2, 256, 258, 512, 514.
// O = P·V: V N-major, one m64n96k16 a k-step over its three slabs (the
// leading offset 64 rows · 64 B = 4096 >> 4 at bit 16: 16777216), k-step kk
// 16 rows = 1024 bytes further (+64 each).
// CHECK-LABEL: gpu.func @qk_pv_kernel
// CHECK-DAG:     %[[VLEAD:.*]] = arith.constant 16777216 : i32
// CHECK-DAG:     %[[HI:.*]] = llvm.mlir.constant(-9223371899415822336 : i64) : i64
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
// CHECK:         llvm.add %{{.*}}, %c2_i32 : i32
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>]
// CHECK:         llvm.add %{{.*}}, %c256_i32 : i32
// CHECK:         nvvm.wgmma.mma_async
// CHECK:         llvm.add %{{.*}}, %c258_i32 : i32
// CHECK:         nvvm.wgmma.mma_async
// CHECK:         llvm.add %{{.*}}, %c512_i32 : i32
// CHECK:         nvvm.wgmma.mma_async
// CHECK:         llvm.add %{{.*}}, %c514_i32 : i32
// CHECK:         nvvm.wgmma.mma_async
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         llvm.or %{{.*}}, %[[VLEAD]] : i32
// CHECK:         llvm.or %{{.*}}, %[[HI]] : i64
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {$0, {{.*}}, $47}, {$96, $97, $98, $99}, $100, $101, 1, 1, 1;"
// CHECK:         llvm.add %{{.*}}, %c64_i32 : i32
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n96k16
// CHECK:         llvm.add %{{.*}}, %c128_i32 : i32
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n96k16
// CHECK:         llvm.add %{{.*}}, %c192_i32 : i32
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n96k16
// CHECK-NOT:     llvm.inline_asm has_side_effects "wgmma
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 4, pad = 0, slab = 64>
func.func @qk_pv(%q: memref<?x96xbf16>, %k: memref<?x96xbf16>, %v: memref<?x96xbf16>, %o: memref<?x96xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x96xbf16> -> tensor<64x96xbf16, #sl>
    %kt = attn.load_tile %k[%c0] rows %c64 : memref<?x96xbf16> -> tensor<64x96xbf16, #sl>
    %vt = attn.load_tile %v[%c0] rows %c64 : memref<?x96xbf16> -> tensor<64x96xbf16, #sl>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<64x96xbf16, #sl>, tensor<64x96xbf16, #sl> -> tensor<64x64xf32, #acc>
    %p = arith.truncf %s : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
    %a = arith.constant dense<1.0> : tensor<64x96xf32, #acc>
    %r = attn.dot %p, %vt, %a : tensor<64x64xbf16, #acc>, tensor<64x96xbf16, #sl> -> tensor<64x96xf32, #acc>
    attn.store_tile %r, %o[%c0] rows %n : tensor<64x96xf32, #acc>, memref<?x96xf32>
  }
  return
}

// -----

// cp.async copies into 64-byte slabs: a thread's 16-byte chunk c of row r
// goes to slab c / 4 (rows · 64 bytes each), row r · 64, chunk position
// (c % 4) ^ ((r / 2) % 4).
// CHECK-LABEL: gpu.func @copy_kernel
// CHECK:         %[[SLAB:.*]] = arith.divui %[[CHUNK:.*]], %c4_i32 : i32
// CHECK-NEXT:    %[[SOFF:.*]] = arith.muli %[[SLAB]], %c4096_i32 : i32
// CHECK-NEXT:    %[[R2:.*]] = arith.divui %[[ROW:.*]], %c2_i32 : i32
// CHECK-NEXT:    %[[RB:.*]] = arith.remui %[[R2]], %c4_i32 : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.remui %[[CHUNK]], %c4_i32 : i32
// CHECK-NEXT:    %[[SW:.*]] = arith.xori %[[IN]], %[[RB]] : i32
// CHECK:         nvvm.cp.async.shared.global
#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 4, pad = 0, slab = 64>
func.func @copy(%k: memref<?x96xbf16>, %o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %k[%c0] rows %n : memref<?x96xbf16> -> tensor<64x96xbf16, #sl>
    %kt = attn.load_tile %k[%c0] rows %c64 : memref<?x96xbf16> -> tensor<64x96xbf16, #sl>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<64x96xbf16, #sl>, tensor<64x96xbf16, #sl> -> tensor<64x64xf32, #acc>
    attn.store_tile %s, %o[%c0] rows %n : tensor<64x64xf32, #acc>, memref<?x64xf32>
  }
  return
}

// -----

// Bulk tensor copies of a 128x96 tile: one per 64-byte slab, at columns 0,
// 32 and 64, into slabs 128 · 64 = 8192 bytes apart; the host's tensor map
// has boxes of one slab (32 columns) and attn.kernel records the box's
// bytes (64: the launcher encodes CU_TENSOR_MAP_SWIZZLE_64B).
// CHECK-LABEL: func.func @bulk
// CHECK:         %[[QMAP:.*]] = attn.tensor_map %arg0 box[128, 32] : memref<?x?x96xbf16> -> !llvm.ptr
// CHECK:       gpu.func @bulk_kernel
// CHECK-SAME:    tensor_maps = [0, 128, 64]
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[QBYTES:.*]] = arith.constant 24576 : i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[C0]],
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr %[[SLOT:.*]][8192]
// CHECK-NEXT:    llvm.addrspacecast %[[S1]]
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[C32]],
// CHECK-NEXT:    %[[S2:.*]] = llvm.getelementptr %[[SLOT]][16384]
// CHECK-NEXT:    llvm.addrspacecast %[[S2]]
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[C64]],
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[QBYTES]] : !llvm.ptr<3>, i32
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 4, pad = 0, slab = 64>
!qring = !attn.ring<1, tensor<128x96xbf16, #sl>>
func.func @bulk(%q: memref<?x?x96xbf16>, %o: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qr = attn.alloc_ring : !qring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      attn.ring_wait %qr[%c0] fill %c0 : !qring
      %qt = attn.ring_slot %qr[%c0] : !qring
      %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %s = attn.dot %qt, %qt, %z {rhs_transposed} : tensor<128x96xbf16, #sl>, tensor<128x96xbf16, #sl> -> tensor<128x128xf32, #acc>
      attn.store_tile %s, %o[%c0] rows %n : tensor<128x128xf32, #acc>, memref<?x128xf32>
    } producer {
      %dq = memref.dim %q, %c1 : memref<?x?x96xbf16>
      %left = arith.subi %dq, %i : index
      %rows = arith.minsi %left, %c128 : index
      attn.async_load_tile %q[%b, %i] rows %rows, %qr[%c0] {bulk} : memref<?x?x96xbf16>, !qring
      attn.async_arrive %qr[%c0] : !qring
    }
  }
  return
}

// -----

// fp8 rows of 64 bytes (head dim 64) are one 64-byte slab: S = Q·Kᵀ takes
// two k-steps of 32 e4m3 (m64n128k32) at bytes 0 and 32 of the slab row,
// both descriptors with the 64-byte swizzle's high word.
// CHECK-LABEL: gpu.func @fp8_qk_kernel
// CHECK-DAG:     %[[HI:.*]] = llvm.mlir.constant(-9223371899415822336 : i64) : i64
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:         llvm.add %{{.*}}, %c2_i32 : i32
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK-NOT:     nvvm.wgmma.mma_async
#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 4, pad = 0, slab = 64>
func.func @fp8_qk(%q: memref<?x64xf8E4M3FN>, %k: memref<?x64xf8E4M3FN>, %o: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #sl>
    %kt = attn.load_tile %k[%c0] rows %c128 : memref<?x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN, #sl>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<64x64xf8E4M3FN, #sl>, tensor<128x64xf8E4M3FN, #sl> -> tensor<64x128xf32, #acc>
    attn.store_tile %s, %o[%c0] rows %n : tensor<64x128xf32, #acc>, memref<?x128xf32>
  }
  return
}
