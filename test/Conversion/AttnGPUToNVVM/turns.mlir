// RUN: attn-opt %s -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Two warpgroups taking turns at an asynchronous wgmma product. Warpgroup
// w = tid / 128 waits at named barrier 1 + w and passes the turn by
// arriving at 1 + (w + 1) mod 2, 256 threads each (barrier 0 stays the
// program-wide one); at the start the last warpgroup passes the first turn
// to warpgroup 0, at the end warpgroup 0 takes back the last one. The
// product is committed without a wait; attn.dot_wait is one
// wgmma.wait_group with the 32 accumulators tied through it.
// CHECK-LABEL: gpu.func @turns_kernel
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : i32
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %[[C1]] : i32
// CHECK-NEXT:    scf.if %[[LAST]] {
// CHECK-NEXT:      nvvm.barrier.arrive id = %[[C1]] number_of_threads = %[[C256]]
// CHECK:         nvvm.barrier id = %{{.*}} number_of_threads = %[[C256]]
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:     nvvm.wgmma.wait.group.sync.aligned
// CHECK:         nvvm.barrier.arrive id = %{{.*}} number_of_threads = %[[C256]]
// CHECK-NEXT:    llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "{{(=f,)+}}0,1,{{.*}},31"
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @turns(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    attn.start_turns
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xbf16> -> tensor<128x64xbf16, #sl>
    %kt = attn.load_tile %k[%c0] rows %c64 : memref<?x64xbf16> -> tensor<64x64xbf16, #sl>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    attn.await_turn
    %s = attn.dot %qt, %kt, %z {async, rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<128x64xf32, #acc>
    attn.pass_turn
    %w = attn.dot_wait %s {pending = 0} : tensor<128x64xf32, #acc>
    attn.store_tile %w, %o[%c0] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
    attn.end_turns
  }
  return
}
