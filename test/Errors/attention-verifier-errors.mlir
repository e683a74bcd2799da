// RUN: attn-opt %s -split-input-file -verify-diagnostics

// Malformed attn.attention ops are rejected by the verifier with a located
// diagnostic (attn-opt exits 1). These are the bad-input cases that
// test/Dialect/Attn/invalid.mlir does not already cover: zero-sized dims,
// odd element types, dynamic head dims, non-memref operands, absurd
// scales and block sizes.

func.func @key_rank5(%q: memref<?x?x?x64xf32>, %k: memref<1x?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{key must have rank 4 [batch, heads, seq, head_dim], got rank 5}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<1x?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// Operand kinds: tensors and unranked memrefs are rejected by the parser.

func.func @tensor_query(%q: tensor<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                        %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      // expected-error @below {{invalid kind of type specified: expected builtin.memref, but found 'tensor<?x?x?x64xf32>'}}
      : tensor<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @unranked_query(%q: memref<*xf32>, %k: memref<?x?x?x64xf32>,
                          %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // The generic form sizes the operand groups (q, k, v, o, lse, scale).
  // expected-error @below {{operand #0 must be memref of any type values, but got 'memref<*xf32>'}}
  "attn.attention"(%q, %k, %v, %o)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> ({})
      : (memref<*xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
         memref<?x?x?x64xf32>) -> ()
  return
}

// -----

func.func @too_few_operands(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                            %v: memref<?x?x?x64xf32>) {
  // expected-error @below {{expected 4 or more operands, but found 3}}
  "attn.attention"(%q, %k, %v) ({})
      : (memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) -> ()
  return
}

// -----

// Zero-sized dimensions.

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

// Element types.

func.func @f8(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>,
              %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xf8E4M3FN>) {
  // expected-error @below {{query element type must be f32, f16 or bf16, got 'f8E4M3FN'}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>,
        memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>
  return
}

// -----

func.func @i8(%q: memref<?x?x?x64xi8>, %k: memref<?x?x?x64xi8>,
              %v: memref<?x?x?x64xi8>, %o: memref<?x?x?x64xi8>) {
  // expected-error @below {{query element type must be f32, f16 or bf16, got 'i8'}}
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

// Head dims.

func.func @dynamic_head_dim(%q: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>,
                            %v: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  // expected-error @below {{head dim (dim 3) of query must be static}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>,
        memref<?x?x?x?xf32>
  return
}

// -----

// Head dims above 1024 are refused (see also bug-huge-head-dim-*.mlir).

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

// Attributes.

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

func.func @causal_not_unit(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                           %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{attribute 'causal' failed to satisfy constraint: unit attribute}}
  attn.attention %q, %k, %v into %o {causal = 1}
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
  // expected-error @below {{requires one region}}
  "attn.attention"(%q, %k, %v, %o)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> ({}, { ^bb0: })
      : (memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
         memref<?x?x?x64xf32>) -> ()
  return
}
