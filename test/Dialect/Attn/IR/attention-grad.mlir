// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file --mlir-print-op-generic | attn-opt -split-input-file | FileCheck %s

// attn.attention_grad round-trips: dynamic shapes with a run-time scale,
// static GQA shapes with Dv != D, and the key-major tile ops the backward's
// tiling writes (attn.mask {transposed}, attn.broadcast {per_column}).

// CHECK-LABEL: func.func @grad_dynamic
// CHECK: attn.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}}, %{{.*}}, %{{.*}} delta(%{{.*}}) scale(%{{.*}}) {causal} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?xf32>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?xf32>
func.func @grad_dynamic(%t: memref<?x?x?x128xbf16>, %r: memref<?x?x?xf32>,
                        %s: f32) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      scale(%s) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?xf32>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @grad_gqa
// CHECK: attn.attention_grad {{.*}} {block_kv = 32 : i64, block_q = 64 : i64, scale = 2.500000e-01 : f32} : memref<2x8x100x32xf16>, memref<2x8x100x64xf16>, memref<2x2x90x64xf16>, memref<2x2x90x32xf16>, memref<2x8x100x32xf16>, memref<2x8x100xf32>, memref<2x8x100x64xf16>, memref<2x2x90x64xf16>, memref<2x2x90x32xf16>, memref<2x8x100xf32>
func.func @grad_gqa(%do: memref<2x8x100x32xf16>, %q: memref<2x8x100x64xf16>,
                    %k: memref<2x2x90x64xf16>, %v: memref<2x2x90x32xf16>,
                    %o: memref<2x8x100x32xf16>, %lse: memref<2x8x100xf32>,
                    %dq: memref<2x8x100x64xf16>, %dk: memref<2x2x90x64xf16>,
                    %dv: memref<2x2x90x32xf16>, %delta: memref<2x8x100xf32>) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) {scale = 0.25 : f32, block_q = 64, block_kv = 32}
      : memref<2x8x100x32xf16>, memref<2x8x100x64xf16>,
        memref<2x2x90x64xf16>, memref<2x2x90x32xf16>,
        memref<2x8x100x32xf16>, memref<2x8x100xf32>,
        memref<2x8x100x64xf16>, memref<2x2x90x64xf16>,
        memref<2x2x90x32xf16>, memref<2x8x100xf32>
  return
}

// -----

// CHECK-LABEL: func.func @key_major_tiles
// CHECK: attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {causal, transposed} : tensor<128x64xf32>
// CHECK: attn.broadcast %{{.*}} {per_column} : tensor<64xf32> -> tensor<128x64xf32>
func.func @key_major_tiles(%s: tensor<128x64xf32>, %l: tensor<64xf32>,
                           %q0: index, %nq: index, %k0: index, %nk: index)
    -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal, transposed}
      : tensor<128x64xf32>
  %b = attn.broadcast %l {per_column} : tensor<64xf32> -> tensor<128x64xf32>
  return %m, %b : tensor<128x64xf32>, tensor<128x64xf32>
}

// -----

