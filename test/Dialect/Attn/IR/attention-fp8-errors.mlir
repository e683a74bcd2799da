// RUN: attn-opt %s -split-input-file -verify-diagnostics

// fp8 needs V transposed: wgmma reads 8-bit operands along K only.
func.func @fp8_v_not_transposed(%q: memref<1x4x9x128xf8E4M3FN>,
                                %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{fp8 needs v_transposed (V as [B, Hkv, Dv, Nk], keys contiguous}}
  attn.attention %q, %q, %q into %o
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @v_transposed_bf16(%q: memref<1x4x9x128xbf16>,
                             %v: memref<1x4x128x9xbf16>) {
  // expected-error @+1 {{v_transposed is the fp8 layout of V}}
  attn.attention %q, %q, %v into %q {v_transposed}
      : memref<1x4x9x128xbf16>, memref<1x4x9x128xbf16>,
        memref<1x4x128x9xbf16>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @descale_bf16(%q: memref<1x4x9x128xbf16>, %d: f32) {
  // expected-error @+1 {{descale(...) dequantises fp8 inputs; the inputs are 'bf16'}}
  attn.attention %q, %q, %q into %q descale(%d, %d, %d)
      : memref<1x4x9x128xbf16>, memref<1x4x9x128xbf16>,
        memref<1x4x9x128xbf16>, memref<1x4x9x128xbf16>
  return
}

// -----

// The output of fp8 inputs is f16 or bf16.
func.func @fp8_output(%q: memref<1x4x9x128xf8E4M3FN>,
                      %v: memref<1x4x128x9xf8E4M3FN>) {
  // expected-error @+1 {{output element type must be f16 or bf16 with fp8 inputs, got 'f8E4M3FN'}}
  attn.attention %q, %q, %v into %q {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x128x9xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>
  return
}

// -----

func.func @fp8_mixed(%q: memref<1x4x9x128xf8E4M3FN>,
                     %k: memref<1x4x9x128xbf16>,
                     %v: memref<1x4x128x9xf8E4M3FN>,
                     %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{key element type 'bf16' must match query element type 'f8E4M3FN'}}
  attn.attention %q, %k, %v into %o {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xbf16>,
        memref<1x4x128x9xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

// V's keys are its dim 3 when transposed.
func.func @fp8_keys(%q: memref<1x4x9x128xf8E4M3FN>,
                    %v: memref<1x4x128x10xf8E4M3FN>,
                    %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{sequence length of key (dim 2 = 9) must equal sequence length of value (dim 3 = 10)}}
  attn.attention %q, %q, %v into %o {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x128x10xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @fp8_value_head_dim(%q: memref<1x4x9x128xf8E4M3FN>,
                              %v: memref<1x4x64x9xf8E4M3FN>,
                              %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{head dim of value (64) must equal head dim of output (128)}}
  attn.attention %q, %q, %v into %o {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x64x9xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @fp8_cache(%q: memref<1x4x9x128xf8E4M3FN>,
                     %v: memref<1x4x128x9xf8E4M3FN>,
                     %o: memref<1x4x9x128xbf16>, %lens: memref<1xi32>) {
  // expected-error @+1 {{unsupported: fp8 inputs with a KV cache (kv_lens) (not implemented yet)}}
  attn.attention %q, %q, %v into %o kv_lens(%lens : memref<1xi32>)
      {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x128x9xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @fp8_softcap(%q: memref<1x4x9x128xf8E4M3FN>,
                       %v: memref<1x4x128x9xf8E4M3FN>,
                       %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{unsupported: fp8 inputs with a soft-cap (not implemented yet)}}
  attn.attention %q, %q, %v into %o {softcap = 30.0 : f32, v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x128x9xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @e5m2(%q: memref<1x4x9x128xf8E5M2>, %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{query element type must be f32, f16, bf16 or f8E4M3FN, got 'f8E5M2'}}
  attn.attention %q, %q, %q into %o
      : memref<1x4x9x128xf8E5M2>, memref<1x4x9x128xf8E5M2>,
        memref<1x4x9x128xf8E5M2>, memref<1x4x9x128xbf16>
  return
}

// -----

func.func @fp8_mask_mod(%q: memref<1x4x9x128xf8E4M3FN>,
                        %v: memref<1x4x128x9xf8E4M3FN>,
                        %o: memref<1x4x9x128xbf16>) {
  // expected-error @+1 {{unsupported: fp8 inputs with a mask_mod region (not implemented yet)}}
  attn.attention %q, %q, %v into %o mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } {v_transposed}
      : memref<1x4x9x128xf8E4M3FN>, memref<1x4x9x128xf8E4M3FN>,
        memref<1x4x128x9xf8E4M3FN>, memref<1x4x9x128xbf16>
  return
}
