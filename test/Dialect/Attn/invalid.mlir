// RUN: attn-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the attn dialect (AttnOps.cpp and
// AttnDialect.cpp): each input is valid but for the one rule it breaks.
// Parser-level failures and the constraints ODS generates come last.

//===----------------------------------------------------------------------===//
// attn.attention: operand ranks, layouts and sizes
//===----------------------------------------------------------------------===//

func.func @attention_query_rank(%q: memref<2x8x16xf32>,
                                %k: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op query must have rank 4 [batch, heads, seq, head_dim], got rank 3}}
  attn.attention %q, %k, %k into %k
      : memref<2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_lse_rank(%q: memref<1x2x8x16xf32>,
                              %l: memref<1x2x8x1xf32>) {
  // expected-error @+1 {{'attn.attention' op lse must have rank 3 [batch, heads, seq], got rank 4}}
  attn.attention %q, %q, %q into %q lse(%l : memref<1x2x8x1xf32>)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_not_strided(
    %q: memref<1x2x8x16xf32>,
    %k: memref<1x2x8x16xf32, affine_map<(b, h, s, d) -> (b, h, d, s floordiv 2)>>) {
  // expected-error @+1 {{'attn.attention' op unsupported: key must have a strided layout}}
  attn.attention %q, %k, %q into %q
      : memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32, affine_map<(b, h, s, d) -> (b, h, d, s floordiv 2)>>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_zero_dim(%q: memref<1x2x8x16xf32>,
                              %k: memref<1x2x0x16xf32>) {
  // expected-error @+1 {{'attn.attention' op dim 2 of key is zero: every dimension must be non-zero}}
  attn.attention %q, %k, %k into %q
      : memref<1x2x8x16xf32>, memref<1x2x0x16xf32>,
        memref<1x2x0x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: element types
//===----------------------------------------------------------------------===//

func.func @attention_query_element_type(%q: memref<1x2x8x16xf64>) {
  // expected-error @+1 {{'attn.attention' op query element type must be f32, f16 or bf16, got 'f64'}}
  attn.attention %q, %q, %q into %q
      : memref<1x2x8x16xf64>, memref<1x2x8x16xf64>,
        memref<1x2x8x16xf64>, memref<1x2x8x16xf64>
  return
}

// -----

func.func @attention_element_type_mismatch(%q: memref<1x2x8x16xf32>,
                                           %v: memref<1x2x8x16xf16>) {
  // expected-error @+1 {{'attn.attention' op value element type 'f16' must match query element type 'f32'}}
  attn.attention %q, %q, %v into %q
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf16>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_lse_element_type(%q: memref<1x2x8x16xf16>,
                                      %l: memref<1x2x8xf16>) {
  // expected-error @+1 {{'attn.attention' op lse element type must be f32, got 'f16'}}
  attn.attention %q, %q, %q into %q lse(%l : memref<1x2x8xf16>)
      : memref<1x2x8x16xf16>, memref<1x2x8x16xf16>,
        memref<1x2x8x16xf16>, memref<1x2x8x16xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: head dims
//===----------------------------------------------------------------------===//

func.func @attention_dynamic_head_dim(%q: memref<1x2x8x16xf32>,
                                      %v: memref<1x2x8x?xf32>) {
  // expected-error @+1 {{'attn.attention' op head dim (dim 3) of value must be static}}
  attn.attention %q, %q, %v into %v
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x?xf32>, memref<1x2x8x?xf32>
  return
}

// -----

func.func @attention_query_key_head_dim(%q: memref<1x2x8x16xf32>,
                                        %k: memref<1x2x8x32xf32>) {
  // expected-error @+1 {{'attn.attention' op head dim of query (16) must equal head dim of key (32)}}
  attn.attention %q, %k, %q into %q
      : memref<1x2x8x16xf32>, memref<1x2x8x32xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_value_output_head_dim(%q: memref<1x2x8x16xf32>,
                                           %o: memref<1x2x8x32xf32>) {
  // expected-error @+1 {{'attn.attention' op head dim of value (16) must equal head dim of output (32)}}
  attn.attention %q, %q, %q into %o
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: batch, heads and sequence lengths
//===----------------------------------------------------------------------===//

func.func @attention_batch(%q: memref<1x2x8x16xf32>,
                           %o: memref<3x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 1) must equal batch of output (dim 0 = 3)}}
  attn.attention %q, %q, %q into %o
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<3x2x8x16xf32>
  return
}

// -----

// A dynamic query batch does not hide a mismatch between key and value.
func.func @attention_batch_dynamic_query(%q: memref<?x2x8x16xf32>,
                                         %k: memref<2x2x8x16xf32>,
                                         %v: memref<3x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op batch of key (dim 0 = 2) must equal batch of value (dim 0 = 3)}}
  attn.attention %q, %k, %v into %q
      : memref<?x2x8x16xf32>, memref<2x2x8x16xf32>,
        memref<3x2x8x16xf32>, memref<?x2x8x16xf32>
  return
}

// -----

func.func @attention_query_output_heads(%q: memref<1x2x8x16xf32>,
                                        %o: memref<1x4x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of query (dim 1 = 2) must equal heads of output (dim 1 = 4)}}
  attn.attention %q, %q, %q into %o
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x4x8x16xf32>
  return
}

