// RUN: attn-opt %s -split-input-file -attn-hoist-vector-transfers | FileCheck %s

// A register tile's k loop after bufferization reads and writes the
// accumulator every step; hoisted, the tile is carried in registers and
// read and written once.
// CHECK-LABEL: func.func @register_tile
// CHECK:         %[[R:.*]] = vector.transfer_read %arg0[%c0, %c0]
// CHECK:         %[[L:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[R]]) -> (vector<4x16xf32>)
// CHECK-NOT:       vector.transfer
// CHECK:           %[[N:.*]] = arith.addf %[[A]], %{{.*}}
// CHECK:           scf.yield %[[N]]
// CHECK:         vector.transfer_write %[[L]], %arg0[%c0, %c0]
func.func @register_tile(%acc: memref<4x16xf32>, %x: vector<4x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %a = vector.transfer_read %acc[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    %s = arith.addf %a, %x : vector<4x16xf32>
    vector.transfer_write %s, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  }
  return
}

// -----

// Another write to the buffer in the loop: nothing moves.
// CHECK-LABEL: func.func @aliased
// CHECK:         scf.for
// CHECK:           vector.transfer_read
// CHECK:           vector.transfer_write
// CHECK:           memref.store
func.func @aliased(%acc: memref<4x16xf32>, %x: vector<4x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %a = vector.transfer_read %acc[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    %s = arith.addf %a, %x : vector<4x16xf32>
    vector.transfer_write %s, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
    memref.store %f0, %acc[%i, %c0] : memref<4x16xf32>
  }
  return
}

// -----

// The shape one-shot bufferization leaves: the accumulator's buffer threaded
// through the k loop as an iter_arg yielded unchanged. The iter_arg folds
// into its init, and then the pair hoists as above.
// CHECK-LABEL: func.func @bufferized_register_tile
// CHECK:         %[[R:.*]] = vector.transfer_read %arg0[%c0, %c0]
// CHECK:         %[[L:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[R]]) -> (vector<4x16xf32>)
// CHECK-NOT:       vector.transfer
// CHECK:           %[[N:.*]] = arith.addf %[[A]], %{{.*}}
// CHECK:           scf.yield %[[N]]
// CHECK:         vector.transfer_write %[[L]], %arg0[%c0, %c0]
// CHECK:         return %arg0
func.func @bufferized_register_tile(%acc: memref<4x16xf32>, %x: vector<4x16xf32>, %n: index) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%c = %acc) -> (memref<4x16xf32>) {
    %a = vector.transfer_read %c[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    %s = arith.addf %a, %x : vector<4x16xf32>
    vector.transfer_write %s, %c[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
    scf.yield %c : memref<4x16xf32>
  }
  return %r : memref<4x16xf32>
}
