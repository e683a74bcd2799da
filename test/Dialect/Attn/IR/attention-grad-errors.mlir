// RUN: attn-opt %s -split-input-file -verify-diagnostics

// attn.attention_grad's verifier (AttnOps.cpp): each input is valid but for
// the one rule it breaks, and is refused where it is written.

func.func @grad_rank(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                     %bad: memref<2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op key must have rank 4 [batch, heads, seq, head_dim], got rank 3}}
  attn.attention_grad %t, %t, %bad, %t, %t, %r into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_element_type(%t: memref<1x2x8x16xbf16>, %r: memref<1x2x8xf32>,
                             %h: memref<1x2x8x16xf16>) {
  // expected-error @+1 {{'attn.attention_grad' op grad_value element type must be 'bf16' (the query's), got 'f16'}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %h delta(%r)
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8xf32>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xf16>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_unsupported_type(%t: memref<1x2x8x16xf64>,
                                 %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op query element type must be f32, f16 or bf16, got 'f64'}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf64>, memref<1x2x8x16xf64>, memref<1x2x8x16xf64>,
        memref<1x2x8x16xf64>, memref<1x2x8x16xf64>, memref<1x2x8xf32>,
        memref<1x2x8x16xf64>, memref<1x2x8x16xf64>, memref<1x2x8x16xf64>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_delta_type(%t: memref<1x2x8x16xf16>, %r: memref<1x2x8xf32>,
                           %d: memref<1x2x8xf16>) {
  // expected-error @+1 {{'attn.attention_grad' op delta element type must be 'f32', got 'f16'}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%d)
      : memref<1x2x8x16xf16>, memref<1x2x8x16xf16>, memref<1x2x8x16xf16>,
        memref<1x2x8x16xf16>, memref<1x2x8x16xf16>, memref<1x2x8xf32>,
        memref<1x2x8x16xf16>, memref<1x2x8x16xf16>, memref<1x2x8x16xf16>,
        memref<1x2x8xf16>
  return
}

// -----

func.func @grad_dynamic_head_dim(%t: memref<1x2x8x16xf32>,
                                 %r: memref<1x2x8xf32>,
                                 %dq: memref<1x2x8x?xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op head dim (dim 3) of grad_query must be static}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %dq, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x?xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_head_dim(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                         %dk: memref<1x2x8x32xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op head dim of grad_key (32) must equal head dim of query (16)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %dk, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x32xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_value_head_dim(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                               %o: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op head dim of output (8) must equal head dim of grad_output (16)}}
  attn.attention_grad %t, %t, %t, %t, %o, %r into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x8xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_batch(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                      %b: memref<3x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op batch of grad_output (dim 0 = 1) must equal batch of delta (dim 0 = 3)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%b)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<3x2x8xf32>
  return
}

// -----

func.func @grad_query_rows(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                           %l: memref<1x2x9xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op sequence length of grad_output (dim 2 = 8) must equal sequence length of lse (dim 2 = 9)}}
  attn.attention_grad %t, %t, %t, %t, %t, %l into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x9xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_key_rows(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                         %k: memref<1x2x6x16xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op sequence length of key (dim 2 = 6) must equal sequence length of value (dim 2 = 8)}}
  attn.attention_grad %t, %t, %k, %t, %t, %r into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x6x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_gqa(%q: memref<1x3x8x16xf32>, %kv: memref<1x2x8x16xf32>,
                    %r: memref<1x3x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op query heads (3) must be a multiple of key/value heads (2)}}
  attn.attention_grad %q, %q, %kv, %kv, %q, %r into %q, %kv, %kv delta(%r)
      : memref<1x3x8x16xf32>, memref<1x3x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x3x8x16xf32>, memref<1x3x8xf32>,
        memref<1x3x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x3x8xf32>
  return
}

// -----