// -----

func.func @attention_key_value_heads(%q: memref<1x4x8x16xf32>,
                                     %k: memref<1x2x8x16xf32>,
                                     %v: memref<1x1x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of key (dim 1 = 2) must equal heads of value (dim 1 = 1)}}
  attn.attention %q, %k, %v into %q
      : memref<1x4x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x1x8x16xf32>, memref<1x4x8x16xf32>
  return
}

// -----

func.func @attention_query_output_seq(%q: memref<1x2x8x16xf32>,
                                      %o: memref<1x2x9x16xf32>) {
  // expected-error @+1 {{'attn.attention' op sequence length of query (dim 2 = 8) must equal sequence length of output (dim 2 = 9)}}
  attn.attention %q, %q, %q into %o
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x9x16xf32>
  return
}

// -----

func.func @attention_key_value_seq(%q: memref<1x2x8x16xf32>,
                                   %k: memref<1x2x32x16xf32>,
                                   %v: memref<1x2x31x16xf32>) {
  // expected-error @+1 {{'attn.attention' op sequence length of key (dim 2 = 32) must equal sequence length of value (dim 2 = 31)}}
  attn.attention %q, %k, %v into %q
      : memref<1x2x8x16xf32>, memref<1x2x32x16xf32>,
        memref<1x2x31x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_gqa_multiple(%q: memref<1x6x8x16xf32>,
                                  %k: memref<1x4x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op query heads (6) must be a multiple of key/value heads (4)}}
  attn.attention %q, %k, %k into %q
      : memref<1x6x8x16xf32>, memref<1x4x8x16xf32>,
        memref<1x4x8x16xf32>, memref<1x6x8x16xf32>
  return
}

// -----

// Hq and Hkv are taken from whichever operand has them static.
func.func @attention_gqa_multiple_dynamic(%q: memref<1x?x8x16xf32>,
                                          %k: memref<1x?x8x16xf32>,
                                          %v: memref<1x4x8x16xf32>,
                                          %o: memref<1x6x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op query heads (6) must be a multiple of key/value heads (4)}}
  attn.attention %q, %k, %v into %o
      : memref<1x?x8x16xf32>, memref<1x?x8x16xf32>,
        memref<1x4x8x16xf32>, memref<1x6x8x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: lse shape
//===----------------------------------------------------------------------===//

func.func @attention_lse_batch(%q: memref<1x2x8x16xf32>,
                               %l: memref<2x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 1) must equal batch of lse (dim 0 = 2)}}
  attn.attention %q, %q, %q into %q lse(%l : memref<2x2x8xf32>)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

