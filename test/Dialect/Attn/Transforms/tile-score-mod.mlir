// RUN: attn-opt %s -split-input-file -attn-tile-attention -canonicalize -cse | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse | FileCheck %s --check-prefix=FUSED

// A score_mod (soft-cap c = 30) on the CPU target: in every pass, each score
// tile S = Q·Kᵀ is scaled first (0.125 = 1/sqrt(64)), then the body runs on
// the whole tile (scalar ops become tile ops, constants splat tiles), then
// the causal mask (a masked key stays -inf); the passes' softmax scale is 1.
// CHECK-LABEL: func.func @softcap
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<64x128xf32>
// CHECK-DAG:     %[[CAP:.*]] = arith.constant dense<3.000000e+01> : tensor<64x128xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed}
// CHECK-NEXT:      %[[X:.*]] = arith.mulf %[[S]], %[[SCALE]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.divf %[[X]], %[[CAP]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[D]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[T]], %[[CAP]] : tensor<64x128xf32>
// CHECK-NEXT:      attn.reduce max %[[Y]]
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
// CHECK:         scf.for
// CHECK:           %[[S2:.*]] = attn.dot
// CHECK-NEXT:      %[[X2:.*]] = arith.mulf %[[S2]], %[[SCALE]]
// CHECK-NEXT:      %[[D2:.*]] = arith.divf %[[X2]], %[[CAP]]
// CHECK-NEXT:      %[[T2:.*]] = math.tanh %[[D2]]
// CHECK-NEXT:      %[[Y2:.*]] = arith.mulf %[[T2]], %[[CAP]]
// CHECK-NEXT:      attn.mask %[[Y2]] q(%{{.*}}) kv(%{{.*}}) {causal}
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
// The three passes fuse into one online-softmax loop per segment, the
// modifier once per block.
// FUSED-LABEL: func.func @softcap
// FUSED:         scf.for
// FUSED:           attn.dot
// FUSED-NEXT:      arith.mulf
// FUSED-NEXT:      arith.divf
// FUSED-NEXT:      math.tanh
// FUSED-NEXT:      arith.mulf
// FUSED-NOT:       math.tanh
// FUSED:         } {attn.online_softmax, attn.softmax_scale = 1.000000e+00 : f32}
func.func @softcap(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                   %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 30.0 : f32
    %x = arith.divf %s, %c : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } {causal, target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A run-time scale multiplies S as a splat of the scale operand, and the
// modifier's ops keep their attributes (fastmath here).
// CHECK-LABEL: func.func @dynamic_scale
// CHECK:         %[[S:.*]] = attn.dot
// CHECK-NEXT:    %[[SPLAT:.*]] = tensor.splat %{{.*}} : tensor<64x128xf32>
// CHECK-NEXT:    %[[X:.*]] = arith.mulf %[[S]], %[[SPLAT]]
// CHECK-NEXT:    arith.maximumf %[[X]], %{{.*}} fastmath<nnan> : tensor<64x128xf32>
// CHECK:         attn.softmax_scale = 1.000000e+00 : f32
func.func @dynamic_scale(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                         %scale: f32) {
  attn.attention %q, %k, %v into %o scale(%scale) score_mod {
  ^bb0(%s: f32):
    %lo = arith.constant -5.0 : f32
    %y = arith.maximumf %s, %lo fastmath<nnan> : f32
    attn.yield %y : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// The positions and a captured table (ALiBi, S + slopes[h]·(j − i)): the
// per-program part of the body (h as i32 and back to an index, which fold
// away, and the slope's load) is emitted once, before the key/value loops.
// The bias is affine in the positions (attn::tiling::PositionBias), so it is
// split at the program's first query row q0: j − i = (j − q0) − (i − q0);
// each block adds the columns' part slope·float(j − q0), a 1-d tile of the
// block's keys broadcast along the rows, to scale·S (one FMA a score), and
// the rows' part −slope·float(i − q0) never enters the scores (the softmax
// ignores a per-row shift; without an LSE output it is not needed at all).
// Fused, the body runs once per block.
// CHECK-LABEL: func.func @alibi
// CHECK-SAME:    %[[SLOPES:[^:]+]]: memref<?xf32>
// CHECK:         scf.forall (%{{.*}}, %[[H:.*]], %{{.*}}) in
// CHECK:           %[[SLOPE:.*]] = memref.load %[[SLOPES]][%[[H]]] : memref<?xf32>
// CHECK:           scf.for %[[KB:[^ ]+]] =
// CHECK:             %[[KV0:.*]] = arith.muli %[[KB]], %c128
// CHECK:             %[[S:.*]] = attn.dot
// CHECK-NEXT:        %[[X:.*]] = arith.mulf %[[S]], %{{.*}} fastmath<contract> : tensor<64x128xf32>
// CHECK-NEXT:        %[[Q0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:        %[[NQ0:.*]] = arith.muli %[[Q0]], %c-1_i32 : i32
// CHECK-NEXT:        %[[OFF:.*]] = tensor.splat %[[NQ0]] : tensor<128xi32>
// CHECK-NEXT:        %[[J:.*]] = attn.iota %[[KV0]] dim 0 : tensor<128xi32>
// CHECK-NEXT:        %[[D:.*]] = arith.addi %[[J]], %[[OFF]] : tensor<128xi32>
// CHECK-NEXT:        %[[DF:.*]] = arith.sitofp %[[D]] : tensor<128xi32> to tensor<128xf32>
// CHECK-NEXT:        %[[SP:.*]] = tensor.splat %[[SLOPE]] : tensor<128xf32>
// CHECK-NEXT:        %[[COL:.*]] = arith.mulf %[[SP]], %[[DF]] fastmath<reassoc,contract> : tensor<128xf32>
// CHECK-NEXT:        %[[B:.*]] = attn.broadcast %[[COL]] {per_column} : tensor<128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[X]], %[[B]] fastmath<contract> : tensor<64x128xf32>
// CHECK-NEXT:        attn.reduce max %[[R]]
// CHECK-NOT:     attn.iota %{{.*}} : tensor<64x128xi32>
// FUSED-LABEL: func.func @alibi
// FUSED:         memref.load
// FUSED-NOT:     memref.load
// FUSED:         scf.for
// FUSED:           attn.iota %{{.*}} dim 0 : tensor<128xi32>
// FUSED-NOT:       attn.iota
// FUSED:         } {attn.online_softmax, attn.softmax_scale = 1.000000e+00 : f32}
func.func @alibi(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                 %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                 %slopes: memref<?xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<?xf32>
    %d = arith.subi %j, %i : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A body of per-program values only (the batch index as a float bias) is a
// per-row shift r of every score: it stays out of the score tiles, and the
// LSE takes it (LSE = scale·m + log l + float(b)); no iota. O is scaled by
// (r == −inf) ? 0 : r − r + 1, so that a non-finite r (which the scores
// would have carried) still empties the row (−inf) or makes it NaN.
// CHECK-LABEL: func.func @batch_bias
// CHECK:         %[[B32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:    %[[BF:.*]] = arith.sitofp %[[B32]] : i32 to f32
// CHECK-NOT:     attn.iota
// CHECK:         scf.for
// CHECK-NOT:       tensor.splat %[[BF]]
// CHECK:         } {attn.softmax_pass = "pv"
// CHECK:         %[[SHIFT:.*]] = tensor.splat %[[BF]] : tensor<64xf32>
// CHECK-NEXT:    %[[NEGINF:.*]] = arith.cmpf oeq, %[[SHIFT]], %{{.*}} : tensor<64xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.subf %[[SHIFT]], %[[SHIFT]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.addf %[[ZERO]], %{{.*}} : tensor<64xf32>
// CHECK-NEXT:    %[[F:.*]] = arith.select %[[NEGINF]], %{{.*}}, %[[ONE]]
// CHECK-NEXT:    %[[FB:.*]] = attn.broadcast %[[F]] : tensor<64xf32> -> tensor<64x64xf32>
// CHECK-NEXT:    %[[O:.*]] = arith.mulf %{{.*}}, %[[FB]] : tensor<64x64xf32>
// CHECK-NEXT:    attn.store_tile %[[O]], %arg3
// CHECK-NEXT:    %[[LOG:.*]] = math.log
// CHECK-NEXT:    %[[LSE:.*]] = arith.addf %{{.*}}, %[[LOG]] : tensor<64xf32>
// CHECK-NEXT:    arith.addf %[[LSE]], %[[SHIFT]] : tensor<64xf32>
func.func @batch_bias(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                      %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                      %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %bf = arith.sitofp %b : i32 to f32
    %r = arith.addf %s, %bf : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// The built-in soft-cap: scale·S, then C·tanh(S·(1/C)) with tanh under afn
// (the GPU's tanh.approx), the softmax at scale 1; the grid carries the cap
// for the kernel's description.
// CHECK-LABEL: func.func @builtin_softcap
// CHECK-DAG:     %[[INV:.*]] = arith.constant dense<2.000000e-02> : tensor<64x128xf32>
// CHECK-DAG:     %[[CAP:.*]] = arith.constant dense<5.000000e+01> : tensor<64x128xf32>
// CHECK:         scf.forall
// CHECK:           %[[S:.*]] = attn.dot
// CHECK-NEXT:      %[[X:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<64x128xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[X]], %[[INV]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[D]] fastmath<afn> : tensor<64x128xf32>
// CHECK-NEXT:      arith.mulf %[[T]], %[[CAP]] : tensor<64x128xf32>
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.softcap = 5.000000e+01 : f32
func.func @builtin_softcap(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                           %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o {softcap = 50.0 : f32, target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// ALiBi under a causal mask as attn-expand-alibi writes it (Nq = 100, Nk =
// 160: the diagonal at j = i + 60), slope·(j − i − 60) split at q0: the columns' part
// slope·float(j − q0 − 60) in each block, the rows' part
// −slope·float(i − q0) (a 1-d iota from 0: the program's own rows) added
// to the LSE before a row that sees no key takes -inf.
// CHECK-LABEL: func.func @alibi_causal_lse
// CHECK:         %[[SLOPE:.*]] = memref.load %arg5
// CHECK:         scf.for
// CHECK:           %[[NQ0:.*]] = arith.subi %c-60_i32, %{{.*}} : i32
// CHECK-NEXT:      %[[OFF:.*]] = tensor.splat %[[NQ0]] : tensor<128xi32>
// CHECK-NEXT:      %[[J:.*]] = attn.iota %{{.*}} dim 0 : tensor<128xi32>
// CHECK-NEXT:      arith.addi %[[J]], %[[OFF]] : tensor<128xi32>
// CHECK:         } {attn.softmax_pass = "pv"
// CHECK:         %[[I:.*]] = attn.iota %c0 dim 0 : tensor<64xi32>
// CHECK-NEXT:    %[[NEG:.*]] = arith.subi %{{.*}}, %[[I]] : tensor<64xi32>
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[NEG]] : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT:    %[[SP:.*]] = tensor.splat %[[SLOPE]] : tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[SP]], %[[F]] fastmath<reassoc,contract> : tensor<64xf32>
// CHECK:         attn.store_tile %{{.*}}, %arg3
// CHECK-NEXT:    %[[LOG:.*]] = math.log
// CHECK-NEXT:    %[[LSE:.*]] = arith.addf %{{.*}}, %[[LOG]] : tensor<64xf32>
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[LSE]], %[[R]] : tensor<64xf32>
// CHECK-NEXT:    %[[OUT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SUM]]
// CHECK-NEXT:    attn.store_tile %[[OUT]], %arg4
func.func @alibi_causal_lse(%q: memref<2x4x100x64xf32>, %k: memref<2x2x160x64xf32>,
                            %v: memref<2x2x160x64xf32>, %o: memref<2x4x100x64xf32>,
                            %lse: memref<2x4x100xf32>, %slopes: memref<4xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<2x4x100xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %off = arith.constant 60 : i32
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<4xf32>
    %ji = arith.subi %j, %i : i32
    %d = arith.subi %ji, %off : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df fastmath<contract> : f32
    %r = arith.addf %s, %bias fastmath<contract> : f32
    attn.yield %r : f32
  } {causal, target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<2x4x100x64xf32>, memref<2x2x160x64xf32>,
        memref<2x2x160x64xf32>, memref<2x4x100x64xf32>
  return
}

// -----

// A bias that is not affine in the positions (a product of two: i·j) stays
// on the score tiles, element by element.
// CHECK-LABEL: func.func @not_affine
// CHECK:         scf.for
// CHECK:           %[[I:.*]] = attn.iota %{{.*}} dim 0 : tensor<64x128xi32>
// CHECK-NEXT:      %[[J:.*]] = attn.iota %{{.*}} dim 1 : tensor<64x128xi32>
// CHECK-NEXT:      arith.muli %[[I]], %[[J]] : tensor<64x128xi32>
// CHECK-NOT:       attn.broadcast %{{.*}} {per_column}
func.func @not_affine(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                      %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %p = arith.muli %i, %j : i32
    %pf = arith.sitofp %p : i32 to f32
    %r = arith.addf %s, %pf : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
