// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file --mlir-print-op-generic | attn-opt -split-input-file | FileCheck %s

// Round trips of every attn op and attribute, in the custom and in the
// generic form.

//===----------------------------------------------------------------------===//
// attn.attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention_f32_static
// CHECK-SAME: (%[[Q:[^:]+]]: memref<2x8x128x64xf32>, %[[K:[^:]+]]: memref<2x8x128x64xf32>, %[[V:[^:]+]]: memref<2x8x128x64xf32>, %[[O:[^:]+]]: memref<2x8x128x64xf32>)
// CHECK-NEXT: attn.attention %[[Q]], %[[K]], %[[V]] into %[[O]] :
// CHECK-SAME: memref<2x8x128x64xf32>, memref<2x8x128x64xf32>, memref<2x8x128x64xf32>, memref<2x8x128x64xf32>
// CHECK-NEXT: return
func.func @attention_f32_static(%q: memref<2x8x128x64xf32>,
                                %k: memref<2x8x128x64xf32>,
                                %v: memref<2x8x128x64xf32>,
                                %o: memref<2x8x128x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<2x8x128x64xf32>, memref<2x8x128x64xf32>,
        memref<2x8x128x64xf32>, memref<2x8x128x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @attention_f16_lse
// CHECK-SAME: %[[O:[^:]+]]: memref<1x4x256x128xf16>, %[[L:[^:]+]]: memref<1x4x256xf32>
// CHECK-NEXT: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %[[O]] lse(%[[L]] : memref<1x4x256xf32>) :
// CHECK-SAME: memref<1x4x256x128xf16>, memref<1x4x256x128xf16>, memref<1x4x256x128xf16>, memref<1x4x256x128xf16>
func.func @attention_f16_lse(%q: memref<1x4x256x128xf16>,
                             %k: memref<1x4x256x128xf16>,
                             %v: memref<1x4x256x128xf16>,
                             %o: memref<1x4x256x128xf16>,
                             %l: memref<1x4x256xf32>) {
  attn.attention %q, %k, %v into %o lse(%l : memref<1x4x256xf32>)
      : memref<1x4x256x128xf16>, memref<1x4x256x128xf16>,
        memref<1x4x256x128xf16>, memref<1x4x256x128xf16>
  return
}

// -----

// Dynamic batch, heads and sequence lengths, and every attribute at once.
// CHECK-LABEL: func.func @attention_bf16_dynamic_all_attrs
// CHECK-NEXT: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>)
// CHECK-SAME: {block_kv = 32 : i64, block_q = 128 : i64, causal, scale = 1.250000e-01 : f32,
// CHECK-SAME: target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
// CHECK-SAME: : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
func.func @attention_bf16_dynamic_all_attrs(%q: memref<?x?x?x64xbf16>,
                                            %k: memref<?x?x?x64xbf16>,
                                            %v: memref<?x?x?x64xbf16>,
                                            %o: memref<?x?x?x64xbf16>,
                                            %l: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%l : memref<?x?x?xf32>)
      {causal, scale = 0.125 : f32, block_q = 128, block_kv = 32,
       target = #attn.target<arch = "sm_90a", smem_per_block = 232448,
                             num_sms = 132>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A sliding window (Mistral's 4096 keys back, causal), a symmetric one and a
// one-sided right bound.
// CHECK-LABEL: func.func @attention_window
// CHECK-NEXT: attn.attention {{.*}} {causal, window_left = 4096 : i64} :
// CHECK-NEXT: attn.attention {{.*}} {window_left = 128 : i64, window_right = 128 : i64} :
// CHECK-NEXT: attn.attention {{.*}} {window_right = 0 : i64} :
func.func @attention_window(%q: memref<?x?x?x64xbf16>) {
  attn.attention %q, %q, %q into %q {causal, window_left = 4096}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  attn.attention %q, %q, %q into %q {window_left = 128, window_right = 128}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  attn.attention %q, %q, %q into %q {window_right = 0}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A run-time scale: scale(%s) after the optional lse(...), with and without
// the LSE.
// CHECK-LABEL: func.func @attention_dynamic_scale
// CHECK-SAME: %[[L:[^:]+]]: memref<?x?x?xf32>, %[[S:[^:]+]]: f32)
// CHECK-NEXT: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%[[L]] : memref<?x?x?xf32>) scale(%[[S]]) {causal} :
// CHECK-SAME: memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
// CHECK-NEXT: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} scale(%[[S]]) :
// CHECK-NEXT: return
func.func @attention_dynamic_scale(%q: memref<?x?x?x64xbf16>,
                                   %k: memref<?x?x?x64xbf16>,
                                   %v: memref<?x?x?x64xbf16>,
                                   %o: memref<?x?x?x64xbf16>,
                                   %l: memref<?x?x?xf32>, %s: f32) {
  attn.attention %q, %k, %v into %o lse(%l : memref<?x?x?xf32>) scale(%s)
      {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  attn.attention %q, %k, %v into %o scale(%s)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Each optional attribute on its own; the unset ones are not printed.
// CHECK-LABEL: func.func @attention_single_attrs
// CHECK: attn.attention {{.*}} {causal} :
// CHECK: attn.attention {{.*}} {scale = 5.000000e-01 : f32} :
// CHECK: attn.attention {{.*}} {block_q = 1 : i64} :
// CHECK: attn.attention {{.*}} {block_kv = 1024 : i64} :
// CHECK: attn.attention {{.*}} {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>} :
func.func @attention_single_attrs(%q: memref<1x1x16x16xf32>,
                                  %o: memref<1x1x16x16xf32>) {
  attn.attention %q, %q, %q into %o {causal}
      : memref<1x1x16x16xf32>, memref<1x1x16x16xf32>,
        memref<1x1x16x16xf32>, memref<1x1x16x16xf32>
  attn.attention %q, %q, %q into %o {scale = 0.5 : f32}
      : memref<1x1x16x16xf32>, memref<1x1x16x16xf32>,
        memref<1x1x16x16xf32>, memref<1x1x16x16xf32>
  attn.attention %q, %q, %q into %o {block_q = 1}
      : memref<1x1x16x16xf32>, memref<1x1x16x16xf32>,
        memref<1x1x16x16xf32>, memref<1x1x16x16xf32>
  attn.attention %q, %q, %q into %o {block_kv = 1024 : i64}
      : memref<1x1x16x16xf32>, memref<1x1x16x16xf32>,
        memref<1x1x16x16xf32>, memref<1x1x16x16xf32>
  attn.attention %q, %q, %q into %o
      {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<1x1x16x16xf32>, memref<1x1x16x16xf32>,
        memref<1x1x16x16xf32>, memref<1x1x16x16xf32>
  return
}

// -----

// GQA: 8 query heads share 2 key/value heads.
// CHECK-LABEL: func.func @attention_gqa
// CHECK-NEXT: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<2x8x512xf32>) {causal} :
// CHECK-SAME: memref<2x8x512x128xbf16>, memref<2x2x512x128xbf16>, memref<2x2x512x128xbf16>, memref<2x8x512x128xbf16>
func.func @attention_gqa(%q: memref<2x8x512x128xbf16>,
                         %k: memref<2x2x512x128xbf16>,
                         %v: memref<2x2x512x128xbf16>,
                         %o: memref<2x8x512x128xbf16>,
                         %l: memref<2x8x512xf32>) {
  attn.attention %q, %k, %v into %o lse(%l : memref<2x8x512xf32>) {causal}
      : memref<2x8x512x128xbf16>, memref<2x2x512x128xbf16>,
        memref<2x2x512x128xbf16>, memref<2x8x512x128xbf16>
  return
}

// -----

// MQA: one key/value head; query heads dynamic.
// CHECK-LABEL: func.func @attention_mqa
// CHECK-NEXT: attn.attention
// CHECK-SAME: memref<4x?x?x64xf16>, memref<4x1x?x64xf16>, memref<4x1x?x64xf16>, memref<4x?x?x64xf16>
func.func @attention_mqa(%q: memref<4x?x?x64xf16>, %k: memref<4x1x?x64xf16>,
                         %v: memref<4x1x?x64xf16>, %o: memref<4x?x?x64xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<4x?x?x64xf16>, memref<4x1x?x64xf16>,
        memref<4x1x?x64xf16>, memref<4x?x?x64xf16>
  return
}

// -----

// Nq != Nk (here Nq > Nk, bottom-right causal) and D != Dv.
// CHECK-LABEL: func.func @attention_cross
// CHECK-NEXT: attn.attention {{.*}} lse(%{{.*}} : memref<1x2x300xf32>) {causal, scale = 2.000000e+00 : f32} :
// CHECK-SAME: memref<1x2x300x128xf32>, memref<1x2x77x128xf32>, memref<1x2x77x64xf32>, memref<1x2x300x64xf32>
func.func @attention_cross(%q: memref<1x2x300x128xf32>,
                           %k: memref<1x2x77x128xf32>,
                           %v: memref<1x2x77x64xf32>,
                           %o: memref<1x2x300x64xf32>,
                           %l: memref<1x2x300xf32>) {
  attn.attention %q, %k, %v into %o lse(%l : memref<1x2x300xf32>)
      {causal, scale = 2.0 : f32}
      : memref<1x2x300x128xf32>, memref<1x2x77x128xf32>,
        memref<1x2x77x64xf32>, memref<1x2x300x64xf32>
  return
}

// -----

// Static and dynamic dims mixed across operands; strided layouts (e.g. views
// of a packed QKV buffer) and a memory space are accepted.
// CHECK-LABEL: func.func @attention_mixed_strided
// CHECK-NEXT: attn.attention {{.*}} lse(%{{.*}} : memref<?x4x?xf32, strided<[?, ?, 1]>>) :
// CHECK-SAME: memref<2x?x100x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
// CHECK-SAME: memref<?x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
// CHECK-SAME: memref<2x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
// CHECK-SAME: memref<?x?x100x32xf16, 1>
func.func @attention_mixed_strided(
    %q: memref<2x?x100x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<2x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x100x32xf16, 1>,
    %l: memref<?x4x?xf32, strided<[?, ?, 1]>>) {
  attn.attention %q, %k, %v into %o lse(%l : memref<?x4x?xf32, strided<[?, ?, 1]>>)
      : memref<2x?x100x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
        memref<?x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
        memref<2x4x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
        memref<?x?x100x32xf16, 1>
  return
}

//===----------------------------------------------------------------------===//
// attn.load_tile / attn.store_tile
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @load_tile
// CHECK-SAME: %[[B:[^:]+]]: index, %[[H:[^:]+]]: index, %[[R:[^:]+]]: index, %[[N:[^:]+]]: index
// CHECK-NEXT: attn.load_tile %{{.*}}[%[[B]], %[[H]], %[[R]]] rows %[[N]] : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: attn.load_tile %{{.*}}[%[[B]], %[[H]], %[[R]]] rows %[[N]] : memref<2x8x1024x64xf16> -> tensor<128x64xf16>
// CHECK-NEXT: attn.load_tile %{{.*}}[%[[R]]] rows %[[N]] : memref<?x32xf32> -> tensor<16x32xf32>
func.func @load_tile(%kb: memref<?x?x?x128xbf16>, %kh: memref<2x8x1024x64xf16>,
                     %ks: memref<?x32xf32>, %b: index, %h: index, %r: index,
                     %n: index) {
  %0 = attn.load_tile %kb[%b, %h, %r] rows %n
      : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
  %1 = attn.load_tile %kh[%b, %h, %r] rows %n
      : memref<2x8x1024x64xf16> -> tensor<128x64xf16>
  %2 = attn.load_tile %ks[%r] rows %n : memref<?x32xf32> -> tensor<16x32xf32>
  return
}

// -----

// A block gathered from a paged cache: [b, h, pos] through the block table.
// CHECK-LABEL: func.func @load_tile_pages
// CHECK-NEXT: attn.load_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} pages(%{{.*}} : memref<?x?xi32>) : memref<?x8x16x128xbf16> -> tensor<64x128xbf16>
func.func @load_tile_pages(%k: memref<?x8x16x128xbf16>, %t: memref<?x?xi32>,
                           %b: index, %h: index, %pos: index, %n: index) {
  %0 = attn.load_tile %k[%b, %h, %pos] rows %n pages(%t : memref<?x?xi32>)
      : memref<?x8x16x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

// Packed (position, head) rows of a GQA group: Q's rows loaded and O's and
// the LSE's stored with group(G), the mask's positions (q_start + i) / G.
// CHECK-LABEL: func.func @grouped_rows
// CHECK-NEXT: %[[Q:.+]] = attn.load_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} group(%{{.*}}) : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) group(%{{.*}}) {causal} : tensor<64x64xf32>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} group(%{{.*}}) : tensor<64x128xf32>, memref<?x?x?x128xbf16>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} group(%{{.*}}) : tensor<64xf32>, memref<?x?x?xf32>
func.func @grouped_rows(%q: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>,
                        %s: tensor<64x64xf32>, %o: tensor<64x128xf32>,
                        %l: tensor<64xf32>, %b: index, %h: index, %p: index,
                        %n: index, %g: index) {
  %0 = attn.load_tile %q[%b, %h, %p] rows %n group(%g)
      : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
  %1 = attn.mask %s q(%p, %n) kv(%p, %n) group(%g) {causal} : tensor<64x64xf32>
  attn.store_tile %o, %q[%b, %h, %p] rows %n group(%g)
      : tensor<64x128xf32>, memref<?x?x?x128xbf16>
  attn.store_tile %l, %lse[%b, %h, %p] rows %n group(%g)
      : tensor<64xf32>, memref<?x?x?xf32>
  return
}

// -----

// GQA packing of a decode step's few query rows (a GPU schedule).
// CHECK-LABEL: func.func @attention_pack_query_heads
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} kv_lens(%{{.*}} : memref<?xi32>) {causal, pack_query_heads} :
func.func @attention_pack_query_heads(%q: memref<?x32x4x128xbf16>,
                                      %k: memref<?x8x?x128xbf16>,
                                      %lens: memref<?xi32>) {
  attn.attention %q, %k, %k into %q kv_lens(%lens : memref<?xi32>)
      {causal, pack_query_heads}
      : memref<?x32x4x128xbf16>, memref<?x8x?x128xbf16>,
        memref<?x8x?x128xbf16>, memref<?x32x4x128xbf16>
  return
}

// -----

// A rank-1 tile (a block of LSE values): the last index is the row.
// CHECK-LABEL: func.func @load_tile_rank1
// CHECK-NEXT: attn.load_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : memref<?x?x?xf32> -> tensor<64xf32>
// CHECK-NEXT: attn.load_tile %{{.*}}[%{{.*}}] rows %{{.*}} : memref<100xf32> -> tensor<128xf32>
func.func @load_tile_rank1(%lse: memref<?x?x?xf32>, %vec: memref<100xf32>,
                           %i: index, %n: index) {
  %0 = attn.load_tile %lse[%i, %i, %i] rows %n
      : memref<?x?x?xf32> -> tensor<64xf32>
  %1 = attn.load_tile %vec[%i] rows %n : memref<100xf32> -> tensor<128xf32>
  return
}

// -----

// A column window (a bias tile): one index per source dim, the last the
// first column; `cols` valid columns.
// CHECK-LABEL: func.func @load_tile_window
// CHECK-NEXT: attn.load_tile %arg0[%arg1, %arg1, %arg2, %arg3] rows %arg2 cols %arg3 : memref<?x?x?x?xf32> -> tensor<64x32xf32>
func.func @load_tile_window(%bias: memref<?x?x?x?xf32>, %b: index, %r: index, %c: index)
    -> tensor<64x32xf32> {
  %t = attn.load_tile %bias[%b, %b, %r, %c] rows %r cols %c
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return %t : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @store_tile
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xbf16>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xf16>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xf32>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64x128xbf16>, memref<?x?x?x128xbf16>
// CHECK-NEXT: attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} : tensor<64xf32>, memref<2x8x1000xf32>
func.func @store_tile(%acc: tensor<64x128xf32>, %accb: tensor<64x128xbf16>,
                      %lse: tensor<64xf32>,
                      %ob: memref<?x?x?x128xbf16>, %oh: memref<?x?x?x128xf16>,
                      %of: memref<?x?x?x128xf32>, %l: memref<2x8x1000xf32>,
                      %b: index, %h: index, %r: index, %n: index) {
  // f32 tiles are rounded into f16/bf16 memrefs.
  attn.store_tile %acc, %ob[%b, %h, %r] rows %n
      : tensor<64x128xf32>, memref<?x?x?x128xbf16>
  attn.store_tile %acc, %oh[%b, %h, %r] rows %n
      : tensor<64x128xf32>, memref<?x?x?x128xf16>
  attn.store_tile %acc, %of[%b, %h, %r] rows %n
      : tensor<64x128xf32>, memref<?x?x?x128xf32>
  attn.store_tile %accb, %ob[%b, %h, %r] rows %n
      : tensor<64x128xbf16>, memref<?x?x?x128xbf16>
  attn.store_tile %lse, %l[%b, %h, %r] rows %n
      : tensor<64xf32>, memref<2x8x1000xf32>
  return
}

//===----------------------------------------------------------------------===//
// attn.dot
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @dot
// CHECK-NEXT: attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed} : tensor<64x128xbf16>, tensor<32x128xbf16> -> tensor<64x32xf32>
// CHECK-NEXT: attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
// CHECK-NEXT: attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT: attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
func.func @dot(%q: tensor<64x128xbf16>, %k: tensor<32x128xbf16>,
               %s0: tensor<64x32xf32>, %ph: tensor<64x32xf16>,
               %vh: tensor<32x128xf16>, %pf: tensor<64x32xf32>,
               %vf: tensor<32x128xf32>, %acc: tensor<64x128xf32>,
               %sq: tensor<16x16xf32>) {
  // S = Q Kᵀ
  %s = attn.dot %q, %k, %s0 {rhs_transposed}
      : tensor<64x128xbf16>, tensor<32x128xbf16> -> tensor<64x32xf32>
  // O += P V
  %o1 = attn.dot %ph, %vh, %acc
      : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %o2 = attn.dot %pf, %vf, %acc
      : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
  %o3 = attn.dot %sq, %sq, %sq {rhs_transposed}
      : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// attn.mask / attn.reduce / attn.broadcast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @mask
// CHECK-SAME: %[[S:[^:]+]]: tensor<64x32xf32>, %[[Q0:[^:]+]]: index, %[[NQ:[^:]+]]: index, %[[K0:[^:]+]]: index, %[[NK:[^:]+]]: index
// CHECK-NEXT: %[[M:.+]] = attn.mask %[[S]] q(%[[Q0]], %[[NQ]]) kv(%[[K0]], %[[NK]]) {causal} : tensor<64x32xf32>
// CHECK-NEXT: attn.mask %[[M]] q(%[[Q0]], %[[NQ]]) kv(%[[K0]], %[[NK]]) : tensor<64x32xf32>
func.func @mask(%s: tensor<64x32xf32>, %q0: index, %nq: index, %k0: index,
                %nk: index) -> tensor<64x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal} : tensor<64x32xf32>
  %m2 = attn.mask %m q(%q0, %nq) kv(%k0, %nk) : tensor<64x32xf32>
  return %m2 : tensor<64x32xf32>
}

// -----

// attn.iota: the rows' query positions and the columns' key positions, and
// a 1-d vector of the columns' (one per column of a score tile).
// CHECK-LABEL: func.func @iota
// CHECK-NEXT: attn.iota %{{.*}} dim 0 : tensor<64x32xi32>
// CHECK-NEXT: attn.iota %{{.*}} dim 1 : tensor<64x32xi32>
// CHECK-NEXT: attn.iota %{{.*}} dim 0 : tensor<32xi32>
func.func @iota(%q0: index, %k0: index) -> (tensor<64x32xi32>, tensor<64x32xi32>, tensor<32xi32>) {
  %i = attn.iota %q0 dim 0 : tensor<64x32xi32>
  %j = attn.iota %k0 dim 1 : tensor<64x32xi32>
  %c = attn.iota %k0 dim 0 : tensor<32xi32>
  return %i, %j, %c : tensor<64x32xi32>, tensor<64x32xi32>, tensor<32xi32>
}

// -----

// attn.iota clamped to a sequence's length, and attn.gather with a scalar
// and a tile index.
// CHECK-LABEL: func.func @gather
// CHECK-NEXT: %[[J:.*]] = attn.iota %{{.*}} dim 1 clamp(%{{.*}}) : tensor<64x32xi32>
// CHECK-NEXT: attn.gather %{{.*}}[%{{.*}}, %[[J]]] : memref<?x?xf32>, index, tensor<64x32xi32> -> tensor<64x32xf32>
func.func @gather(%t: memref<?x?xf32>, %h: index, %k0: index, %nk: index) -> tensor<64x32xf32> {
  %j = attn.iota %k0 dim 1 clamp(%nk) : tensor<64x32xi32>
  %g = attn.gather %t[%h, %j] : memref<?x?xf32>, index, tensor<64x32xi32> -> tensor<64x32xf32>
  return %g : tensor<64x32xf32>
}

// -----

// A sliding window's bounds on attn.mask: with causal (its right bound 0),
// and both bounds alone.
// CHECK-LABEL: func.func @mask_window
// CHECK-NEXT: %[[M:.+]] = attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {causal, window_left = 256 : i64} : tensor<64x32xf32>
// CHECK-NEXT: attn.mask %[[M]] q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {window_left = 0 : i64, window_right = 7 : i64} : tensor<64x32xf32>
func.func @mask_window(%s: tensor<64x32xf32>, %q0: index, %nq: index,
                       %k0: index, %nk: index) -> tensor<64x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal, window_left = 256}
      : tensor<64x32xf32>
  %m2 = attn.mask %m q(%q0, %nq) kv(%k0, %nk)
      {window_left = 0, window_right = 7} : tensor<64x32xf32>
  return %m2 : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @reduce
// CHECK-NEXT: attn.reduce max %{{.*}} : tensor<64x32xf32> -> tensor<64xf32>
// CHECK-NEXT: attn.reduce sum %{{.*}} : tensor<64x32xf32> -> tensor<64xf32>
// CHECK-NEXT: attn.reduce max %{{.*}} : tensor<1x1xf32> -> tensor<1xf32>
// Column groups: 8 sums a row (the columns congruent mod 8), or all 32.
// CHECK-NEXT: attn.reduce sum %{{.*}} : tensor<64x32xf32> -> tensor<64x8xf32>
// CHECK-NEXT: attn.reduce max %{{.*}} : tensor<64x32xf32> -> tensor<64x32xf32>
func.func @reduce(%s: tensor<64x32xf32>, %t: tensor<1x1xf32>) {
  %m = attn.reduce max %s : tensor<64x32xf32> -> tensor<64xf32>
  %l = attn.reduce sum %s : tensor<64x32xf32> -> tensor<64xf32>
  %u = attn.reduce max %t : tensor<1x1xf32> -> tensor<1xf32>
  %g = attn.reduce sum %s : tensor<64x32xf32> -> tensor<64x8xf32>
  %a = attn.reduce max %s : tensor<64x32xf32> -> tensor<64x32xf32>
  return
}

// -----

// The reduce kind in its generic spelling.
// CHECK-LABEL: func.func @reduce_generic_syntax
// CHECK-NEXT: attn.reduce sum %{{.*}} : tensor<16x16xf32> -> tensor<16xf32>
func.func @reduce_generic_syntax(%s: tensor<16x16xf32>) -> tensor<16xf32> {
  %0 = "attn.reduce"(%s) <{kind = #attn<reduce_kind sum>}>
      : (tensor<16x16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT: attn.broadcast %{{.*}} : tensor<64xf32> -> tensor<64x32xf32>
// CHECK-NEXT: attn.broadcast %{{.*}} : tensor<64xf32> -> tensor<64x1xf32>
// CHECK-NEXT: attn.broadcast %{{.*}} : tensor<16xbf16> -> tensor<16x128xbf16>
func.func @broadcast(%m: tensor<64xf32>, %h: tensor<16xbf16>) {
  %0 = attn.broadcast %m : tensor<64xf32> -> tensor<64x32xf32>
  %1 = attn.broadcast %m : tensor<64xf32> -> tensor<64x1xf32>
  %2 = attn.broadcast %h : tensor<16xbf16> -> tensor<16x128xbf16>
  return
}

//===----------------------------------------------------------------------===//
// #attn.target and the dialect's discardable attributes
//===----------------------------------------------------------------------===//

// -----

// CHECK: module attributes {attn.target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>}
// CHECK-LABEL: func.func @module_target
module attributes {attn.target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>} {
  func.func @module_target() {
    return
  }
}

// -----

// Every known architecture, and the bounds of the numeric parameters.
// CHECK-LABEL: func.func @target_cpu()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "cpu", smem_per_block = 4096, num_sms = 1>}
// CHECK-LABEL: func.func @target_sm_80()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "sm_80", smem_per_block = 1073741824, num_sms = 65536>}
// CHECK-LABEL: func.func @target_sm_86()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>}
// CHECK-LABEL: func.func @target_sm_89()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "sm_89", smem_per_block = 101376, num_sms = 128>}
// CHECK-LABEL: func.func @target_sm_90()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "sm_90", smem_per_block = 232448, num_sms = 132>}
// CHECK-LABEL: func.func @target_sm_90a()
// CHECK-SAME: attributes {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
func.func @target_cpu() attributes {
    attn.target = #attn.target<arch = "cpu", smem_per_block = 4096, num_sms = 1>} {
  return
}
func.func @target_sm_80() attributes {
    attn.target = #attn.target<arch = "sm_80", smem_per_block = 1073741824,
                               num_sms = 65536>} {
  return
}
func.func @target_sm_86() attributes {
    attn.target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>} {
  return
}
func.func @target_sm_89() attributes {
    attn.target = #attn.target<arch = "sm_89", smem_per_block = 101376, num_sms = 128>} {
  return
}
func.func @target_sm_90() attributes {
    attn.target = #attn.target<arch = "sm_90", smem_per_block = 232448, num_sms = 132>} {
  return
}
func.func @target_sm_90a() attributes {
    attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>} {
  return
}

// -----

// The three loops of the naive tiled softmax, as the tiling pass marks them.
// CHECK-LABEL: func.func @softmax_passes
// CHECK: scf.for
// CHECK: attn.reduce max
// CHECK: } {attn.softmax_pass = "max", attn.softmax_scale = 1.250000e-01 : f32}
// CHECK: scf.for
// CHECK: attn.reduce sum
// CHECK: } {attn.softmax_pass = "sum", attn.softmax_scale = 1.250000e-01 : f32}
// CHECK: scf.for
// CHECK: attn.dot
// CHECK: } {attn.softmax_pass = "pv", attn.softmax_scale = 1.250000e-01 : f32}
func.func @softmax_passes(%s: tensor<16x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c16 {
    %m = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.125 : f32}
  scf.for %i = %c0 to %n step %c16 {
    %l = attn.reduce sum %s : tensor<16x16xf32> -> tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.125 : f32}
  scf.for %i = %c0 to %n step %c16 {
    %o = attn.dot %s, %s, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.125 : f32}
  return
}

// -----

// A fused online-softmax loop over key blocks, carrying (m, l, acc).
// CHECK-LABEL: func.func @online_softmax
// CHECK: %{{.*}}:3 = scf.for {{.*}} iter_args(
// CHECK: attn.load_tile
// CHECK: attn.dot {{.*}} {rhs_transposed}
// CHECK: attn.mask {{.*}} {causal}
// CHECK: attn.reduce max
// CHECK: attn.broadcast
// CHECK: attn.reduce sum
// CHECK: attn.dot {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
// CHECK: scf.yield
// CHECK-NEXT: } {attn.online_softmax, attn.softmax_scale = 1.250000e-01 : f32}
// CHECK: attn.store_tile
func.func @online_softmax(%q: tensor<64x64xbf16>, %key: memref<?x?x?x64xbf16>,
                          %value: memref<?x?x?x64xbf16>,
                          %out: memref<?x?x?x64xbf16>, %b: index, %h: index,
                          %q0: index, %nq: index, %nk: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %zl = arith.constant dense<0.0> : tensor<64xf32>
  %zacc = arith.constant dense<0.0> : tensor<64x64xf32>
  %res:3 = scf.for %j = %c0 to %nk step %c64
      iter_args(%m = %ninf, %l = %zl, %acc = %zacc)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
    %rem = arith.subi %nk, %j : index
    %rows = arith.minsi %rem, %c64 : index
    %k = attn.load_tile %key[%b, %h, %j] rows %rows
        : memref<?x?x?x64xbf16> -> tensor<64x64xbf16>
    %v = attn.load_tile %value[%b, %h, %j] rows %rows
        : memref<?x?x?x64xbf16> -> tensor<64x64xbf16>
    %s = attn.dot %q, %k, %zacc {rhs_transposed}
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %sm = attn.mask %s q(%q0, %nq) kv(%j, %nk) {causal} : tensor<64x64xf32>
    %mj = attn.reduce max %sm : tensor<64x64xf32> -> tensor<64xf32>
    %mn = arith.maximumf %m, %mj : tensor<64xf32>
    %mb = attn.broadcast %mn : tensor<64xf32> -> tensor<64x64xf32>
    %d = arith.subf %sm, %mb : tensor<64x64xf32>
    %p = math.exp %d : tensor<64x64xf32>
    %lj = attn.reduce sum %p : tensor<64x64xf32> -> tensor<64xf32>
    %ln = arith.addf %l, %lj : tensor<64xf32>
    %pb = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %accn = attn.dot %pb, %v, %acc
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %mn, %ln, %accn : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  } {attn.online_softmax, attn.softmax_scale = 0.125 : f32}
  attn.store_tile %res#2, %out[%b, %h, %q0] rows %nq
      : tensor<64x64xf32>, memref<?x?x?x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention {split_kv} and attn.merge_splits
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @split_kv
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %[[PO:[^ ]+]] lse(%[[PL:[^ ]+]] : memref<?x?x?x?xf32>) {causal, split_kv} :
// CHECK-SAME: memref<?x?x?x?x128xf32>
// CHECK: attn.merge_splits %[[PO]], %[[PL]] into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) :
// CHECK-SAME: memref<?x?x?x?x128xf32>, memref<?x?x?x?xf32>, memref<?x?x?x128xbf16>
// CHECK: attn.merge_splits %[[PO]], %[[PL]] into %{{.*}} {block_q = 16 : i64} :
func.func @split_kv(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>,
                    %po: memref<?x?x?x?x128xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>)
      {causal, split_kv}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x?x128xf32>
  attn.merge_splits %po, %pl into %o lse(%lse : memref<?x?x?xf32>)
      : memref<?x?x?x?x128xf32>, memref<?x?x?x?xf32>, memref<?x?x?x128xbf16>
  attn.merge_splits %po, %pl into %o {block_q = 16 : i64}
      : memref<?x?x?x?x128xf32>, memref<?x?x?x?xf32>, memref<?x?x?x128xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention over a KV cache: kv_lens, pages
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @kv_cache
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} kv_lens(%{{.*}} : memref<?xi32>) {causal} :
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x32x1xf32>) kv_lens(%{{.*}} : memref<?xi32>) pages(%{{.*}} : memref<?x?xi32>) {split_kv} :
// CHECK-SAME: memref<?x8x16x128xbf16>
func.func @kv_cache(%q: memref<?x32x1x128xbf16>, %k: memref<?x8x?x128xbf16>,
                    %kp: memref<?x8x16x128xbf16>, %o: memref<?x32x1x128xbf16>,
                    %po: memref<?x?x32x1x128xf32>, %pl: memref<?x?x32x1xf32>,
                    %lens: memref<?xi32>, %table: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %o kv_lens(%lens : memref<?xi32>) {causal}
      : memref<?x32x1x128xbf16>, memref<?x8x?x128xbf16>,
        memref<?x8x?x128xbf16>, memref<?x32x1x128xbf16>
  attn.attention %q, %kp, %kp into %po lse(%pl : memref<?x?x32x1xf32>)
      kv_lens(%lens : memref<?xi32>) pages(%table : memref<?x?xi32>)
      {split_kv}
      : memref<?x32x1x128xbf16>, memref<?x8x16x128xbf16>,
        memref<?x8x16x128xbf16>, memref<?x?x32x1x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @varlen
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<1x32x?xf32>) varlen(%{{.*}}, %{{.*}} : memref<?xi32>, memref<?xi32>) {causal} :
func.func @varlen(%q: memref<1x32x?x128xbf16>, %k: memref<1x8x?x128xbf16>,
                  %lse: memref<1x32x?xf32>, %cq: memref<?xi32>,
                  %ck: memref<?xi32>) {
  attn.attention %q, %k, %k into %q lse(%lse : memref<1x32x?xf32>)
      varlen(%cq, %ck : memref<?xi32>, memref<?xi32>) {causal}
      : memref<1x32x?x128xbf16>, memref<1x8x?x128xbf16>,
        memref<1x8x?x128xbf16>, memref<1x32x?x128xbf16>
  return
}

// -----

// A score_mod region (a soft-cap of 30) round-trips, after the operands and
// before the attributes.
// CHECK-LABEL: func.func @score_mod
// CHECK:       attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} score_mod {
// CHECK-NEXT:  ^bb0(%[[S:.*]]: f32):
// CHECK-NEXT:    %[[C:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-NEXT:    %[[X:.*]] = arith.divf %[[S]], %[[C]] : f32
// CHECK-NEXT:    %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[T]], %[[C]] : f32
// CHECK-NEXT:    attn.yield %[[Y]] : f32
// CHECK-NEXT:  } {causal} : memref<?x?x?x64xbf16>
func.func @score_mod(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 30.0 : f32
    %x = arith.divf %s, %c : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A score_mod with the positions (b, h, q_idx, kv_idx) and a captured table
// (ALiBi's per-head slopes) round-trips; integer arithmetic, casts and the
// load of a captured memref are its body.
// CHECK-LABEL: func.func @score_mod_positions
// CHECK-SAME:    %[[SLOPES:[^:]+]]: memref<?xf32>
// CHECK:       score_mod {
// CHECK-NEXT:  ^bb0(%[[S:.*]]: f32, %{{.*}}: i32, %[[H:.*]]: i32, %[[I:.*]]: i32, %[[J:.*]]: i32):
// CHECK-NEXT:    %[[HI:.*]] = arith.index_cast %[[H]] : i32 to index
// CHECK-NEXT:    %[[SL:.*]] = memref.load %[[SLOPES]][%[[HI]]] : memref<?xf32>
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[J]], %[[I]] : i32
// CHECK-NEXT:    %[[DF:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %[[SL]], %[[DF]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.addf %[[S]], %[[B]] : f32
// CHECK-NEXT:    attn.yield %[[R]] : f32
// CHECK-NEXT:  } {causal}
func.func @score_mod_positions(%q: memref<?x?x?x64xbf16>,
                               %k: memref<?x?x?x64xbf16>,
                               %v: memref<?x?x?x64xbf16>,
                               %o: memref<?x?x?x64xbf16>,
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
  } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A mask written as a score_mod (Llama 4's chunked attention: keys of the
// query's chunk of 256 only), with a captured scalar (a function argument).
// CHECK-LABEL: func.func @score_mod_chunked
// CHECK:       arith.floordivsi
// CHECK:       arith.cmpi eq
// CHECK:       arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @score_mod_chunked(%q: memref<?x?x?x64xbf16>,
                             %k: memref<?x?x?x64xbf16>,
                             %v: memref<?x?x?x64xbf16>,
                             %o: memref<?x?x?x64xbf16>, %chunk: i32) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %ci = arith.floordivsi %i, %chunk : i32
    %cj = arith.floordivsi %j, %chunk : i32
    %same = arith.cmpi eq, %ci, %cj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// The built-in soft-cap (Gemma 2's 50) is an attribute.
// CHECK-LABEL: func.func @softcap
// CHECK:       attn.attention %{{.*}} {causal, softcap = 5.000000e+01 : f32}
func.func @softcap(%q: memref<?x?x?x256xbf16>) {
  attn.attention %q, %q, %q into %q {causal, softcap = 50.0 : f32}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