// GQA: LSE has the query heads (4), not the kv heads (2).
func.func @attention_lse_query_heads(%q: memref<1x4x8x16xf32>,
                                     %k: memref<1x2x8x16xf32>,
                                     %l: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of lse (dim 1 = 2) must equal heads of query (dim 1 = 4)}}
  attn.attention %q, %k, %k into %q lse(%l : memref<1x2x8xf32>)
      : memref<1x4x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x4x8x16xf32>
  return
}

// -----

// Nq != Nk: LSE has the query rows (8), not the key rows (32).
func.func @attention_lse_query_seq(%q: memref<1x2x8x16xf32>,
                                   %k: memref<1x2x32x16xf32>,
                                   %l: memref<1x2x32xf32>) {
  // expected-error @+1 {{'attn.attention' op sequence length of lse (dim 2 = 32) must equal sequence length of query (dim 2 = 8)}}
  attn.attention %q, %k, %k into %q lse(%l : memref<1x2x32xf32>)
      : memref<1x2x8x16xf32>, memref<1x2x32x16xf32>,
        memref<1x2x32x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_lse_output_heads(%q: memref<1x?x8x16xf32>,
                                      %o: memref<1x2x8x16xf32>,
                                      %l: memref<1x4x8xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of lse (dim 1 = 4) must equal heads of output (dim 1 = 2)}}
  attn.attention %q, %q, %q into %o lse(%l : memref<1x4x8xf32>)
      : memref<1x?x8x16xf32>, memref<1x?x8x16xf32>,
        memref<1x?x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_lse_output_seq(%q: memref<1x2x?x16xf32>,
                                    %o: memref<1x2x10x16xf32>,
                                    %l: memref<1x2x12xf32>) {
  // expected-error @+1 {{'attn.attention' op sequence length of lse (dim 2 = 12) must equal sequence length of output (dim 2 = 10)}}
  attn.attention %q, %q, %q into %o lse(%l : memref<1x2x12xf32>)
      : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>,
        memref<1x2x?x16xf32>, memref<1x2x10x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: attributes
//===----------------------------------------------------------------------===//

func.func @attention_scale(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op scale must be positive and finite, got 0.000000e+00}}
  attn.attention %q, %q, %q into %q {scale = 0.0 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_scale_twice(%q: memref<1x2x8x16xf32>, %s: f32) {
  // expected-error @+1 {{'attn.attention' op the 'scale' attribute and the scale(...) operand (dynamic_scale) are mutually exclusive}}
  attn.attention %q, %q, %q into %q scale(%s) {scale = 0.125 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_block_q(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op block_q must be a power of two or a multiple of 64 in [1, 1024], got 48}}
  attn.attention %q, %q, %q into %q {block_q = 48}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_block_kv(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op block_kv must be a power of two in [1, 1024], got 2048}}
  attn.attention %q, %q, %q into %q {block_kv = 2048}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.load_tile / attn.store_tile
//===----------------------------------------------------------------------===//

func.func @tile_rank(%m: memref<1x2x8x16xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op tile must have rank 1 or 2, got 3}}
  %0 = attn.load_tile %m[%i, %i] rows %i
      : memref<1x2x8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @tile_static_shape(%t: tensor<?x16xf32>, %m: memref<1x2x8x16xf32>,
                             %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile must have a static shape, got 'tensor<?x16xf32>'}}
  attn.store_tile %t, %m[%i, %i, %i] rows %i
      : tensor<?x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @tile_memref_rank(%t: tensor<4x16xf32>, %m: memref<16xf32>,
                            %i: index) {
  // expected-error @+1 {{'attn.store_tile' op dest rank (1) must be at least the tile rank (2)}}
  attn.store_tile %t, %m[] rows %i : tensor<4x16xf32>, memref<16xf32>
  return
}

// -----