func.func @grad_two_scales(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                           %s: f32) {
  // expected-error @+1 {{'attn.attention_grad' op the 'scale' attribute and the scale(...) operand (dynamic_scale) are mutually exclusive: give the scale one way}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      scale(%s) {scale = 0.5 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_scale(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op scale must be positive and finite, got -1}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {scale = -1.0 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_block(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op block_kv must be a power of two in [1, 1024], got 48}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {block_kv = 48}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_zero_dim(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                         %z: memref<1x2x0x16xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op dim 2 of key is zero: every dimension must be non-zero}}
  attn.attention_grad %t, %t, %z, %t, %t, %r into %t, %t, %t delta(%r)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x0x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_workspace_type(%t: memref<1x2x8x16xbf16>, %r: memref<1x2x8xf32>,
                               %w: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.attention_grad' op dq_accum element type must be 'f32', got 'bf16'}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      dq_accum(%w : memref<1x2x8x16xbf16>)
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8xf32>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_workspace_rows(%t: memref<1x2x8x16xbf16>, %r: memref<1x2x8xf32>,
                               %w: memref<1x2x9x16xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      dq_accum(%w : memref<1x2x9x16xf32>)
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8xf32>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_dropout_rate_one(%t: memref<?x?x?x64xf32>, %r: memref<?x?x?xf32>,
                                 %seed: i64, %off: i32) {
  %p = arith.constant 1.0 : f32
  // expected-error @+1 {{'attn.attention_grad' op dropout rate must be in [0, 1), got 1}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      dropout(%p, %seed, %off)
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?xf32>
  return
}

// -----

// The forward's score variants, under the forward's rules.
func.func @grad_causal_window_right(%t: memref<1x2x8x16xf32>,
                                    %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op causal is window_right = 0: give one of causal and window_right}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {causal, window_right = 4}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_softcap(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op softcap must be a positive, finite, normal f32 (its reciprocal finite), got -1}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {softcap = -1.0 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_softcap_score_mod(%t: memref<1x2x8x16xf32>,
                                  %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op softcap and a score_mod region are exclusive (write the cap in the region)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      score_mod {
      ^bb0(%s: f32):
        attn.yield %s : f32
      } {softcap = 2.0 : f32}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_alibi_slopes(%t: memref<1x2x8x16xf32>, %r: memref<1x2x8xf32>,
                             %slopes: memref<3xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op alibi slopes have 3 entries for 2 query heads}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      alibi(%slopes : memref<3xf32>)
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

// A derivative the backward cannot bound where the score is finite.
func.func @grad_score_mod_log(%t: memref<1x2x8x16xf32>,
                              %r: memref<1x2x8xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      score_mod {
      ^bb0(%s: f32):
        // expected-error @+1 {{'math.log' op unsupported: in score_mod of attn.attention_grad, the derivative of log (1/x) is unbounded where the score is finite (the backward evaluates it on masked scores too)}}
        %l = math.log %s : f32
        attn.yield %l : f32
      }
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_score_mod_divide(%t: memref<1x2x8x16xf32>,
                                 %r: memref<1x2x8xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      score_mod {
      ^bb0(%s: f32):
        %c = arith.constant 1.0 : f32
        %a = arith.addf %s, %c : f32
        // expected-error @+1 {{'arith.divf' op unsupported: in score_mod of attn.attention_grad, the derivative of a division by the score (−a/b²) is unbounded where the score is finite}}
        %d = arith.divf %c, %a : f32
        attn.yield %d : f32
      }
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

// A region must not read what the backward writes.
func.func @grad_score_mod_reads_delta(%t: memref<1x2x8x16xf32>,
                                      %r: memref<1x2x8xf32>,
                                      %delta: memref<1x2x8xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%delta)
      score_mod {
      ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
        %c0 = arith.constant 0 : index
        // expected-error @+1 {{'memref.load' op in score_mod: reads the gradients or workspaces (dQ, dK, dV, delta), which it writes}}
        %x = memref.load %delta[%c0, %c0, %c0] : memref<1x2x8xf32>
        %y = arith.addf %s, %x : f32
        attn.yield %y : f32
      }
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}

// -----

func.func @grad_mask_mod_args(%t: memref<1x2x8x16xf32>,
                              %r: memref<1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention_grad' op mask_mod takes (%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      mask_mod {
      ^bb0(%i: i32, %j: i32):
        %k = arith.cmpi sle, %i, %j : i32
        attn.yield %k : i1
      }
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8xf32>
  return
}
