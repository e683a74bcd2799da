// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a stage-windows=0" | FileCheck %s --check-prefix=REGS

// Blocks for the operands that change them on sm_90a: an additive bias
// (its window beside the scores) takes 64-key blocks up to D = 128, 32
// above, but one whose window is staged in shared memory (stage-windows, by
// default: 16-bit or f32) takes 128 query rows and 128 keys at D = 64, and
// where it is 16-bit 128 keys at D = 128 and 64 at D = 256 (an f32
// window's slots would not fit; with the window in registers, 64 x 64 at
// D = 64); block lists shrink
// the blocks to divide the mask's (the 192-row block of D = 64 from 2048
// rows becomes 64 rows under 128-row mask blocks, 64-key blocks under 64).

// CHECK-LABEL: func.func @bias
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64
func.func @bias(%q: memref<?x?x?x128xbf16>, %b: memref<?x?x?x?xf32>) {
  attn.attention %q, %q, %q into %q bias(%b : memref<?x?x?x?xf32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @bias_bf16
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64
// REGS-LABEL:  func.func @bias_bf16
// REGS:          attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64
func.func @bias_bf16(%q: memref<?x?x?x128xbf16>, %b: memref<1x?x?x?xbf16>) {
  attn.attention %q, %q, %q into %q bias(%b : memref<1x?x?x?xbf16>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @bias_bf16_d64
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64
// CHECK-LABEL: func.func @bias_f32_d64
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64
// REGS-LABEL: func.func @bias_bf16_d64
// REGS:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 64 : i64
func.func @bias_bf16_d64(%q: memref<?x?x?x64xbf16>, %b: memref<?x?x?x?xbf16>) {
  attn.attention %q, %q, %q into %q bias(%b : memref<?x?x?x?xbf16>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
func.func @bias_f32_d64(%q: memref<?x?x?x64xbf16>, %b: memref<?x?x?x?xf32>) {
  attn.attention %q, %q, %q into %q bias(%b : memref<?x?x?x?xf32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// D = 256: a staged 16-bit window takes 64 keys (128-byte rows), one in
// registers 32.
// CHECK-LABEL: func.func @bias_bf16_d256
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64
// REGS-LABEL:  func.func @bias_bf16_d256
// REGS:          attn.attention {{.*}} {block_kv = 32 : i64
func.func @bias_bf16_d256(%q: memref<?x?x?x256xbf16>, %b: memref<?x?x?x?xbf16>) {
  attn.attention %q, %q, %q into %q bias(%b : memref<?x?x?x?xbf16>)
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @tall_under_mask
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 64 : i64
func.func @tall_under_mask(%q: memref<1x16x4096x64xbf16>,
                           %c: memref<1x1x32xi32>, %x: memref<1x1x32x64xi32>) {
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x32xi32>, memref<1x1x32x64xi32>)
      {mask_block = array<i64: 128, 64>}
      : memref<1x16x4096x64xbf16>, memref<1x16x4096x64xbf16>,
        memref<1x16x4096x64xbf16>, memref<1x16x4096x64xbf16>
  return
}

// -----

// A split-KV program (decoding's few packed rows) takes 64 query rows at
// D = 128, one consumer warpgroup; at D = 256 it keeps the forward's 128
// rows and 64-key blocks.

// CHECK-LABEL: func.func @split_d128
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64
func.func @split_d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                      %po: memref<?x?x?x?x128xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x?x128xf32>
  return
}

// CHECK-LABEL: func.func @split_d256
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64
func.func @split_d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                      %po: memref<?x?x?x?x256xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x?x256xf32>
  return
}