func.func @tile_num_indices(%m: memref<1x2x8x16xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op expected 3 indices for a source of rank 4 and a tile of rank 2, got 2}}
  %0 = attn.load_tile %m[%i, %i] rows %i
      : memref<1x2x8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @tile_dynamic_columns(%m: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op source's last dim must be static to match the tile columns (16)}}
  %0 = attn.load_tile %m[%i] rows %i : memref<?x?xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @tile_columns(%t: tensor<64x32xf32>, %m: memref<?x?x?x16xf32>,
                        %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile columns (32) must equal the dest's last dim (16)}}
  attn.store_tile %t, %m[%i, %i, %i] rows %i
      : tensor<64x32xf32>, memref<?x?x?x16xf32>
  return
}

// -----

func.func @tile_not_strided(
    %m: memref<8x16xf32, affine_map<(r, c) -> (c, r floordiv 2)>>,
    %i: index) {
  // expected-error @+1 {{'attn.load_tile' op source must have a strided layout}}
  %0 = attn.load_tile %m[%i] rows %i
      : memref<8x16xf32, affine_map<(r, c) -> (c, r floordiv 2)>> -> tensor<8x16xf32>
  return
}

// -----

func.func @load_tile_element_type(%m: memref<8x16xf16>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op tile element type 'f32' must match source element type 'f16'}}
  %0 = attn.load_tile %m[%i] rows %i : memref<8x16xf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @store_tile_element_type(%t: tensor<8x16xf16>, %m: memref<8x16xf32>,
                                   %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile element type 'f16' must match dest element type 'f32' or be f32 (rounded on store)}}
  attn.store_tile %t, %m[%i] rows %i : tensor<8x16xf16>, memref<8x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.dot
//===----------------------------------------------------------------------===//

func.func @dot_operand_rank(%a: tensor<16x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'attn.dot' op rhs must be a static 2-d tile, got 'tensor<16xf32>'}}
  %0 = attn.dot %a, %b, %a : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_element_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>,
                             %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'attn.dot' op lhs and rhs must share an f32, f16 or bf16 element type, got 'f16' and 'bf16'}}
  %0 = attn.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_element_type(%a: tensor<16x16xf16>) {
  // expected-error @+1 {{'attn.dot' op acc must be f32, got 'f16'}}
  %0 = attn.dot %a, %a, %a : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

// With rhs_transposed the contraction runs over the rhs's columns (32 here);
// without it these shapes would be valid.
func.func @dot_contraction(%a: tensor<32x64xf32>, %b: tensor<64x32xf32>,
                           %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'attn.dot' op contraction dims differ: lhs has 64, rhs has 32}}
  %0 = attn.dot %a, %b, %c {rhs_transposed}
      : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>,
                         %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.dot' op acc must be 64x16, got 'tensor<64x32xf32>'}}
  %0 = attn.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.mask / attn.reduce / attn.broadcast
//===----------------------------------------------------------------------===//

func.func @mask_scores(%s: tensor<64x64xf16>, %i: index) {
  // expected-error @+1 {{'attn.mask' op scores must be a static 2-d f32 tile, got 'tensor<64x64xf16>'}}
  %0 = attn.mask %s q(%i, %i) kv(%i, %i) : tensor<64x64xf16>
  return
}

// -----

