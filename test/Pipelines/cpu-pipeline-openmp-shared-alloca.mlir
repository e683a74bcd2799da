// RUN: attn-opt %s -attn-cpu-pipeline -split-input-file -verify-diagnostics

// The CPU pipeline runs the grid scf.forall on OpenMP threads. A stack
// buffer allocated outside the loop and used inside it would be one buffer
// for all threads (a data race): the pipeline refuses it. One allocated
// inside the loop belongs to one iteration (checked by the second case,
// which must compile).

func.func @shared(%out: memref<4xf32>) {
  %buf = memref.alloca() : memref<1xf32>
  scf.forall (%i) in (4) {
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    // expected-error @below {{uses a stack buffer allocated outside the parallel grid loop (every thread would share it)}}
    memref.store %f, %buf[%c0] : memref<1xf32>
    %v = memref.load %buf[%c0] : memref<1xf32>
    memref.store %v, %out[%i] : memref<4xf32>
  }
  return
}

// -----

func.func @private(%out: memref<4xf32>) {
  scf.forall (%i) in (4) {
    %buf = memref.alloca() : memref<1xf32>
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    memref.store %f, %buf[%c0] : memref<1xf32>
    %v = memref.load %buf[%c0] : memref<1xf32>
    memref.store %v, %out[%i] : memref<4xf32>
  }
  return
}
