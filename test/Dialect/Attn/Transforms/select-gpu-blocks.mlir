// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80 block-q=64 block-kv=16" | FileCheck %s --check-prefix=OPT
// RUN: not attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_86" | FileCheck %s --check-prefix=AMPERE

// The mma.sync kernel's blocks: Br = 128 and Bc = 64 (Bc = 32 at D = 96,
// and at D = 128 off Hopper); on sm_90a, where head dims of a multiple of 64
// take wgmma, 64x128 at D = 64, 128x128 at D = 128 and 128x64 at D = 256;
// 64x32 where Q and two K/V slots do not fit the
// chip's shared memory (D = 256 on sm_86: 101376 bytes); the chip becomes
// the op's target. Options override the heuristic; attributes the op
// already has are kept.

// CHECK-LABEL: func.func @d64
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
// AMPERE-LABEL: func.func @d64
// AMPERE:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_86"
// OPT-LABEL:   func.func @d64
// OPT:           attn.attention {{.*}} {block_kv = 16 : i64, block_q = 64 : i64, target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>}
// CHIP:        error: unsupported chip 'sm_75' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
func.func @d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
               %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @d128
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64, causal, target = #attn.target<arch = "sm_90a"
// AMPERE-LABEL: func.func @d128
// AMPERE:         attn.attention {{.*}} {block_kv = 32 : i64, block_q = 128 : i64, causal, target = #attn.target<arch = "sm_86"
func.func @d128(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>,
                %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>,
        memref<?x?x?x128xf16>
  return
}

// -----

// (128 + 4·64)·256·2 = 196608 bytes: fits sm_90a's 232448, not sm_86's.
// CHECK-LABEL: func.func @d256
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
// AMPERE-LABEL: func.func @d256
// AMPERE:         attn.attention {{.*}} {block_kv = 32 : i64, block_q = 64 : i64, target = #attn.target<arch = "sm_86"
func.func @d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>
  return
}

// -----

// D = 96: wgmma in 64-byte slabs, blocks as at D = 128 (the mma.sync path's
// padded rows took Bc = 32).
// CHECK-LABEL: func.func @d96
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
func.func @d96(%q: memref<?x?x?x96xf16>, %k: memref<?x?x?x96xf16>,
               %v: memref<?x?x?x96xf16>, %o: memref<?x?x?x96xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x96xf16>, memref<?x?x?x96xf16>, memref<?x?x?x96xf16>,
        memref<?x?x?x96xf16>
  return
}

// -----

