// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// A program that waits for the grid before it: griddepcontrol.wait, then
// .launch_dependents, before the tile's load; its description tells the
// launcher it may start the kernel under its predecessor's tail
// (dependent_launch, the manifest's pdl=1).
// CHECK-LABEL: gpu.func @chained_kernel
// CHECK-SAME:    program = "merge_splits"
// CHECK-SAME:    dependent_launch = true
// CHECK-NOT:     llvm.load
// CHECK-NOT:     llvm.store
// CHECK-NOT:     nvvm.cp.async
// CHECK:         nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK:         llvm.load
#mma = #attn.mma<warps = 1>
func.func @chained(%p: memref<?x16xf32>, %o: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    attn.wait_prior_grids
    attn.launch_dependents
    %t = attn.load_tile %p[%c0] rows %n : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %o[%c0] rows %n : tensor<16x16xf32, #mma>, memref<?x16xf32>
  } {attn.program = "merge_splits"}
  return
}

// -----

// Without the wait the kernel is launched after the grid before it.
// CHECK-LABEL: gpu.func @plain_kernel
// CHECK-NOT:     dependent_launch
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         gpu.return
#mma = #attn.mma<warps = 1>
func.func @plain(%p: memref<?x16xf32>, %o: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %p[%c0] rows %n : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %o[%c0] rows %n : tensor<16x16xf32, #mma>, memref<?x16xf32>
  } {attn.program = "merge_splits"}
  return
}
