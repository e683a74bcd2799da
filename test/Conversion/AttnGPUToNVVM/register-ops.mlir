// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Register tiles are the vector of what one thread holds: a 16x16 f32 tile
// in #attn.mma<warps = 1> is 1 m-tile x 2 n-tiles x 4 = 8 floats a thread,
// its row slice 2. Elementwise ops stay whole-vector ops; exp2 becomes ex2
// per element; attn.reduce folds in-thread then shuffles over the quad
// (bfly 1, 2); attn.broadcast is a register permutation; attn.mask compares
// each element's constant (col) and (col - row) offsets against one scalar
// per thread; attn.iota adds them to one.

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>

// CHECK-LABEL: func.func @softmax_row
// CHECK:         gpu.launch_func @attn_kernels::@softmax_row_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @softmax_row_kernel
// CHECK-SAME:    known_block_size = array<i32: 32, 1, 1>
// Element i's column offset 8n + e%2 and column minus row offset (row
// 8·(e/2)) in a 1x2 tile of n-tiles, e = i % 4, n = i / 4.
// CHECK-DAG:     %[[DIFF:.*]] = arith.constant dense<[0, 1, -8, -7, 8, 9, 0, 1]> : vector<8xi32>
// CHECK-DAG:     %[[COLS:.*]] = arith.constant dense<[0, 1, 0, 1, 8, 9, 8, 9]> : vector<8xi32>
// Two llvm.loads of an f32 pair per row half and n-tile = 4 loads.
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// The mask: one compare per element vector, causal adds the diagonal:
// hidden iff kv_len - kBase <= col, or qBase + (kv_len - q_len) - kBase <
// col - row.
// CHECK:         arith.cmpi sle, %{{.*}}, %[[COLS]] : vector<8xi32>
// CHECK:         arith.cmpi slt, %{{.*}}, %[[DIFF]] : vector<8xi32>
// CHECK:         arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
// reduce max: per row half, 3 in-thread maxes then 2 shuffles.
// CHECK-COUNT-2: nvvm.shfl.sync  bfly
// CHECK:         vector.shuffle %{{.*}} [0, 0, 1, 1, 0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK:         arith.subf %{{.*}} : vector<8xf32>
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
func.func @softmax_row(%s: memref<?x16xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%row, %n) kv(%c0, %n) {causal} : tensor<16x16xf32, #mma>
    %r = attn.reduce max %m : tensor<16x16xf32, #mma> -> tensor<16xf32, #row>
    %rb = attn.broadcast %r : tensor<16xf32, #row> -> tensor<16x16xf32, #mma>
    %d = arith.subf %m, %rb : tensor<16x16xf32, #mma>
    %e = math.exp2 %d : tensor<16x16xf32, #mma>
    attn.store_tile %e, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// A sliding window on the same constants: with a = qBase + (kv_len -
// q_len) - kBase, hidden iff col - row > a + R or col - row < a - L (causal
// is R = 0: the compare against a itself).
// CHECK-LABEL: gpu.func @window_kernel
// CHECK-DAG:     %[[DIFF:.*]] = arith.constant dense<[0, 1, -8, -7, 8, 9, 0, 1]> : vector<8xi32>
// CHECK:         arith.cmpi sle, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK:         %[[ASPLAT:.*]] = vector.broadcast %[[A:[0-9]+]] : i32 to vector<8xi32>
// CHECK-NEXT:    arith.cmpi slt, %[[ASPLAT]], %[[DIFF]] : vector<8xi32>
// CHECK:         %[[LB:.*]] = arith.subi %[[A]], %c100_i32 : i32
// CHECK:         %[[LSPLAT:.*]] = vector.broadcast %[[LB]] : i32 to vector<8xi32>
// CHECK:         arith.cmpi sgt, %[[LSPLAT]], %[[DIFF]] : vector<8xi32>
// CHECK:         arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
func.func @window(%s: memref<?x16xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%row, %n) kv(%c0, %n) {causal, window_left = 100} : tensor<16x16xf32, #mma>
    attn.store_tile %m, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// attn.iota: a per-thread base (the row start plus warp row and g, or the