// The backward with an f32 dQ workspace (dQ summed with atomic adds where
// the tiling can).
// CHECK-LABEL: func.func @dq_workspace
// CHECK: attn.attention_grad %{{.*}} into %{{.*}}, %{{.*}}, %{{.*}} delta(%{{.*}}) dq_accum(%{{.*}} : memref<?x?x?x128xf32>) scale(%{{.*}})
func.func @dq_workspace(%do: memref<?x?x?x128xbf16>, %q: memref<?x?x?x128xbf16>,
                        %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>,
                        %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>,
                        %dq: memref<?x?x?x128xbf16>, %dk: memref<?x?x?x128xbf16>,
                        %dv: memref<?x?x?x128xbf16>, %delta: memref<?x?x?xf32>,
                        %ws: memref<?x?x?x128xf32>, %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dq_accum(%ws : memref<?x?x?x128xf32>) scale(%s)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?xf32>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @accumulate_and_transposed_lhs
// CHECK: attn.dot %{{.*}}, %{{.*}}, %{{.*}} {lhs_transposed} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK: attn.accumulate_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} {transposed} : tensor<128x64xf32>, memref<?x?x?x128xf32>
// CHECK: attn.accumulate_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xf32>
func.func @accumulate_and_transposed_lhs(%k: tensor<128x128xbf16>,
                                         %ds: tensor<128x64xbf16>,
                                         %z: tensor<128x64xf32>,
                                         %t: tensor<64x128xf32>,
                                         %ws: memref<?x?x?x128xf32>,
                                         %i: index, %n: index) {
  %dqt = attn.dot %k, %ds, %z {lhs_transposed}
      : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
  attn.accumulate_tile %dqt, %ws[%i, %i, %i] rows %n {transposed}
      : tensor<128x64xf32>, memref<?x?x?x128xf32>
  attn.accumulate_tile %t, %ws[%i, %i, %i] rows %n
      : tensor<64x128xf32>, memref<?x?x?x128xf32>
  return
}

// -----

// Dropout: the forward's rate, Philox key and offset (the same mask), and
// the transposed attn.random of the key-major tiles.

// CHECK-LABEL: func.func @grad_dropout
// CHECK: attn.attention_grad {{.*}} delta(%{{.*}}) dropout(%{{.*}}, %{{.*}}, %{{.*}}) {causal}
// CHECK: attn.random key(%{{.*}}) counter(%{{.*}}, %{{.*}}) q(%{{.*}}) kv(%{{.*}}) {transposed} : tensor<64x32xi32>
func.func @grad_dropout(%t: memref<?x?x?x64xf32>, %r: memref<?x?x?xf32>,
                        %p: f32, %seed: i64, %off: i32, %stream: i32,
                        %i: index) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      dropout(%p, %seed, %off) {causal}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?xf32>
  %u = attn.random key(%seed) counter(%stream, %off) q(%i) kv(%i) {transposed}
      : tensor<64x32xi32>
  return
}

// -----

// The forward's score variants on the backward: a window, a soft-cap,
// ALiBi's slopes, and score_mod / mask_mod regions (the same rules as
// attn.attention's).
// CHECK-LABEL: func.func @grad_variants
// CHECK: attn.attention_grad {{.*}} delta(%{{.*}}) {causal, softcap = 5.000000e+01 : f32, window_left = 256 : i64}
// CHECK: attn.attention_grad {{.*}} delta(%{{.*}}) alibi(%{{.*}} : memref<8xf32>) {window_left = 16 : i64, window_right = 4 : i64}
// CHECK: attn.attention_grad {{.*}} delta(%{{.*}}) score_mod {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK:   math.tanh
// CHECK:   attn.yield %{{.*}} : f32
// CHECK: } mask_mod {
// CHECK:   arith.cmpi sle
// CHECK:   attn.yield %{{.*}} : i1
// CHECK: } {causal}
func.func @grad_variants(%t: memref<2x8x64x32xbf16>, %r: memref<2x8x64xf32>,
                         %slopes: memref<8xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {causal, softcap = 50.0 : f32, window_left = 256}
      : memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64xf32>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>, memref<2x8x64xf32>
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      alibi(%slopes : memref<8xf32>) {window_left = 16, window_right = 4}
      : memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64xf32>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>, memref<2x8x64xf32>
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      score_mod {
      ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
        %c = arith.constant 0.125 : f32
        %x = arith.mulf %s, %c : f32
        %y = math.tanh %x : f32
        %z = arith.mulf %y, %s : f32
        attn.yield %z : f32
      } mask_mod {
      ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
        %d = arith.subi %i, %j : i32
        %c = arith.constant 32 : i32
        %k = arith.cmpi sle, %d, %c : i32
        attn.yield %k : i1
      } {causal}
      : memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64xf32>, memref<2x8x64x32xbf16>,
        memref<2x8x64x32xbf16>, memref<2x8x64x32xbf16>, memref<2x8x64xf32>
  return
}
