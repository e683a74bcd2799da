// RUN: attn-opt %s -split-input-file --attn-tile-attention --canonicalize | FileCheck %s

// attn.block_lists ==> a CPU-only loop program over the lists' rows: each
// key block's visibility searched over the row's (b, h), its queries and
// the keys each query sees (causal: up to i + Nk - Nq), the mask_mod's
// body inlined as scalar code, the block appended where visible, the
// count stored last (at most K).

// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[C:[^:]*]]: memref<1x1x?xi32>, %[[X:[^:]*]]: memref<1x1x?x?xi32>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[NQ:[^:]*]]: index, %[[NK:[^:]*]]: index)
// CHECK-DAG: %[[K:.*]] = memref.dim %[[X]], %c3
// CHECK-DAG: %[[QB:.*]] = memref.dim %[[C]], %c2
// CHECK: scf.forall (%[[QBI:.*]]) in (%[[QB]])
// One list row covers every batch and head (the lists' dims are 1).
// The mask_mod reads neither b nor h: one batch and one head are enough.
// CHECK: %[[B1:.*]] = arith.minsi %[[B]], %c1
// CHECK: %[[H1:.*]] = arith.minsi %[[H]], %c1
// CHECK: %[[DIAG:.*]] = arith.subi %[[NK]], %[[NQ]]
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[NK]], %c64
// CHECK: %[[N:[^ ]*]] = scf.for %[[KB:[^ ]*]] = %c0 to %[[BLOCKS]] step %c1 iter_args(%[[CNT:[^ ]*]] = %c0) -> (index)
// CHECK: scf.for %{{.*}} = %c0 to %[[B1]]
// CHECK: scf.for %{{.*}} = %c0 to %[[H1]]
// CHECK: scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}}
// The keys query i sees: j <= i + Nk - Nq.
// CHECK: %[[LAST:.*]] = arith.addi %[[I]], %[[DIAG]]
// CHECK: arith.addi %[[LAST]], %c1
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK: arith.index_cast %[[J]] : index to i32
// CHECK: arith.divsi
// CHECK: arith.cmpi eq
// CHECK: %[[KBI:.*]] = arith.index_cast %[[KB]] : index to i32
// CHECK: %[[ROOM:.*]] = arith.cmpi slt, %[[CNT]], %[[K]]
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[KBI]], %[[X]][%c0, %c0, %[[QBI]], %[[CNT]]]
// CHECK: %[[CUT:.*]] = arith.minsi %[[N]], %[[K]]
// CHECK: %[[CUT32:.*]] = arith.index_cast %[[CUT]] : index to i32
// CHECK: memref.store %[[CUT32]], %[[C]][%c0, %c0, %[[QBI]]]
// CHECK: } {attn.cpu_only}
func.func @partial(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                   %b: index, %h: index, %nq: index, %nk: index) {
  attn.block_lists %c, %x sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 32, 64>}
      : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

// With full lists: a visible block is searched again over all its keys
// (the mask_mod must keep every one), and goes to one list or the other.

// CHECK-LABEL: func.func @full
// CHECK: scf.forall
// CHECK: %[[VIS:[^ ]*]] = scf.for %{{.*}} iter_args(%{{.*}} = %false) -> (i1)
// CHECK: %[[WHOLE:[^ ]*]] = scf.if %[[VIS]] -> (i1) {
// CHECK: scf.for
// CHECK: scf.yield %false : i1
// CHECK-NEXT: }
// CHECK-NEXT: %[[NOTWHOLE:.*]] = arith.xori %[[WHOLE]], %true
// CHECK: %[[PART:.*]] = arith.andi %[[VIS]], %[[NOTWHOLE]]
// CHECK: arith.andi %[[PART]]
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: arith.andi %[[WHOLE]]
// CHECK: memref.store %{{.*}}, %arg3
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: } {attn.cpu_only}
func.func @full(%c: memref<?x?x?xi32>, %x: memref<?x?x?x?xi32>,
                %fc: memref<?x?x?xi32>, %fx: memref<?x?x?x?xi32>,
                %b: index, %h: index, %nq: index, %nk: index) {
  attn.block_lists %c, %x full(%fc, %fx : memref<?x?x?xi32>,
      memref<?x?x?x?xi32>) sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {window_left = 128} : memref<?x?x?xi32>, memref<?x?x?x?xi32>
  return
}

// -----

// A mask_mod that reads the head: a row shared by the heads searches every
// head (the lists' head dim is 1), a batch alone (it does not read b).

// CHECK-LABEL: func.func @per_head
// CHECK-SAME: %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index)
// CHECK: %[[B1:.*]] = arith.minsi %[[B]], %c1
// CHECK-NOT: arith.minsi %[[H]]
// CHECK: scf.for %{{.*}} = %c0 to %[[B1]]
// CHECK: scf.for %{{.*}} = %c0 to %[[H]]
func.func @per_head(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                    %b: index, %h: index, %nq: index, %nk: index) {
  attn.block_lists %c, %x sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %jh = arith.addi %j, %hh : i32
    %t = arith.cmpi sle, %jh, %i : i32
    attn.yield %t : i1
  } : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}
