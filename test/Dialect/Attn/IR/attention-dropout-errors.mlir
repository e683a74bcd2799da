// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @rate_too_high(%q: memref<?x?x?x64xbf16>, %seed: i64, %off: i32) {
  %p = arith.constant 1.0 : f32
  // expected-error @+1 {{dropout rate must be in [0, 1), got 1}}
  attn.attention %q, %q, %q into %q dropout(%p, %seed, %off)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @rate_negative(%q: memref<?x?x?x64xbf16>, %seed: i64, %off: i32) {
  %p = arith.constant -0.5 : f32
  // expected-error @+1 {{dropout rate must be in [0, 1), got -0.5}}
  attn.attention %q, %q, %q into %q dropout(%p, %seed, %off)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @rate_nan(%q: memref<?x?x?x64xbf16>, %seed: i64, %off: i32) {
  %p = arith.constant 0x7FC00000 : f32
  // expected-error @+1 {{dropout rate must be in [0, 1), got nan}}
  attn.attention %q, %q, %q into %q dropout(%p, %seed, %off)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @seed_type(%q: memref<?x?x?x64xbf16>, %p: f32, %seed: i32,
                     %off: i32) {
  // expected-error @+1 {{use of value '%seed' expects different type than prior uses: 'i64' vs 'i32'}}
  attn.attention %q, %q, %q into %q dropout(%p, %seed, %off)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %vt: memref<?x?x128x?xf8E4M3FN>,
               %o: memref<?x?x?x128xbf16>, %p: f32, %seed: i64, %off: i32) {
  // expected-error @+1 {{unsupported: dropout with fp8 inputs (not implemented yet)}}
  attn.attention %q, %q, %vt into %o dropout(%p, %seed, %off) {v_transposed}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}

// -----

func.func @random_rank(%seed: i64, %bh: i32, %off: i32, %q0: index,
                       %k0: index) {
  // expected-error @+1 {{'attn.random' op result must be a static 2-d i32 tile, got 'tensor<64xi32>'}}
  %u = attn.random key(%seed) counter(%bh, %off) q(%q0) kv(%k0)
      : tensor<64xi32>
  return
}

// -----

func.func @random_type(%seed: i64, %bh: i32, %off: i32, %q0: index,
                       %k0: index) {
  // expected-error @+1 {{'attn.random' op result must be a static 2-d i32 tile, got 'tensor<64x32xf32>'}}
  %u = attn.random key(%seed) counter(%bh, %off) q(%q0) kv(%k0)
      : tensor<64x32xf32>
  return
}