func.func @reduce_input(%s: tensor<64xf32>) {
  // expected-error @+1 {{'attn.reduce' op input must be a static 2-d f32 tile, got 'tensor<64xf32>'}}
  %0 = attn.reduce max %s : tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

// One value per row (64), not per column (32).
func.func @reduce_result(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<32xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<32xf32>
  return
}

// -----

// Column groups must divide the columns.
func.func @reduce_groups(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<64x12xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<64x12xf32>
  return
}

// -----

func.func @reduce_group_rows(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<32x8xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<32x8xf32>
  return
}

// -----

func.func @broadcast_input(%m: tensor<4x4xf32>) {
  // expected-error @+1 {{'attn.broadcast' op input must be a static 1-d tile, got 'tensor<4x4xf32>'}}
  %0 = attn.broadcast %m : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_result(%m: tensor<64xf32>) {
  // expected-error @+1 {{'attn.broadcast' op result must be a static 2-d tile with 64 rows of 'f32', got 'tensor<32x64xf32>'}}
  %0 = attn.broadcast %m : tensor<64xf32> -> tensor<32x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #attn.target
//===----------------------------------------------------------------------===//

func.func @target_arch() attributes {
    // expected-error @+1 {{unknown target architecture 'sm_70' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)}}
    attn.target = #attn.target<arch = "sm_70", smem_per_block = 98304, num_sms = 80>} {
  return
}

// -----

func.func @target_smem_per_block() attributes {
    // expected-error @+1 {{smem_per_block must be in [4096, 2^30] bytes, got 4095}}
    attn.target = #attn.target<arch = "cpu", smem_per_block = 4095, num_sms = 1>} {
  return
}

// -----

func.func @target_num_sms() attributes {
    // expected-error @+1 {{num_sms must be in [1, 65536], got 0}}
    attn.target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 0>} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable attributes (AttnDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'attn.target' must be an #attn.target attribute}}
module attributes {attn.target = "sm_90"} {
}

// -----

func.func @softmax_pass_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.softmax_pass' must be "max", "sum" or "pv" on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "qk"}
  return
}

// -----

// expected-error @+1 {{'attn.softmax_pass' must be "max", "sum" or "pv" on an scf.for}}
func.func @softmax_pass_placement() attributes {attn.softmax_pass = "max"} {
  return
}

// -----

func.func @softmax_scale_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.softmax_scale' must be a positive finite f32 on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "max", attn.softmax_scale = -0.125 : f32}
  return
}

// -----

// expected-error @+1 {{'attn.softmax_scale' must be a positive finite f32 on an scf.for}}
func.func @softmax_scale_placement() attributes {attn.softmax_scale = 0.125 : f32} {
  return
}

// -----

func.func @online_softmax_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.online_softmax' must be a unit attribute on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.online_softmax = true}
  return
}

// -----

// expected-error @+1 {{'attn.online_softmax' must be a unit attribute on an scf.for}}
func.func @online_softmax_placement() attributes {attn.online_softmax} {
  return
}

// -----

func.func @skip_unit_factors_placement(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.skip_unit_factors' must be a unit attribute on an arith.mulf}}
  %y = arith.addf %x, %x {attn.skip_unit_factors} : f32
  return %y : f32
}

// -----

func.func @skip_unit_factors_value(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.skip_unit_factors' must be a unit attribute on an arith.mulf}}
  %y = arith.mulf %x, %x {attn.skip_unit_factors = 1 : i32} : f32
  return %y : f32
}

// -----

// expected-error @+1 {{'attn.register_estimate' must be a positive integer on an scf.forall}}
func.func @register_estimate_placement() attributes {attn.register_estimate = 255 : i64} {
  return
}

// -----

func.func @register_estimate_value() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.register_estimate' must be a positive integer on an scf.forall}}
  scf.forall (%i) in (%c1) {
  } {attn.register_estimate = 0 : i64}
  return
}

// -----

// expected-error @+1 {{'attn.lsr' must be a bool}}
func.func @lsr_value() attributes {attn.lsr = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{unknown attn dialect attribute 'attn.block_q'}}
func.func @unknown_dialect_attribute() attributes {attn.block_q = 64 : i64} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Constraints ODS generates
//===----------------------------------------------------------------------===//

func.func @attention_scale_f64(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{attribute 'scale' failed to satisfy constraint: 32-bit float attribute}}
  attn.attention %q, %q, %q into %q {scale = 0.125 : f64}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

// The run-time scale is an f32 like the attribute (the generic form, since
// the custom one implies f32).
func.func @attention_dynamic_scale_f64(%q: memref<1x2x8x16xf32>, %s: f64) {
  // expected-error @+1 {{'attn.attention' op operand #4 must be 32-bit float, but got 'f64'}}
  "attn.attention"(%q, %q, %q, %q, %s)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 0, 0, 0>}> ({})
      : (memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
         memref<1x2x8x16xf32>, f64) -> ()
  return
}

