// RUN: attn-opt %s -split-input-file -attn-tile-attention -canonicalize -cse | FileCheck %s

// A score_mod that only adds to the score, mod(s) = s − g with g not
// depending on s (non-causal ALiBi: slopes[h]·|j − i|), runs on the unscaled
// scores as S − (slope/scale)·|j − i|: the per-program factor becomes
// slope·(1/scale), computed once per program beside the slope's load, and
// the passes keep the run-time scale (no attn.softmax_scale tag: their
// exponent multiplies by it). No multiplication of S by the scale is left.
// CHECK-LABEL: func.func @alibi_dynamic
// CHECK-SAME:    %[[SCALE:[^:]+]]: f32) {
// CHECK:         scf.forall
// CHECK:           %[[INV:.*]] = arith.divf %{{.*}}, %[[SCALE]] : f32
// CHECK:           %[[SLOPE:.*]] = memref.load
// CHECK:           %[[U:.*]] = arith.mulf %[[SLOPE]], %[[INV]] : f32
// CHECK:           scf.for
// CHECK:             %[[S:.*]] = attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed}
// CHECK-NOT:         arith.mulf %[[S]]
// CHECK:             %[[ABS:.*]] = math.absf
// CHECK:             %[[US:.*]] = tensor.splat %[[U]]
// CHECK:             %[[G:.*]] = arith.mulf %[[US]], %[[ABS]] fastmath<contract>
// CHECK:             %[[T:.*]] = arith.subf %[[S]], %[[G]] fastmath<contract>
// CHECK:             attn.reduce max %[[T]]
// CHECK:           } {attn.softmax_pass = "max"}
func.func @alibi_dynamic(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                         %slopes: memref<?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o scale(%scale) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<?xf32>
    %d = arith.subi %j, %i : i32
    %df = arith.sitofp %d : i32 to f32
    %a = math.absf %df : f32
    %g = arith.mulf %slope, %a : f32
    %r = arith.subf %s, %g : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A gathered bias (T5's relative positions, table[h, clamp(j − i)]) added
// to the score: g·(1/scale) with the constant 1/scale (8 = 1/0.125), fused
// with the add, and the passes keep the constant scale.
// CHECK-LABEL: func.func @relative_bias
// CHECK-DAG:     %[[INV:.*]] = arith.constant dense<8.000000e+00> : tensor<64x128xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot
// CHECK:           %[[G:.*]] = attn.gather
// CHECK:           %[[GS:.*]] = arith.mulf %[[G]], %[[INV]] fastmath<contract>
// CHECK:           %[[T:.*]] = arith.addf %[[GS]], %[[S]] fastmath<contract>
// CHECK:           attn.reduce max %[[T]]
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.250000e-01 : f32}
func.func @relative_bias(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                         %table: memref<?x?xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -8 : i32
    %hi8 = arith.constant 8 : i32
    %c = arith.maxsi %d, %lo : i32
    %cc = arith.minsi %c, %hi8 : i32
    %off = arith.addi %cc, %hi8 : i32
    %di = arith.index_cast %off : i32 to index
    %g = memref.load %table[%hi, %di] : memref<?x?xf32>
    %r = arith.addf %g, %s : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// Not additive: the score is read twice (s + 0.5·s), so the body sees
// scale·S and the passes' scale is 1.
// CHECK-LABEL: func.func @score_twice
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<64x128xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot
// CHECK-NEXT:      arith.mulf %[[S]], %[[SCALE]]
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
func.func @score_twice(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                       %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %h = arith.constant 0.5 : f32
    %x = arith.mulf %s, %h : f32
    %r = arith.addf %s, %x : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// Not additive either: g − s (the score subtracted) keeps the scaled form.
// CHECK-LABEL: func.func @score_subtracted
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot
// CHECK-NEXT:      arith.mulf %[[S]]
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
func.func @score_subtracted(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                            %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 1.0 : f32
    %r = arith.subf %c, %s : f32
    attn.yield %r : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
