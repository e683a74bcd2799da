// RUN: attn-opt %s -split-input-file -verify-diagnostics

// attn.attention's verifier (AttnOps.cpp), its parser and the constraints
// ODS generates for it: each input is valid but for the one rule it breaks,
// and is refused where it is written. Its variants (split_kv, a KV cache, a
// packed batch, score_mod) are in attention-variant-errors.mlir.

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

func.func @key_rank5(%q: memref<?x?x?x64xf32>, %k: memref<1x?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{key must have rank 4 [batch, heads, seq, head_dim], got rank 5}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<1x?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @zero_batch(%q: memref<0x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                      %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{dim 0 of query is zero: every dimension must be non-zero}}
  attn.attention %q, %k, %v into %o
      : memref<0x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: memref<?x?x?x64xf32>, %k: memref<?x0x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{dim 1 of key is zero: every dimension must be non-zero}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x0x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @zero_head_dim(%q: memref<?x?x?x0xf32>, %k: memref<?x?x?x0xf32>,
                         %v: memref<?x?x?x0xf32>, %o: memref<?x?x?x0xf32>) {
  // expected-error @below {{dim 3 of query is zero: every dimension must be non-zero}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x0xf32>, memref<?x?x?x0xf32>, memref<?x?x?x0xf32>,
        memref<?x?x?x0xf32>
  return
}

// -----

func.func @zero_seq_lse(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                        %lse: memref<?x?x0xf32>) {
  // expected-error @below {{dim 2 of lse is zero: every dimension must be non-zero}}
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x0xf32>)
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention: element types
//===----------------------------------------------------------------------===//

func.func @attention_query_element_type(%q: memref<1x2x8x16xf64>) {
  // expected-error @+1 {{'attn.attention' op query element type must be f32, f16, bf16 or f8E4M3FN, got 'f64'}}
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

func.func @f8(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>,
              %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xf8E4M3FN>) {
  // expected-error @below {{output element type must be f16 or bf16 with fp8 inputs, got 'f8E4M3FN'}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>,
        memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>
  return
}

// -----

func.func @i8(%q: memref<?x?x?x64xi8>, %k: memref<?x?x?x64xi8>,
              %v: memref<?x?x?x64xi8>, %o: memref<?x?x?x64xi8>) {
  // expected-error @below {{query element type must be f32, f16, bf16 or f8E4M3FN, got 'i8'}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xi8>, memref<?x?x?x64xi8>, memref<?x?x?x64xi8>,
        memref<?x?x?x64xi8>
  return
}

// -----

func.func @key_dtype(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf16>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{key element type 'f16' must match query element type 'f32'}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf16>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @output_dtype(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{output element type 'bf16' must match query element type 'f32'}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xbf16>
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

func.func @dynamic_head_dim(%q: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>,
                            %v: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  // expected-error @below {{head dim (dim 3) of query must be static}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>,
        memref<?x?x?x?xf32>
  return
}

// -----

// Head dims above 1024 are refused.

func.func @head_dim_too_large(%q: memref<?x?x?x1025xf32>, %k: memref<?x?x?x1025xf32>,
                              %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{unsupported: head dim 1025 (at most 1024)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x1025xf32>, memref<?x?x?x1025xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @value_head_dim_too_large(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                                    %v: memref<?x?x?x4096xf32>, %o: memref<?x?x?x4096xf32>) {
  // expected-error @below {{unsupported: value head dim 4096 (at most 1024)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x4096xf32>,
        memref<?x?x?x4096xf32>
  return
}

// -----

// Head dims so large that a tile's size overflows int64 (2^61: its bytes wrap
// to 0; 2^62: 4·D wraps to 0) are refused here like any above 1024, before a
// pass computes with them.

func.func @head_dim_2_pow_61(%q: memref<?x?x?x2305843009213693952xf32>, %k: memref<?x?x?x2305843009213693952xf32>,
                             %v: memref<?x?x?x2305843009213693952xf32>, %o: memref<?x?x?x2305843009213693952xf32>) {
  // expected-error @below {{'attn.attention' op unsupported: head dim 2305843009213693952 (at most 1024)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x2305843009213693952xf32>, memref<?x?x?x2305843009213693952xf32>,
        memref<?x?x?x2305843009213693952xf32>, memref<?x?x?x2305843009213693952xf32>
  return
}

// -----

func.func @head_dim_2_pow_62(%q: memref<1x1x16x4611686018427387904xf32>, %k: memref<1x1x16x4611686018427387904xf32>,
                             %v: memref<1x1x16x4611686018427387904xf32>, %o: memref<1x1x16x4611686018427387904xf32>) {
  // expected-error @below {{'attn.attention' op unsupported: head dim 4611686018427387904 (at most 1024)}}
  attn.attention %q, %k, %v into %o
      : memref<1x1x16x4611686018427387904xf32>, memref<1x1x16x4611686018427387904xf32>,
        memref<1x1x16x4611686018427387904xf32>, memref<1x1x16x4611686018427387904xf32>
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

// GQA/MQA: fewer query heads than key/value heads is not a multiple.

func.func @gqa_more_kv_heads(%q: memref<?x4x?x64xf32>, %k: memref<?x8x?x64xf32>,
                             %v: memref<?x8x?x64xf32>, %o: memref<?x4x?x64xf32>) {
  // expected-error @below {{query heads (4) must be a multiple of key/value heads (8)}}
  attn.attention %q, %k, %v into %o
      : memref<?x4x?x64xf32>, memref<?x8x?x64xf32>, memref<?x8x?x64xf32>,
        memref<?x4x?x64xf32>
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

func.func @scale_negative(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                          %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{scale must be positive and finite, got -1.000000e+00}}
  attn.attention %q, %k, %v into %o {scale = -1.0 : f32}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @scale_inf(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{scale must be positive and finite, got INF}}
  attn.attention %q, %k, %v into %o {scale = 0x7F800000 : f32}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @scale_nan(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{scale must be positive and finite, got nan}}
  attn.attention %q, %k, %v into %o {scale = 0x7FC00000 : f32}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @block_q_zero(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block_q must be a power of two or a multiple of 64 in [1, 1024], got 0}}
  attn.attention %q, %k, %v into %o {block_q = 0}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @block_q_three(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block_q must be a power of two or a multiple of 64 in [1, 1024], got 3}}
  attn.attention %q, %k, %v into %o {block_q = 3}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @block_q_negative(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                            %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block_q must be a power of two or a multiple of 64 in [1, 1024], got -1}}
  attn.attention %q, %k, %v into %o {block_q = -1}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @block_kv_huge(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block_kv must be a power of two in [1, 1024], got 100000}}
  attn.attention %q, %k, %v into %o {block_kv = 100000}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
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
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> ({}, {})
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

func.func @unranked_query(%q: memref<*xf32>, %k: memref<?x?x?x64xf32>,
                          %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // The generic form sizes the operand groups (q, k, v, o, lse, scale).
  // expected-error @below {{operand #0 must be memref of any type values, but got 'memref<*xf32>'}}
  "attn.attention"(%q, %k, %v, %o)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> ({}, {})
      : (memref<*xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
         memref<?x?x?x64xf32>) -> ()
  return
}

// -----

func.func @too_few_operands(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                            %v: memref<?x?x?x64xf32>) {
  // expected-error @below {{expected 4 or more operands, but found 3}}
  "attn.attention"(%q, %k, %v) ({}, {})
      : (memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) -> ()
  return
}

// -----

func.func @causal_not_unit(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                           %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{attribute 'causal' failed to satisfy constraint: unit attribute}}
  attn.attention %q, %k, %v into %o {causal = 1}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @block_q_i32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                       %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{attribute 'block_q' failed to satisfy constraint: 64-bit signless integer attribute}}
  attn.attention %q, %k, %v into %o {block_q = 64 : i32}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @extra_region(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{expected 2 regions}}
  "attn.attention"(%q, %k, %v, %o)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> ({}, {}, { ^bb0: })
      : (memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
         memref<?x?x?x64xf32>) -> ()
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

func.func @tensor_query(%q: tensor<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      // expected-error @below {{invalid kind of type specified: expected builtin.memref, but found 'tensor<?x?x?x64xf32>'}}
      : tensor<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
