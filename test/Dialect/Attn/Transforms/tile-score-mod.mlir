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
// away, and the slope's load) is emitted once, before the key/value loops; in each pass the positions are
// attn.iota tiles of the block's first query row and first key, and the
// slope a splat of the loaded scalar. Fused, the body runs once per block.
// CHECK-LABEL: func.func @alibi
// CHECK-SAME:    %[[SLOPES:[^:]+]]: memref<?xf32>
// CHECK:         scf.forall (%{{.*}}, %[[H:.*]], %{{.*}}) in
// CHECK:           %[[SLOPE:.*]] = memref.load %[[SLOPES]][%[[H]]] : memref<?xf32>
// CHECK:           scf.for
// CHECK:             %[[S:.*]] = attn.dot
// CHECK-NEXT:        %[[X:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<64x128xf32>
// CHECK-NEXT:        %[[I:.*]] = attn.iota %{{.*}} dim 0 : tensor<64x128xi32>
// CHECK-NEXT:        %[[J:.*]] = attn.iota %{{.*}} dim 1 : tensor<64x128xi32>
// CHECK-NEXT:        %[[D:.*]] = arith.subi %[[J]], %[[I]] : tensor<64x128xi32>
// CHECK-NEXT:        %[[DF:.*]] = arith.sitofp %[[D]] : tensor<64x128xi32> to tensor<64x128xf32>
// CHECK-NEXT:        %[[SP:.*]] = tensor.splat %[[SLOPE]] : tensor<64x128xf32>
// CHECK-NEXT:        %[[B:.*]] = arith.mulf %[[SP]], %[[DF]] : tensor<64x128xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[X]], %[[B]] : tensor<64x128xf32>
// CHECK-NEXT:        attn.reduce max %[[R]]
// FUSED-LABEL: func.func @alibi
// FUSED:         memref.load
// FUSED-NOT:     memref.load
// FUSED:         scf.for
// FUSED:           attn.iota %{{.*}} dim 0
// FUSED:           attn.iota %{{.*}} dim 1
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

// An unused position makes no iota; a body of per-program values only (the
// batch index as a float bias) is computed once and splat.
// CHECK-LABEL: func.func @batch_bias
// CHECK:         %[[B32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:    %[[BF:.*]] = arith.sitofp %[[B32]] : i32 to f32
// CHECK:         scf.for
// CHECK-NOT:       attn.iota
// CHECK:           tensor.splat %[[BF]] : tensor<64x128xf32>
func.func @batch_bias(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                      %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
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
