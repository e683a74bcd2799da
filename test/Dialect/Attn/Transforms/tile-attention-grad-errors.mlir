// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-tile-attention="target=sm_90a"

// The tensor cores take f16 and bf16: an f32 backward on a GPU target is
// refused where the op is written (the CPU path runs it).

func.func @grad_f32_on_gpu(%t: memref<?x?x?x64xf32>, %r: memref<?x?x?xf32>) {
  // expected-error @+1 {{unsupported: 'f32' attn.attention_grad on the GPU (the tensor cores take f16 and bf16; f32 runs on the CPU path)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {causal}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?xf32>
  return
}

// -----

// Head dims above 128 run on the CPU path only: on a GPU the key-block
// grid's accumulators spill and no GPU check has covered them.

func.func @grad_d256_on_gpu(%t: memref<?x?x?x256xbf16>, %r: memref<?x?x?xf32>) {
  // expected-error @+1 {{unsupported: attn.attention_grad with head dims above 128 on the GPU (got 256 and 256; the CPU path runs them)}}
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?xf32>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?xf32>
  return
}

// -----

// A value head dim other than the key's: no GPU check covers it yet (the
// CPU path runs it, test/Numerics/cpu-backward.mlir).

func.func @grad_dv_on_gpu(%t: memref<?x?x?x128xbf16>, %u: memref<?x?x?x64xbf16>, %r: memref<?x?x?xf32>) {
  // expected-error @+1 {{unsupported: attn.attention_grad with head_dim_v (64) != head_dim (128) on the GPU (not checked on a GPU yet; the CPU path runs it)}}
  attn.attention_grad %u, %t, %t, %u, %u, %r into %t, %t, %u delta(%r)
      : memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?xf32>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?xf32>
  return
}
