// RUN: attn-opt %s -split-input-file --attn-expand-alibi -verify-diagnostics

// What the built-in ALiBi does not combine with: "unsupported: ..." at the
// op, nothing rewritten.

func.func @with_score_mod(%q: memref<1x4x8x64xf32>, %s: memref<4xf32>) {
  // expected-error @+1 {{unsupported: alibi with a score_mod region (add the bias in the region)}}
  attn.attention %q, %q, %q into %q alibi(%s : memref<4xf32>) score_mod {
  ^bb0(%x: f32):
    attn.yield %x : f32
  } : memref<1x4x8x64xf32>, memref<1x4x8x64xf32>, memref<1x4x8x64xf32>,
      memref<1x4x8x64xf32>
  return
}

// -----

func.func @with_softcap(%q: memref<1x4x8x64xf32>, %s: memref<4xf32>) {
  // expected-error @+1 {{unsupported: alibi with a soft-cap}}
  attn.attention %q, %q, %q into %q alibi(%s : memref<4xf32>)
      {softcap = 30.0 : f32}
      : memref<1x4x8x64xf32>, memref<1x4x8x64xf32>, memref<1x4x8x64xf32>,
        memref<1x4x8x64xf32>
  return
}

// -----

func.func @with_kv_cache(%q: memref<2x4x1x64xbf16>, %k: memref<2x4x?x64xbf16>,
                         %lens: memref<2xi32>, %s: memref<4xf32>) {
  // expected-error @+1 {{unsupported: alibi with a KV cache or a packed batch (their key positions are per sequence)}}
  attn.attention %q, %k, %k into %q kv_lens(%lens : memref<2xi32>)
      alibi(%s : memref<4xf32>)
      : memref<2x4x1x64xbf16>, memref<2x4x?x64xbf16>, memref<2x4x?x64xbf16>,
        memref<2x4x1x64xbf16>
  return
}