// An op's own blocks and target are kept.
// CHECK-LABEL: func.func @given
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>}
// AMPERE-LABEL: func.func @given
func.func @given(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                 %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o {block_q = 64 : i64, block_kv = 128 : i64,
      target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}

// RUN: not attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80 block-q=48" 2>&1 | FileCheck %s --check-prefix=BQ
// BQ: error: pass option block-q must be 0 (heuristic) or a power of two or a multiple of 64 in [16, 256], got 48

// -----

// A paged cache: on sm_90a a static page smaller than the key block keeps
// the block (its rows gathered from whole pages), and pages under 64 keys
// take one warpgroup of 64 query rows; off Hopper the block shrinks to the
// page (128 rows, where the mma.sync blocks stand). A page of 64 keeps the
// D = 128 blocks but the key block (64).
// CHECK-LABEL: func.func @pages_of_16
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 64 : i64, target = #attn.target<arch = "sm_90a"
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
// AMPERE-LABEL: func.func @pages_of_16
// AMPERE:         attn.attention {{.*}} {block_kv = 16 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_86"
// AMPERE:         attn.attention {{.*}} {block_kv = 32 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_86"
func.func @pages_of_16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x16x128xbf16>,
                       %k64: memref<?x?x64x128xbf16>, %l: memref<?xi32>,
                       %t: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %q kv_lens(%l : memref<?xi32>)
      pages(%t : memref<?x?xi32>)
      : memref<?x?x?x128xbf16>, memref<?x?x16x128xbf16>,
        memref<?x?x16x128xbf16>, memref<?x?x?x128xbf16>
  attn.attention %q, %k64, %k64 into %q kv_lens(%l : memref<?xi32>)
      pages(%t : memref<?x?xi32>)
      : memref<?x?x?x128xbf16>, memref<?x?x64x128xbf16>,
        memref<?x?x64x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Over a KV cache or a packed batch the copies are cp.async (V's rows are
// bounded by the sequence), whose producer keeps its addresses: on sm_90a
// the key blocks are 64 rows up to D = 128 and 32 at D = 256 (the 128-row
// blocks spill); the query blocks stay. Off Hopper the mma.sync blocks
// stand.
// CHECK-LABEL: func.func @cache_and_packed
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
// CHECK:         attn.attention {{.*}} {block_kv = 32 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_90a"
// AMPERE-LABEL: func.func @cache_and_packed
// AMPERE:         attn.attention {{.*}} {block_kv = 32 : i64, block_q = 128 : i64, target = #attn.target<arch = "sm_86"
func.func @cache_and_packed(%q: memref<?x?x?x128xbf16>,
                            %q2: memref<?x?x?x256xbf16>, %l: memref<?xi32>,
                            %c: memref<?xi32>) {
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<?xi32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  attn.attention %q2, %q2, %q2 into %q2 kv_lens(%l : memref<?xi32>)
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<?xi32>, memref<?xi32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// A static sequence long enough takes the tall query block on sm_90a at
// D = 64 (tallQueryBlock: 192 rows, three consumer warpgroups) — from 512
// query rows, 8192 when causal — where its grid of ⌈N / 192⌉ · H · B
// programs is two waves of the target's 132 multiprocessors (32 · 8 · 3 =
// 768 at 512 rows; 8 · 11 = 88 at 2048 rows of one sequence is not: the
// 64-row program's more, smaller programs spread over them); shorter ones
// and other chips keep theirs (causal: 128 rows, whose persistent grid
// claims its tiles at run time).
// CHECK-LABEL: func.func @d64_long
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64, causal, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64, causal, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 192 : i64, causal, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 192 : i64, target{{.*}} : memref<32x8x512x64xbf16>
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target{{.*}} : memref<32x8x256x64xbf16>
// A sliding window keeps the 64-row program.
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, causal, target{{.*}}window_left = 256
// AMPERE-LABEL: func.func @d64_long
// AMPERE-COUNT-7: attn.attention {{.*}} {block_kv = 64 : i64, block_q = 128 : i64
func.func @d64_long(%q2k: memref<1x8x2048x64xbf16>, %q1k: memref<1x8x1024x64xbf16>,
                    %q4k: memref<1x8x4096x64xbf16>,
                    %k: memref<1x8x4096x64xbf16>, %v: memref<1x8x4096x64xbf16>,
                    %o2k: memref<1x8x2048x64xbf16>, %o1k: memref<1x8x1024x64xbf16>,
                    %o4k: memref<1x8x4096x64xbf16>,
                    %q8k: memref<1x8x8192x64xbf16>,
                    %o8k: memref<1x8x8192x64xbf16>,
                    %b512: memref<32x8x512x64xbf16>,
                    %b256: memref<32x8x256x64xbf16>) {
  attn.attention %q2k, %k, %v into %o2k
      : memref<1x8x2048x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x2048x64xbf16>
  attn.attention %q1k, %k, %v into %o1k
      : memref<1x8x1024x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x1024x64xbf16>
  attn.attention %q2k, %k, %v into %o2k {causal}
      : memref<1x8x2048x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x2048x64xbf16>
  attn.attention %q4k, %k, %v into %o4k {causal}
      : memref<1x8x4096x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x4096x64xbf16>
  attn.attention %q8k, %k, %v into %o8k {causal}
      : memref<1x8x8192x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x8192x64xbf16>
  attn.attention %b512, %b512, %b512 into %b512
      : memref<32x8x512x64xbf16>, memref<32x8x512x64xbf16>,
        memref<32x8x512x64xbf16>, memref<32x8x512x64xbf16>
  attn.attention %b256, %b256, %b256 into %b256
      : memref<32x8x256x64xbf16>, memref<32x8x256x64xbf16>,
        memref<32x8x256x64xbf16>, memref<32x8x256x64xbf16>
  attn.attention %q2k, %k, %v into %o2k {causal, window_left = 256}
      : memref<1x8x2048x64xbf16>, memref<1x8x4096x64xbf16>,
        memref<1x8x4096x64xbf16>, memref<1x8x2048x64xbf16>
  return
}


// -----

// A static sequence of at most 64 rows (a decode step's query heads packed
// as rows, a few speculated tokens) takes 64-row blocks on sm_90a where the
// default has 128 (D = 128 and 256, causal or not; over a KV cache too);
// 65 rows and other chips keep theirs (fp8: select-gpu-blocks-fp8.mlir).
// CHECK-LABEL: func.func @few_rows
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 128 : i64, target
// CHECK:         attn.attention {{.*}} {block_kv = 128 : i64, block_q = 64 : i64, causal, target
// CHECK:         attn.attention {{.*}} kv_lens({{.*}}) {block_kv = 64 : i64, block_q = 64 : i64, target
// CHECK:         attn.attention {{.*}} {block_kv = 64 : i64, block_q = 64 : i64, target
// AMPERE-LABEL: func.func @few_rows
// AMPERE-COUNT-4: attn.attention {{.*}}block_q = 128 : i64
func.func @few_rows(%q4: memref<32x8x4x128xbf16>, %q65: memref<32x8x65x128xbf16>,
                    %k: memref<32x8x16384x128xbf16>,
                    %lens: memref<32xi32>,
                    %q4w: memref<32x8x4x256xbf16>,
                    %kw: memref<32x8x16384x256xbf16>) {
  attn.attention %q4, %k, %k into %q4
      : memref<32x8x4x128xbf16>, memref<32x8x16384x128xbf16>,
        memref<32x8x16384x128xbf16>, memref<32x8x4x128xbf16>
  attn.attention %q65, %k, %k into %q65
      : memref<32x8x65x128xbf16>, memref<32x8x16384x128xbf16>,
        memref<32x8x16384x128xbf16>, memref<32x8x65x128xbf16>
  attn.attention %q4, %k, %k into %q4 {causal}
      : memref<32x8x4x128xbf16>, memref<32x8x16384x128xbf16>,
        memref<32x8x16384x128xbf16>, memref<32x8x4x128xbf16>
  attn.attention %q4, %k, %k into %q4 kv_lens(%lens : memref<32xi32>)
      : memref<32x8x4x128xbf16>, memref<32x8x16384x128xbf16>,
        memref<32x8x16384x128xbf16>, memref<32x8x4x128xbf16>
  attn.attention %q4w, %kw, %kw into %q4w
      : memref<32x8x4x256xbf16>, memref<32x8x16384x256xbf16>,
        memref<32x8x16384x256xbf16>, memref<32x8x4x256xbf16>
  return
}