// -----

func.func @attention_target_kind(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{attribute 'target' failed to satisfy constraint}}
  attn.attention %q, %q, %q into %q {target = "sm_90"}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @attention_unranked(%q: memref<*xf32>) {
  // expected-error @+2 {{invalid kind of type specified: expected builtin.memref, but found 'memref<*xf32>'}}
  attn.attention %q, %q, %q into %q
      : memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>
  return
}

// -----

func.func @dot_acc_result_type(%a: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'attn.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "attn.dot"(%a, %a, %c)
      : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf16>) -> tensor<16x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Parser failures
//===----------------------------------------------------------------------===//

func.func @parse_missing_into(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{expected 'into'}}
  attn.attention %q, %q, %q %q
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @parse_lse_missing_type(%q: memref<1x2x8x16xf32>,
                                  %l: memref<1x2x8xf32>) {
  // expected-error @+1 {{expected ':'}}
  attn.attention %q, %q, %q into %q lse(%l)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @parse_missing_rows(%m: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected 'rows'}}
  %0 = attn.load_tile %m[%i] %i : memref<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @parse_reduce_kind(%s: tensor<4x4xf32>) {
  // expected-error @+2 {{expected ::mlir::attn::ReduceKind to be one of: max, sum}}
  // expected-error @+1 {{failed to parse Attn_ReduceKindAttr parameter 'value'}}
  %0 = attn.reduce min %s : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @parse_target_missing_parameter() attributes {
    // expected-error @+1 {{expected ','}}
    attn.target = #attn.target<arch = "cpu", smem_per_block = 4096>} {
  return
}

// -----

func.func @fused_exponent_placement(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.fused_exponent' must be a unit attribute on an arith.mulf}}
  %y = arith.subf %x, %x {attn.fused_exponent} : f32
  return %y : f32
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention {split_kv} and attn.merge_splits
//===----------------------------------------------------------------------===//

func.func @split_kv_needs_lse(%q: memref<1x2x8x16xbf16>,
                              %po: memref<4x1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op split_kv needs an lse operand: the merge weighs each split by its log-sum-exp}}
  attn.attention %q, %q, %q into %po {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_output_rank(%q: memref<1x2x8x16xbf16>,
                                %o: memref<1x2x8x16xf32>,
                                %pl: memref<4x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op output must have rank 5 [splits, batch, heads, seq, head_dim], got rank 4}}
  attn.attention %q, %q, %q into %o lse(%pl : memref<4x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_output_f32(%q: memref<1x2x8x16xbf16>,
                               %po: memref<4x1x2x8x16xbf16>,
                               %pl: memref<4x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op split_kv output element type must be f32, got 'bf16'}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<4x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xbf16>
  return
}

// -----

func.func @split_kv_splits_agree(%q: memref<1x2x8x16xbf16>,
                                 %po: memref<4x1x2x8x16xf32>,
                                 %pl: memref<3x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op splits of lse (dim 0 = 3) must equal splits of output (dim 0 = 4)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<3x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_heads(%q: memref<1x2x8x16xbf16>,
                          %po: memref<4x1x3x8x16xf32>,
                          %pl: memref<4x1x3x8xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of query (dim 1 = 2) must equal heads of output (dim 2 = 3)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<4x1x3x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x3x8x16xf32>
  return
}

// -----

func.func @merge_rank(%po: memref<1x2x8x16xf32>, %pl: memref<4x1x2x8xf32>,
                      %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op partial output must have rank 5, got rank 4}}
  attn.merge_splits %po, %pl into %o
      : memref<1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_partials_f32(%po: memref<4x1x2x8x16xf16>,
                              %pl: memref<4x1x2x8xf32>,
                              %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op partial output element type must be f32, got 'f16'}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf16>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_head_dim(%po: memref<4x1x2x8x32xf32>,
                          %pl: memref<4x1x2x8xf32>,
                          %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op head dim of the partial output (32) must equal head dim of the output (16)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x32xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_splits_agree(%po: memref<4x1x2x8x16xf32>,
                              %pl: memref<2x1x2x8xf32>,
                              %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op splits of partial output (dim 0 = 4) must equal splits of partial lse (dim 0 = 2)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf32>, memref<2x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_rows(%po: memref<4x1x2x8x16xf32>, %pl: memref<4x1x2x8xf32>,
                      %o: memref<1x2x9x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op sequence length of partial output (dim 3 = 8) must equal sequence length of output (dim 2 = 9)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x9x16xbf16>
  return
}

// -----

func.func @merge_lse_type(%po: memref<4x1x2x8x16xf32>,
                          %pl: memref<4x1x2x8xf32>,
                          %o: memref<1x2x8x16xbf16>,
                          %l: memref<1x2x8xf16>) {
  // expected-error @+1 {{'attn.merge_splits' op lse element type must be f32, got 'f16'}}
  attn.merge_splits %po, %pl into %o lse(%l : memref<1x2x8xf16>)
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_block_q(%po: memref<4x1x2x8x16xf32>,
                         %pl: memref<4x1x2x8xf32>,
                         %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op block_q must be a power of two or a multiple of 64 in [1, 1024], got 48}}
  attn.merge_splits %po, %pl into %o {block_q = 48 : i64}
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

// expected-error @+1 {{'attn.program' must be "split_kv" or "merge_splits" on an scf.forall}}
func.func @program_attr() attributes {attn.program = "split_kv"} {
  return
}

// -----

// expected-error @+1 {{'attn.grid' must be three products of batch, heads_q, heads_kv, q_blocks and splits (e.g. "q_blocks*splits") on an scf.forall}}
func.func @grid_attr() attributes {attn.grid = ["batch", "heads_q", "rows"]} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention over a KV cache: kv_lens, pages
//===----------------------------------------------------------------------===//

func.func @pages_need_lens(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                           %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op pages(...) needs kv_lens(...): a paged cache has no key count of its own}}
  attn.attention %q, %k, %k into %q pages(%t : memref<2x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<9x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_i32(%q: memref<2x4x1x64xbf16>, %l: memref<2xi64>) {
  // expected-error @+1 {{'attn.attention' op kv_lens element type must be i32, got 'i64'}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<2xi64>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_rank(%q: memref<2x4x1x64xbf16>, %l: memref<2x1xi32>) {
  // expected-error @+1 {{'attn.attention' op kv_lens must have rank 1 [batch], got rank 2}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<2x1xi32>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_batch(%q: memref<2x4x1x64xbf16>, %l: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 2) must equal batch of kv_lens (dim 0 = 3)}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<3xi32>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

// Paged K and V hold pages in dim 0: 9 pages for a batch of 2 is fine, but
// the table's batch must be the queries'.
func.func @table_batch(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                       %l: memref<2xi32>, %t: memref<3x8xi32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 2) must equal batch of page table (dim 0 = 3)}}
  attn.attention %q, %k, %k into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<3x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<9x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @pages_agree(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                       %v: memref<8x4x16x64xbf16>, %l: memref<2xi32>,
                       %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op pages of key (dim 0 = 9) must equal pages of value (dim 0 = 8)}}
  attn.attention %q, %k, %v into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<2x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<8x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @page_block(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                      %l: memref<2xi32>, %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op page size 16 must be a multiple of block_kv (32): a key block is read from one page}}
  attn.attention %q, %k, %k into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<2x8xi32>) {block_kv = 32 : i64}
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<9x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention over a packed batch: varlen
//===----------------------------------------------------------------------===//

