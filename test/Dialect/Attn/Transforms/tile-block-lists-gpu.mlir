// RUN: attn-opt %s -split-input-file --attn-tile-attention="target=sm_90a" --canonicalize | FileCheck %s

// attn.block_lists for a GPU target ==> a grid of one warp per list row,
// mapped to the thread blocks and described for launchers (program, mask
// block, grid factors). Rows beyond the lists' (a launch sized from batch
// and heads) do nothing. Each step the lanes classify key blocks
// kb0 + lane (the CPU program's search, the mask_mod inlined), count the
// listed ones of the lanes below them by shuffles up (an inclusive sum
// over 32 lanes: offsets 1, 2, 4, 8, 16), take the step's total from lane
// 31, and store each listed block at the row's count plus that prefix
// (within K). Lane 0 stores the count, min(n, K).

// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[C:[^:]*]]: memref<1x1x?xi32>, %[[X:[^:]*]]: memref<1x1x?x?xi32>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[NQ:[^:]*]]: index, %[[NK:[^:]*]]: index)
// CHECK: scf.forall (%{{[^,]*}}, %{{[^,]*}}, %[[RQ:[^)]*]]) in (1, 1, %{{.*}})
// CHECK: %[[ROWS:.*]] = memref.dim %[[C]], %c2
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[RQ]], %[[ROWS]]
// CHECK: scf.if %[[IN]]
// CHECK: %[[K:.*]] = memref.dim %[[X]], %c3
// CHECK: %[[LANE:.*]] = gpu.thread_id  x
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[NK]], %c64
// CHECK: %[[N:[^ ]*]] = scf.for %[[KB0:[^ ]*]] = %c0 to %[[BLOCKS]] step %c32 iter_args(%[[CNT:[^ ]*]] = %c0) -> (index)
// CHECK: %[[KB:.*]] = arith.addi %[[KB0]], %[[LANE]]
// CHECK: %[[ACTIVE:.*]] = arith.cmpi slt, %[[KB]], %[[BLOCKS]]
// CHECK: %[[KIND:.*]] = scf.if %[[ACTIVE]] -> (i1)
// The keys query i sees: j <= i + Nk - Nq; the mask_mod inlined.
// CHECK: scf.for %{{.*}} = %c0 to %[[B]]
// CHECK: scf.for %{{.*}} = %c0 to %[[H]]
// CHECK: arith.divsi
// CHECK: } else {
// CHECK-NEXT: scf.yield %false : i1
// CHECK: %[[KBI:.*]] = arith.index_cast %[[KB]] : index to i32
// CHECK: %[[T:.*]] = arith.extui %[[KIND]] : i1 to i32
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
// CHECK: %[[STORE:.*]] = arith.andi %[[KIND]], %[[ROOM]]
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

// Lists per batch and head: the grid names them; with full lists both
// are placed from their own prefix counts and both counts stored by lane 0.

// CHECK-LABEL: func.func @full
// CHECK: scf.forall
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
    %same = arith.cmpi eq, %di, %dj : i32
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
