// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The verifier rules of attn.attention's bias(...) (AttnOps.cpp,
// AttentionOp::verifyBias). Each input is valid but for the one rule it
// breaks.

func.func @rank(%q: memref<?x?x?x64xbf16>, %bias: memref<?x?x?xf32>) {
  // expected-error @+1 {{bias must have rank 4 [1|batch, 1|heads, seq_q, seq_k], got rank 3}}
  attn.attention %q, %q, %q into %q bias(%bias : memref<?x?x?xf32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @element(%q: memref<?x?x?x64xbf16>, %bias: memref<?x?x?x?xf16>) {
  // expected-error @+1 {{bias element type 'f16' must be f32 or the inputs' ('bf16')}}
  attn.attention %q, %q, %q into %q bias(%bias : memref<?x?x?x?xf16>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @heads(%q: memref<?x8x?x64xbf16>, %bias: memref<?x4x?x?xf32>) {
  // expected-error @+1 {{bias heads (4) must be 1 or the query's (8)}}
  attn.attention %q, %q, %q into %q bias(%bias : memref<?x4x?x?xf32>)
      : memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>,
        memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>
  return
}

// -----

func.func @keys(%q: memref<?x?x100x64xbf16>, %k: memref<?x?x200x64xbf16>,
                %bias: memref<?x?x100x100xf32>) {
  // expected-error @+1 {{sequence length of bias (dim 3 = 100) must equal sequence length of key (dim 2 = 200)}}
  attn.attention %q, %k, %k into %q bias(%bias : memref<?x?x100x100xf32>)
      : memref<?x?x100x64xbf16>, memref<?x?x200x64xbf16>,
        memref<?x?x200x64xbf16>, memref<?x?x100x64xbf16>
  return
}

// -----

func.func @split(%q: memref<?x?x?x64xbf16>, %po: memref<?x?x?x?x64xf32>,
                 %pl: memref<?x?x?x?xf32>, %bias: memref<?x?x?x?xf32>) {
  // expected-error @+1 {{unsupported: bias with split_kv (not implemented yet)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<?x?x?x?xf32>)
      bias(%bias : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x?x64xf32>
  return
}