func.func @varlen_batch_one(%q: memref<2x4x9x64xbf16>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op varlen: dim 0 of query must be 1 (the sequences are packed along the rows), got 2}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<3xi32>, memref<3xi32>)
      : memref<2x4x9x64xbf16>, memref<2x4x9x64xbf16>,
        memref<2x4x9x64xbf16>, memref<2x4x9x64xbf16>
  return
}

// -----

func.func @varlen_i32(%q: memref<1x4x9x64xbf16>, %c: memref<3xi64>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q element type must be i32, got 'i64'}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<3xi64>, memref<3xi64>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_entries(%q: memref<1x4x9x64xbf16>, %c: memref<3xi32>,
                          %d: memref<4xi32>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q (3 entries) and cu_seqlens_k (4 entries) must have one entry per sequence plus one, alike}}
  attn.attention %q, %q, %q into %q varlen(%c, %d : memref<3xi32>, memref<4xi32>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_one_sequence(%q: memref<1x4x9x64xbf16>, %c: memref<1xi32>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q needs at least 2 entries (one sequence), got 1}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<1xi32>, memref<1xi32>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_split(%q: memref<1x4x9x64xbf16>, %po: memref<2x1x4x9x64xf32>,
                        %pl: memref<2x1x4x9xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: varlen with split_kv (the packed batch's sequences are tiled whole)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<2x1x4x9xf32>)
      varlen(%c, %c : memref<3xi32>, memref<3xi32>) {split_kv}
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<2x1x4x9x64xf32>
  return
}

// -----

// Both offsets or neither (the generic form can give one).
func.func @varlen_both(%q: memref<1x4x9x64xbf16>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op varlen needs both cu_seqlens_q and cu_seqlens_k}}
  "attn.attention"(%q, %q, %q, %q, %c)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> ({})
      : (memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
         memref<1x4x9x64xbf16>, memref<3xi32>) -> ()
  return
}

