// RUN: attn-opt %s -split-input-file -convert-scf-to-openmp -attn-finish-openmp-grid \
// RUN:   -verify-diagnostics | FileCheck %s --implicit-check-not=memref.alloca_scope

// The grid loop as convert-scf-to-openmp leaves it: its worksharing loop
// gets schedule(dynamic) and its body's alloca_scope becomes a stack
// save/restore around the body (no alloca_scope left anywhere: the RUN
// line's implicit CHECK-NOT).
// CHECK-LABEL: func.func @grid
// CHECK:         omp.parallel
// CHECK:           omp.wsloop schedule(dynamic)
// CHECK:             omp.loop_nest
// CHECK-NEXT:          %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK:               memref.alloca() : memref<16xf32>
// CHECK:               memref.store
// CHECK:               llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT:          omp.yield
func.func @grid(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %tmp = memref.alloca() : memref<16xf32>
    memref.store %f, %tmp[%c0] : memref<16xf32>
    %x = memref.load %tmp[%c0] : memref<16xf32>
    memref.store %x, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A stack buffer from before the loop, used inside it: every thread would
// write the same one.
func.func @shared_stack_buffer(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %tmp = memref.alloca() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    // expected-error @below {{uses a stack buffer allocated outside the parallel grid loop (every thread would share it): allocate it inside the loop}}
    memref.store %f, %tmp[%c0] : memref<16xf32>
    scf.reduce
  }
  return
}
