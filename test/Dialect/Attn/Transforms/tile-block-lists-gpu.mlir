// RUN: attn-opt %s -split-input-file --attn-tile-attention="target=sm_90a" --canonicalize | FileCheck %s

// attn.block_lists for a GPU target ==> a grid of one thread block (16
// warps) per list row, mapped to the thread blocks and described for
// launchers (program, mask block, grid factors). Rows beyond the lists' (a
// launch sized from batch and heads) do nothing. (1) Warp w classifies key
// blocks w, w + 16, ...: per query row its lanes take keys jLo + lane,
// + 32, ... (the mask_mod inlined, no branch) and a butterfly of shuffles
// (xor 16, 8, 4, 2, 1) gives every lane the warp's answer, so the warp
// leaves the search together; lane 0 writes the kind into the row's entry
// kb (within K). The mask_mod reads neither b nor h: one of each is
// searched. (2) After a barrier, warp 0 compacts the row, 32 entries a
// step: an inclusive sum of the listed flags over the lanes (shuffles up
// 1, 2, 4, 8, 16), the step's total from lane 31, each listed block stored
// at the row's count plus the lanes below it (within K); lane 0 stores the
// count, min(n, K).

// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[C:[^:]*]]: memref<1x1x?xi32>, %[[X:[^:]*]]: memref<1x1x?x?xi32>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[NQ:[^:]*]]: index, %[[NK:[^:]*]]: index)
// CHECK: scf.forall (%{{[^,]*}}, %{{[^,]*}}, %[[RQ:[^)]*]]) in (1, 1, %{{.*}})
// CHECK: %[[ROWS:.*]] = memref.dim %[[C]], %c2
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[RQ]], %[[ROWS]]
// CHECK: scf.if %[[IN]]
// CHECK: %[[K:.*]] = memref.dim %[[X]], %c3
// CHECK: %[[B1:.*]] = arith.minsi %[[B]], %c1
// CHECK: %[[H1:.*]] = arith.minsi %[[H]], %c1
// CHECK: %[[TID:.*]] = gpu.thread_id  x upper_bound 512
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[NK]], %c64
// CHECK: %[[STORED:.*]] = arith.minsi %[[BLOCKS]], %[[K]]
// CHECK: scf.for %[[KB:[^ ]*]] = %[[WARP]] to %[[STORED]] step %c16 {
// CHECK: scf.for %{{.*}} = %c0 to %[[B1]]
// CHECK: scf.for %{{.*}} = %c0 to %[[H1]]
// CHECK: %[[JLO:.*]] = arith.addi %{{.*}}, %[[LANE]]
// CHECK: scf.for %{{.*}} = %[[JLO]] to %{{.*}} step %c32 iter_args
// CHECK: arith.divsi
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: %[[KINDV:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK-NEXT: memref.store %[[KINDV]], %[[X]][%c0, %c0, %[[RQ]], %[[KB]]]
// CHECK: gpu.barrier
// CHECK: %[[W0:.*]] = arith.cmpi eq, %[[WARP]], %c0
// CHECK: scf.if %[[W0]]
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: %[[N:[^ ]*]] = scf.for %[[KB0:[^ ]*]] = %c0 to %[[STORED]] step %c32 iter_args(%[[CNT:[^ ]*]] = %c0) -> (index)
// CHECK: %[[KB2:.*]] = arith.addi %[[KB0]], %[[LANE]]
// CHECK: %[[ACTIVE:.*]] = arith.cmpi slt, %[[KB2]], %[[STORED]]
// CHECK: %[[KIND:.*]] = scf.if %[[ACTIVE]] -> (i32)
// CHECK-NEXT: memref.load %[[X]][%c0, %c0, %[[RQ]], %[[KB2]]]
// CHECK: %[[LISTED:.*]] = arith.cmpi eq, %[[KIND]], %c1_i32
// CHECK: %[[KBI:.*]] = arith.index_cast %[[KB2]] : index to i32
// CHECK: %[[T:.*]] = arith.extui %[[LISTED]] : i1 to i32
// CHECK: gpu.shuffle  up %[[T]], %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: %{{.*}}, %[[V16:.*]] = gpu.shuffle  up %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: %[[INCL:.*]] = arith.select %[[V16]]
// CHECK: %[[TOTAL:.*]], %{{.*}} = gpu.shuffle  idx %[[INCL]], %c31_i32, %c32_i32 : i32
// CHECK: %[[BEFORE:.*]] = arith.subi %[[INCL]], %[[T]]
// CHECK: %[[BEFOREX:.*]] = arith.index_cast %[[BEFORE]] : i32 to index
// CHECK: %[[POS:.*]] = arith.addi %[[CNT]], %[[BEFOREX]]
// CHECK: %[[ROOM:.*]] = arith.cmpi slt, %[[POS]], %[[K]]
// CHECK: %[[STORE:.*]] = arith.andi %[[LISTED]], %[[ROOM]]
// CHECK: scf.if %[[STORE]]
// CHECK-NEXT: memref.store %[[KBI]], %[[X]][%c0, %c0, %[[RQ]], %[[POS]]]
// CHECK: %[[TOTALX:.*]] = arith.index_cast %[[TOTAL]] : i32 to index
// CHECK: %[[NEXT:.*]] = arith.addi %[[CNT]], %[[TOTALX]]
// CHECK: scf.yield %[[NEXT]] : index
// CHECK: scf.if %[[LANE0]]
// CHECK-NEXT: %[[CUT:.*]] = arith.minsi %[[N]], %[[K]]
// CHECK-NEXT: %[[CUT32:.*]] = arith.index_cast %[[CUT]] : index to i32
// CHECK-NEXT: memref.store %[[CUT32]], %[[C]][%c0, %c0, %[[RQ]]]
// CHECK: } {attn.grid = ["1", "1", "q_blocks"], attn.mask_block = array<i64: 32, 64>, attn.program = "block_lists", attn.target = #attn.target<arch = "sm_90a"
// CHECK-SAME: mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
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

// Lists per batch and head: the grid names them; a block's kind is 1
// (partial) or 2 (full, where the mask_mod keeps all its keys: an "all"
// search, its lanes combined by and); each list is placed from its own
// prefix count and lane 0 stores both counts. The mask_mod reads b: every
// batch of the row is searched (here one: the lists have a row per batch).

// CHECK-LABEL: func.func @full
// CHECK: scf.forall
// CHECK: gpu.shuffle  xor
// CHECK: arith.ori
// CHECK: gpu.shuffle  xor
// CHECK: arith.andi
// CHECK: %[[FULLK:.*]] = arith.select %{{.*}}, %c2_i32, %c0_i32 : i32
// CHECK: arith.select %{{.*}}, %c1_i32, %[[FULLK]] : i32
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %{{.*}}, %c1_i32
// CHECK: arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.shuffle  idx
// CHECK: memref.store %{{.*}}, %arg1
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.shuffle  idx
// CHECK: memref.store %{{.*}}, %arg3
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: attn.grid = ["batch", "heads_q", "q_blocks"], attn.mask_block = array<i64: 128, 128>, attn.program = "block_lists"
func.func @full(%c: memref<?x?x?xi32>, %x: memref<?x?x?x?xi32>,
                %fc: memref<?x?x?xi32>, %fx: memref<?x?x?x?xi32>,
                %b: index, %h: index, %nq: index, %nk: index) {
  attn.block_lists %c, %x full(%fc, %fx : memref<?x?x?xi32>,
      memref<?x?x?x?xi32>) sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %db = arith.addi %dj, %bb : i32
    %same = arith.cmpi eq, %di, %db : i32
    attn.yield %same : i1
  } : memref<?x?x?xi32>, memref<?x?x?x?xi32>
  return
}

// -----

// The op's own target decides, over the pass's: a CPU target keeps the
// CPU program.

// CHECK-LABEL: func.func @cpu_target
// CHECK: attn.cpu_only
// CHECK-NOT: gpu.
func.func @cpu_target(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                      %n: index) {
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%bb: i32, %hh: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>} : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}