// -----

// score_mod: one f32 argument (positions are not supported yet).
func.func @score_mod_args(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op score_mod takes one f32 argument (the scaled score); query/key positions are not supported yet}}
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %i: index):
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: the body is applied to whole tiles: float arithmetic that
// every backend lowers.
func.func @score_mod_not_elementwise(%q: memref<1x4x9x64xbf16>,
                                     %m: memref<f32>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'memref.load' op in score_mod: unsupported op (supported: float constants; arith addf, subf, mulf, divf, negf, maximumf, minimumf, maxnumf, minnumf; math tanh, exp, exp2, log, sqrt, absf)}}
    %b = memref.load %m[] : memref<f32>
    attn.yield %b : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: a value captured from outside the region.
func.func @score_mod_capture(%q: memref<1x4x9x64xbf16>, %cap: f32) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'arith.mulf' op in score_mod: values defined outside the region are not supported yet}}
    %y = arith.mulf %s, %cap : f32
    attn.yield %y : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: integer constants are not a score's type.
func.func @score_mod_int_constant(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'arith.constant' op in score_mod: only float constants are supported}}
    %c = arith.constant 3 : i32
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// attn.yield gives back one f32 score.
func.func @score_mod_yield(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'attn.yield' op must yield one f32 (the modified score)}}
    attn.yield %s, %s : f32, f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// attn.yield only ends a score_mod region.
func.func @yield_outside(%s: f32) {
  // expected-error @+1 {{'attn.yield' op expects parent op 'attn.attention'}}
  attn.yield %s : f32
}

// -----

// score_mod: an elementwise op no backend's list has (erf).
func.func @score_mod_erf(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'math.erf' op in score_mod: unsupported op}}
    %e = math.erf %s : f32
    attn.yield %e : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod ends with attn.yield (another terminator would leave the
// modified score undefined).
func.func @score_mod_terminator(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op score_mod must end with attn.yield}}
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    llvm.unreachable
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: the yielded score comes from the region too.
func.func @score_mod_yield_capture(%q: memref<1x4x9x64xbf16>, %x: f32) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'attn.yield' op in score_mod: values defined outside the region are not supported yet}}
    attn.yield %x : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}
