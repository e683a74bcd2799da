// RUN: attn-opt %s -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s

// attn.block_lists round-trips: the partial lists alone, with the full
// lists, a window and a captured table.

// CHECK-LABEL: func.func @partial
// CHECK: attn.block_lists %{{.*}}, %{{.*}} sizes(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) mask_mod {
// CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i32, %[[I:.*]]: i32, %[[J:.*]]: i32):
// CHECK:   arith.divsi %[[I]]
// CHECK:   attn.yield %{{.*}} : i1
// CHECK: } {causal} : memref<1x1x?xi32>, memref<1x1x?x?xi32>
func.func @partial(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                   %b: index, %h: index, %nq: index, %nk: index) {
  attn.block_lists %c, %x sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal} : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

// CHECK-LABEL: func.func @full_window
// CHECK: attn.block_lists %{{.*}}, %{{.*}} full(%{{.*}}, %{{.*}} : memref<?x1x?xi32>, memref<?x1x?x?xi32>) sizes
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xi32>
// CHECK: {mask_block = array<i64: 64, 32>, window_left = 256 : i64, window_right = 16 : i64}
func.func @full_window(%c: memref<?x1x?xi32>, %x: memref<?x1x?x?xi32>,
                       %fc: memref<?x1x?xi32>, %fx: memref<?x1x?x?xi32>,
                       %docs: memref<?x?xi32>, %b: index, %h: index,
                       %nq: index, %nk: index) {
  attn.block_lists %c, %x full(%fc, %fx : memref<?x1x?xi32>,
      memref<?x1x?x?xi32>) sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %bb : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {window_left = 256, window_right = 16, mask_block = array<i64: 64, 32>}
      : memref<?x1x?xi32>, memref<?x1x?x?xi32>
  return
}