// column start plus 2q) plus each element's constant row or column offset
// in the layout. A score_mod's key minus query position as f32 folds to one
// scalar subtraction and conversion a thread plus constant float offsets
// (column minus row): no per-element integer op or conversion.
// CHECK-LABEL: gpu.func @positions_kernel
// CHECK-DAG:     %[[OFFS:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, -8.000000e+00, -7.000000e+00, 8.000000e+00, 9.000000e+00, 0.000000e+00, 1.000000e+00]> : vector<8xf32>
// CHECK-NOT:     arith.subi %{{.*}} : vector<8xi32>
// CHECK:         %[[D:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[DF:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %[[DF]] : f32 to vector<8xf32>
// CHECK-NEXT:    %[[P:.*]] = arith.addf %[[B]], %[[OFFS]] : vector<8xf32>
// CHECK-NEXT:    arith.addf %{{.*}}, %[[P]] : vector<8xf32>
// CHECK-NOT:     arith.sitofp %{{.*}} : vector<8xi32>
func.func @positions(%s: memref<?x16xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %qi = attn.iota %row dim 0 : tensor<16x16xi32, #mma>
    %kj = attn.iota %c0 dim 1 : tensor<16x16xi32, #mma>
    %d = arith.subi %kj, %qi : tensor<16x16xi32, #mma>
    %df = arith.sitofp %d : tensor<16x16xi32, #mma> to tensor<16x16xf32, #mma>
    %r = arith.addf %t, %df : tensor<16x16xf32, #mma>
    attn.store_tile %r, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>
#col = #attn.slice<#attn.mma<warps = 1>, dim = 1>

// A 1-d attn.iota in a slice layout: the thread's rows (base row start +
// warp row + g, offsets 0, 8) or columns (base column start + 2q, offsets
// 8·n + e). A per-column bias slope·float(j + x) (a position bias's
// columns' part, `reassoc`) is one FMA a column, slope·C + slope·float(base)
// with the offsets C as constants, after one conversion a thread; broadcast
// per column it adds to the tile; the rows' iota is the row slice's.
// CHECK-LABEL: gpu.func @position_vectors_kernel
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant dense<[0, 8]> : vector<2xi32>
// CHECK-DAG:     %[[COLS:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 8.000000e+00, 9.000000e+00]> : vector<4xf32>
// CHECK:         %[[CF:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[SA:.*]] = vector.broadcast %[[SLOPE:.*]] : f32 to vector<4xf32>
// CHECK-NEXT:    %[[SC:.*]] = arith.mulf %[[SLOPE]], %[[CF]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:    %[[SB:.*]] = vector.broadcast %[[SC]] : f32 to vector<4xf32>
// CHECK-NEXT:    %[[COL:.*]] = llvm.intr.fma(%[[SA]], %[[COLS]], %[[SB]]) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %[[B:.*]] = vector.shuffle %[[COL]], %[[COL]] [0, 1, 0, 1, 2, 3, 2, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:    arith.addf %{{.*}}, %[[B]] : vector<8xf32>
// CHECK-NOT:     arith.sitofp %{{.*}} : vector<4xi32>
// CHECK:         arith.addi %{{.*}}, %[[ROWS]] : vector<2xi32>
func.func @position_vectors(%s: memref<?x16xf32>, %o: memref<?x16xf32>,
                            %rows: memref<?xi32>, %slope: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %kj = attn.iota %row dim 0 : tensor<16xi32, #col>
    %jf = arith.sitofp %kj : tensor<16xi32, #col> to tensor<16xf32, #col>
    %sp = tensor.splat %slope : tensor<16xf32, #col>
    %bias = arith.mulf %sp, %jf fastmath<reassoc,contract> : tensor<16xf32, #col>
    %bb = attn.broadcast %bias {per_column} : tensor<16xf32, #col> -> tensor<16x16xf32, #mma>
    %r = arith.addf %t, %bb : tensor<16x16xf32, #mma>
    attn.store_tile %r, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
    %qi = attn.iota %row dim 0 : tensor<16xi32, #row>
    attn.store_tile %qi, %rows[%row] rows %c16 : tensor<16xi32, #row>, memref<?xi32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// reduce sum into column groups of one n-tile (16x32 -> 16x8): each thread
// adds its element e of n-tiles 0..3 (16 elements -> 4), no shuffles.
// CHECK-LABEL: gpu.func @column_groups_kernel
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-COUNT-12: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.addf
// CHECK:         vector.from_elements %{{.*}} : vector<4xf32>
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         gpu.return
func.func @column_groups(%s: memref<?x32xf32>, %l: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x32xf32> -> tensor<16x32xf32, #mma>
    %r = attn.reduce sum %t : tensor<16x32xf32, #mma> -> tensor<16x8xf32, #mma>
    attn.store_tile %r, %l[%c0] rows %c16 : tensor<16x8xf32, #mma>, memref<?x8xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>

// reduce sum uses adds; a 1-d store writes from lane q = 0 of each quad.
// CHECK-LABEL: gpu.func @row_sum_kernel
// CHECK-COUNT-2: nvvm.shfl.sync  bfly
// CHECK:         arith.addf
// CHECK:         arith.cmpi eq
// CHECK:         llvm.store %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
func.func @row_sum(%s: memref<?x16xf32>, %l: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %r = attn.reduce sum %t : tensor<16x16xf32, #mma> -> tensor<16xf32, #row>
    attn.store_tile %r, %l[%c0] rows %c16 : tensor<16xf32, #row>, memref<?xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// A splat tile constant becomes a vector constant; tanh is computed per
// element from ex2 (sign(x)·(1 − 2/(e^2|x| + 1))), with no libdevice call.
// CHECK-LABEL: gpu.func @cap_kernel
// CHECK:         arith.constant dense<1.250000e-01> : vector<8xf32>
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
func.func @cap(%s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %k = arith.constant dense<0.125> : tensor<16x16xf32, #mma>
    %x = arith.mulf %t, %k : tensor<16x16xf32, #mma>
    %y = math.tanh %x : tensor<16x16xf32, #mma>
    attn.store_tile %y, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>

// A·broadcast(α) marked attn.skip_unit_factors (attn-assign-layouts marks
// the online softmax's rescale where it pays): any(α_r != 1) over the
// thread's 2 rows, then one multiply per element only in that branch.
// Unmarked, the same product is one vector multiply.
// CHECK-LABEL: gpu.func @rescale_kernel
// CHECK:         %[[NE:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK:         %[[ANY:.*]] = vector.reduction <or>, %[[NE]] : vector<2xi1> into i1
// CHECK:         scf.if %[[ANY]] -> (vector<8xf32>) {
// CHECK-COUNT-8:   arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           vector.from_elements
// CHECK:         } else {
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT:     scf.if {{.*}} -> (vector<8xf32>)
func.func @rescale(%s: memref<?x16xf32>, %a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %r = attn.load_tile %a[%c0] rows %c16 : memref<?xf32> -> tensor<16xf32, #row>
    %rb = attn.broadcast %r : tensor<16xf32, #row> -> tensor<16x16xf32, #mma>
    %x = arith.mulf %rb, %t {attn.skip_unit_factors} : tensor<16x16xf32, #mma>
    %y = arith.mulf %rb, %x : tensor<16x16xf32, #mma>
    attn.store_tile %y, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>

// The online softmax's exponent (S − broadcast(m))·c marked
// attn.fused_exponent, c a run-time scalar: a thread whose 2 rows both have
// −2^12 <= m·c <= 2^12 computes fma(S, c, −(m·c)) per element (llvm.fma by
// name: no libdevice), any other the exact (S − m)·c, all of it inside the branch (mma.sync
// tiles: the FFMAs after the join spilled at D = 128).
// CHECK-LABEL: gpu.func @exponent_kernel
// CHECK-DAG:     %[[LIM:.*]] = arith.constant dense<4.096000e+03> : vector<2xf32>
// CHECK-DAG:     %[[NLIM:.*]] = arith.constant dense<-4.096000e+03> : vector<2xf32>
// CHECK:         %[[MC:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-DAG:     %[[LE:.*]] = arith.cmpf ole, %[[MC]], %[[LIM]] : vector<2xf32>
// CHECK-DAG:     %[[GE:.*]] = arith.cmpf oge, %[[MC]], %[[NLIM]] : vector<2xf32>
// CHECK:         %[[IN:.*]] = arith.andi %[[LE]], %[[GE]] : vector<2xi1>
// CHECK:         %[[ALL:.*]] = vector.reduction <and>, %[[IN]] : vector<2xi1> into i1
// CHECK:         scf.if %[[ALL]] -> (vector<8xf32>) {
// CHECK-COUNT-8:   llvm.call_intrinsic "llvm.fma.f32"
// CHECK-NOT:       arith.subf
// CHECK:         } else {
// CHECK-COUNT-8:   arith.subf %{{.*}}, %{{.*}} : f32
// CHECK:         }
func.func @exponent(%s: memref<?x16xf32>, %a: memref<?xf32>, %c: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.load_tile %a[%c0] rows %c16 : memref<?xf32> -> tensor<16xf32, #row>
    %mb = attn.broadcast %m : tensor<16xf32, #row> -> tensor<16x16xf32, #mma>
    %d = arith.subf %t, %mb : tensor<16x16xf32, #mma>
    %cs = tensor.splat %c : tensor<16x16xf32, #mma>
    %e = arith.mulf %d, %cs {attn.fused_exponent} : tensor<16x16xf32, #mma>
    attn.store_tile %e, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 4, version = 3>
#row = #attn.slice<#attn.mma<warps = 4, version = 3>>

// On a warpgroup tile every element of the marked exponent is one
// fma(S', c, off) (llvm.fma by name: no libdevice) after the branch, where
// a thread whose 2 rows both have −2^12 <= m·c <= 2^12 keeps S' = S and
// off = −(m·c), and any other takes S' = S − m (the branch's only work)
// and off = 0: fl((S − m)·c), the exact form.
// CHECK-LABEL: gpu.func @exponent_wg_kernel
// CHECK-DAG:     %[[LIM:.*]] = arith.constant dense<4.096000e+03> : vector<2xf32>
// CHECK-DAG:     %[[NLIM:.*]] = arith.constant dense<-4.096000e+03> : vector<2xf32>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[MC:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-DAG:     %[[LE:.*]] = arith.cmpf ole, %[[MC]], %[[LIM]] : vector<2xf32>
// CHECK-DAG:     %[[GE:.*]] = arith.cmpf oge, %[[MC]], %[[NLIM]] : vector<2xf32>
// CHECK:         %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : vector<2xi1>
// CHECK:         %[[ALL:.*]] = vector.reduction <and>, %[[IN]] : vector<2xi1> into i1
// CHECK:         %[[S:.*]] = scf.if %[[ALL]] -> (vector<8xf32>) {
// CHECK-NEXT:      scf.yield %{{.*}} : vector<8xf32>
// CHECK-NEXT:    } else {
// CHECK-COUNT-8:   arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:       llvm.call_intrinsic
// CHECK:         }
// CHECK:         %[[P:.*]] = arith.mulf %{{.*}}, %arg2 : f32
// CHECK-NEXT:    %[[NP:.*]] = arith.negf %[[P]] : f32
// CHECK-NEXT:    %[[OFF:.*]] = arith.select %[[ALL]], %[[NP]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[X:.*]] = vector.extract %[[S]][0] : f32 from vector<8xf32>
// CHECK-NEXT:    llvm.call_intrinsic "llvm.fma.f32"(%[[X]], %arg2, %[[OFF]])
// CHECK-COUNT-7: llvm.call_intrinsic "llvm.fma.f32"
// CHECK-NOT:     scf.if {{.*}} -> (vector<8xf32>)
func.func @exponent_wg(%s: memref<?x16xf32>, %a: memref<?xf32>, %c: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c64 : memref<?x16xf32> -> tensor<64x16xf32, #mma>
    %m = attn.load_tile %a[%c0] rows %c64 : memref<?xf32> -> tensor<64xf32, #row>
    %mb = attn.broadcast %m : tensor<64xf32, #row> -> tensor<64x16xf32, #mma>
    %d = arith.subf %t, %mb : tensor<64x16xf32, #mma>
    %cs = tensor.splat %c : tensor<64x16xf32, #mma>
    %e = arith.mulf %d, %cs {attn.fused_exponent} : tensor<64x16xf32, #mma>
    attn.store_tile %e, %s[%c0] rows %c64 : tensor<64x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#row = #attn.slice<#attn.mma<warps = 1>>

// The in-thread part of a row reduction is a balanced tree: a row half's 8
// elements (4 n-tiles x 2) in 3 levels of adds, not a chain of 7, then the
// quad's 2 shuffles.
// CHECK-LABEL: gpu.func @row_sum_tree_kernel
// CHECK:         %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[B:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[C:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[CD:.*]] = arith.addf %[[C]], %[[D]] : f32
// CHECK-NEXT:    %[[ALL:.*]] = arith.addf %[[AB]], %[[CD]] : f32
// CHECK-NEXT:    nvvm.shfl.sync  bfly %{{.*}}, %[[ALL]]
func.func @row_sum_tree(%s: memref<?x32xf32>, %l: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x32xf32> -> tensor<16x32xf32, #mma>
    %r = attn.reduce sum %t : tensor<16x32xf32, #mma> -> tensor<16xf32, #row>
    attn.store_tile %r, %l[%c0] rows %c16 : tensor<16xf32, #row>, memref<?xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// attn.iota alone keeps its per-element form: the base broadcast plus the
// layout's constant offsets (here the rows: 8·(e/2)).
// CHECK-LABEL: gpu.func @row_positions_kernel
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant dense<[0, 0, 8, 8, 0, 0, 8, 8]> : vector<8xi32>
// CHECK:         %[[QB:.*]] = vector.broadcast %{{.*}} : i32 to vector<8xi32>
// CHECK:         arith.addi %[[QB]], %[[ROWS]] : vector<8xi32>
func.func @row_positions(%s: memref<?x16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xi32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %qi = attn.iota %row dim 0 : tensor<16x16xi32, #mma>
    attn.store_tile %qi, %s[%row] rows %c16 : tensor<16x16xi32, #mma>, memref<?x16xi32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// attn.gather: the scalar index's part of the address once, then one
// 64-bit offset and load per element (its i32 index sign-extended times the
// stride); a clamped iota is a vector min against n − 1.
// CHECK-LABEL: gpu.func @gather_kernel
// CHECK:         arith.minsi %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
func.func @gather(%s: memref<?x16xf32>, %t: memref<?x?xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %x = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %kj = attn.iota %c0 dim 1 clamp(%n) : tensor<16x16xi32, #mma>
    %g = attn.gather %t[%h, %kj] : memref<?x?xf32>, index, tensor<16x16xi32, #mma> -> tensor<16x16xf32, #mma>
    %r = arith.addf %x, %g : tensor<16x16xf32, #mma>
    attn.store_tile %r, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// A key-major tile (the backward's Sᵀ: keys along the rows, queries along
// the columns). The transposed mask swaps the roles of the constant
// offsets: each element's key offset is its row (8·(e/2)), its query offset
// its column (8n + e%2), and the causal test compares key − query offsets
// against one scalar. A per-column vector (#attn.slice ..., dim = 1) holds
// the thread's columns 8n + 2q + w (4 of 16: one load each, past the end
// zero): where all 16 are in bounds, at constant distances from the first
// (entries 0, 1, 8, 9); otherwise each checked against the end of the
// rows (with a unit stride, by address). attn.broadcast {per_column} is the
// register permutation element i -> 2·(i/4 mod 2) + i%2.

#mma = #attn.mma<warps = 1>
#col = #attn.slice<#attn.mma<warps = 1>, dim = 1>

// CHECK-LABEL: gpu.func @key_major_kernel
// CHECK-DAG:     %[[DIFF:.*]] = arith.constant dense<[0, -1, 8, 7, -8, -9, 0, -1]> : vector<8xi32>
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant dense<[0, 0, 8, 8, 0, 0, 8, 8]> : vector<8xi32>
// CHECK:         arith.cmpi sle, %{{.*}}, %[[ROWS]] : vector<8xi32>
// CHECK:         arith.cmpi slt, %{{.*}}, %[[DIFF]] : vector<8xi32>
// CHECK:         %[[WHOLE:.*]] = arith.cmpi sge, %{{.*}}, %c16_i32 : i32
// CHECK:         %[[FIRST:.*]] = llvm.getelementptr
// CHECK:         scf.if %[[WHOLE]] -> (vector<4xf32>) {
// CHECK:           llvm.load %[[FIRST]] : !llvm.ptr<1> -> f32
// CHECK:           %[[P1:.*]] = llvm.getelementptr %[[FIRST]][1]
// CHECK:           llvm.load %[[P1]] : !llvm.ptr<1> -> f32
// CHECK:           %[[P8:.*]] = llvm.getelementptr %[[FIRST]][8]
// CHECK:           llvm.load %[[P8]] : !llvm.ptr<1> -> f32
// CHECK:           %[[P9:.*]] = llvm.getelementptr %[[FIRST]][9]
// CHECK:           llvm.load %[[P9]] : !llvm.ptr<1> -> f32
// CHECK:         } else {
// CHECK-COUNT-4:   llvm.icmp "ult" %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK:         }
// CHECK:         vector.shuffle %{{.*}} [0, 1, 0, 1, 2, 3, 2, 3] : vector<4xf32>, vector<4xf32>
// CHECK:         arith.subf %{{.*}} : vector<8xf32>
func.func @key_major(%s: memref<?x16xf32>, %l: memref<?xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%c0, %n) kv(%row, %n) {causal, transposed} : tensor<16x16xf32, #mma>
    %lse = attn.load_tile %l[%c0] rows %n : memref<?xf32> -> tensor<16xf32, #col>
    %lb = attn.broadcast %lse {per_column} : tensor<16xf32, #col> -> tensor<16x16xf32, #mma>
    %d = arith.subf %m, %lb : tensor<16x16xf32, #mma>
    attn.store_tile %d, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// attn.random (dropout's values): one Philox4x32-10 call (ten rounds of two
// 32x32 -> 64-bit products) per eight elements, the thread's four of each
// pair of n-tiles: a 16x32 tile is 2 calls a thread (40 products). Element
// e of the even n-tile takes word e << 16, of the odd one word e itself
// (n-tiles 2 and 3, from the second call, shown).
// CHECK-LABEL: gpu.func @dropout_bits_kernel
// CHECK-COUNT-40: arith.muli %{{.*}}, %{{c3528531795_i64|c3449720151_i64}} : i64
// CHECK-NOT:     arith.muli %{{.*}}, %{{c3528531795_i64|c3449720151_i64}} : i64
// CHECK:         %[[A0:.*]] = arith.shli %[[W0:.*]], %c16_i32 : i32
// CHECK-NEXT:    %[[A1:.*]] = arith.shli %[[W1:.*]], %c16_i32 : i32
// CHECK-NEXT:    %[[A2:.*]] = arith.shli %[[W2:.*]], %c16_i32 : i32
// CHECK-NEXT:    %[[A3:.*]] = arith.shli %[[W3:.*]], %c16_i32 : i32
// CHECK:         %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[W0]], %[[W1]], %[[W2]], %[[W3]] : vector<16xi32>
// CHECK:         arith.cmpi uge, %[[V]], %{{.*}} : vector<16xi32>
func.func @dropout_bits(%s: memref<?x32xf32>, %o: memref<?x32xf32>, %seed: i64, %bh: i32, %off: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x32xf32> -> tensor<16x32xf32, #mma>
    %u = attn.random key(%seed) counter(%bh, %off) q(%row) kv(%c0) : tensor<16x32xi32, #mma>
    %tt = arith.constant dense<1073741824> : tensor<16x32xi32, #mma>
    %keep = arith.cmpi uge, %u, %tt : tensor<16x32xi32, #mma>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #mma>
    %r = arith.select %keep, %t, %z : tensor<16x32xi1, #mma>, tensor<16x32xf32, #mma>
    attn.store_tile %r, %o[%row] rows %c16 : tensor<16x32xf32, #mma>, memref<?x32xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// A transposed attn.random (the backward's key-major tiles: rows are keys):
// a thread holds keys of one parity (its row g), the lane of the other
// parity (lane ^ 4) the same calls' other words. Each lane makes the call of
// its column cb = g & 1 (one per eight elements: two for a 16x32 tile, 40
// products), keeps the words 2·s + (g & 1) and swaps the others with its
// partner (shfl.bfly 4); element 2·hr + cb of n-tile 2·u + s is the word's
// upper half where hr (key row g + 8), else the word << 16.
// CHECK-LABEL: gpu.func @dropout_bits_transposed_kernel
// CHECK:         %[[GBIT:.*]] = arith.andi %{{.*}}, %c1_i32 : i32
// CHECK:         %[[ODD:.*]] = arith.cmpi ne, %[[GBIT]], %c0_i32 : i32
// CHECK-COUNT-20: arith.muli %{{.*}}, %{{c3528531795_i64|c3449720151_i64}} : i64
// (The canonicalizer folds "mine" into the columns' selects: column 0 is
// w0 where g is even, column 1 w1 where g is odd.)
// CHECK:         %[[THEIRS:.*]] = arith.select %[[ODD]], %[[W0:.*]], %[[W1:.*]] : i32
// CHECK-NEXT:    %[[OTHER:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[THEIRS]], %c4_i32, %c31_i32 : i32 -> i32
// CHECK-NEXT:    %[[COL0:.*]] = arith.select %[[ODD]], %[[OTHER]], %[[W0]] : i32
// CHECK-NEXT:    %[[COL1:.*]] = arith.select %[[ODD]], %[[W1]], %[[OTHER]] : i32
// CHECK-NEXT:    arith.shli %[[COL0]], %c16_i32 : i32
// CHECK-NEXT:    arith.shli %[[COL1]], %c16_i32 : i32
// CHECK-COUNT-20: arith.muli %{{.*}}, %{{c3528531795_i64|c3449720151_i64}} : i64
// CHECK-NOT:     arith.muli %{{.*}}, %{{c3528531795_i64|c3449720151_i64}} : i64
// CHECK-COUNT-2: nvvm.shfl.sync  bfly
// CHECK:         vector.from_elements {{.*}} : vector<16xi32>
func.func @dropout_bits_transposed(%s: memref<?x32xf32>, %o: memref<?x32xf32>, %seed: i64, %bh: i32, %off: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x32xf32> -> tensor<16x32xf32, #mma>
    %u = attn.random key(%seed) counter(%bh, %off) q(%c0) kv(%row) {transposed} : tensor<16x32xi32, #mma>
    %tt = arith.constant dense<1073741824> : tensor<16x32xi32, #mma>
    %keep = arith.cmpi uge, %u, %tt : tensor<16x32xi32, #mma>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #mma>
    %r = arith.select %keep, %t, %z : tensor<16x32xi1, #mma>, tensor<16x32xf32, #mma>
    attn.store_tile %r, %o[%row] rows %c16 : tensor<16x32xf32, #mma>, memref<?x32xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// Packed (position, head) rows (`group`): row r's position is (q_start +
// r) / G, one division per distinct row of the thread (rows g and g + 8 of
// a 16-row m-tile), each element compared with its row's bound: hidden iff
// col > pos_r + (kv_len − q_len) − kBase (causal).
// CHECK-LABEL: gpu.func @group_mask_kernel
// CHECK:         %[[G:.*]] = arith.index_cast %arg2 : index to i32
// CHECK:         %[[R0:.*]] = arith.divui %{{.*}}, %[[G]] : i32
// CHECK:         %[[R8:.*]] = arith.divui %{{.*}}, %[[G]] : i32
// CHECK:         %[[B:.*]] = vector.from_elements %[[A0:.*]], %[[A0]], %[[A8:.*]], %[[A8]], %[[A0]], %[[A0]], %[[A8]], %[[A8]] : vector<8xi32>
// CHECK:         arith.cmpi slt, %[[B]], %{{.*}} : vector<8xi32>
// CHECK:         arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
// With rows stored as (position, head) pairs: position k / G and head
// k mod G of each row, k = p + r.
// CHECK:         arith.remui %{{.*}}, %[[G2:.*]] : i32
func.func @group_mask(%s: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>,
                      %g: index, %nq: index, %nk: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0, %c0, %c0] rows %c16 : memref<?x?x?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%c0, %nq) kv(%c0, %nk) group(%g) {causal} : tensor<16x16xf32, #mma>
    attn.store_tile %m, %o[%c0, %c0, %c0] rows %c16 group(%g) : tensor<16x16xf32, #mma>, memref<?x?x?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>

// attn.polynomial_exp2 = 4: elements 3 and 7 of the thread's 8 on the FMA
// pipe, 2^x = p(f)·2^⌊x⌋ with x clamped at −127 by a NaN-keeping max,
// ⌊x⌋ from an add rounded down to 1.5·2^23 (0x4B400000), p of degree 3,
// 2^⌊x⌋ as the exponent field (bits(r) + 127) << 23; the others on ex2.
// CHECK-LABEL: gpu.func @poly_exp2_kernel
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         %[[X:.*]] = arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.add.rm.f"(%[[X]], %{{.*}}) : (f32, f32) -> f32
// CHECK:         %[[W:.*]] = arith.subf %[[R]], %{{.*}} : f32
// CHECK:         %[[F:.*]] = arith.subf %[[X]], %[[W]] : f32
// CHECK:         %[[P3:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[F]], %{{.*}}, %{{.*}})
// CHECK:         %[[P2:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[F]], %[[P3]], %{{.*}})
// CHECK:         %[[P:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[F]], %[[P2]], %{{.*}})
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[R]] : f32 to i32
// CHECK:         %[[BIASED:.*]] = arith.addi %[[BITS]], %c127_i32 : i32
// CHECK:         %[[FIELD:.*]] = arith.shli %[[BIASED]], %c23_i32 : i32
// CHECK:         %[[SCALE:.*]] = arith.bitcast %[[FIELD]] : i32 to f32
// CHECK:         arith.mulf %[[P]], %[[SCALE]] : f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         arith.maximumf
// CHECK-NOT:     llvm.nvvm.ex2.approx
// CHECK:         llvm.store
func.func @poly_exp2(%s: memref<?x16xf32>, %o: memref<?x16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nb = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nb) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %e = math.exp2 %t {attn.polynomial_exp2 = 4 : i64} : tensor<16x16xf32, #mma>
    attn.store_tile %e, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}
