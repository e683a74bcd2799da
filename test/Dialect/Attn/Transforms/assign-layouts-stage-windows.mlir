// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="stage-windows=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s --check-prefix=REGS
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="stage-windows=1" -attn-pipeline-kv-loop -attn-specialize-warpgroups -attn-persist-tiles="grids=2" | FileCheck %s --check-prefix=PROD

// A 16-bit score bias's [Br, Bc] window (128 x 128 bf16 at D = 128: rows
// of two 128-byte slabs) in a program of two consumer warpgroups: with
// stage-windows it is a slab tile in shared memory, read into the
// accumulator layout where the scores add it; its rows (and in the masked
// loop its columns) bounded by the bias's own dims, as a bulk copy bounds
// them. Without the option it is read straight into registers.
// CHECK-LABEL: func.func @bias
// CHECK-SAME:    %[[BIAS:[^:]+]]: memref<?x?x?x?xbf16>
// CHECK:       scf.for
// CHECK:         %[[NQ:.+]] = memref.dim %[[BIAS]], %{{c2.*}} : memref<?x?x?x?xbf16>
// CHECK:         %[[LEFT:.+]] = arith.subi %[[NQ]], %[[QSTART:[^ ]+]] : index
// CHECK:         %[[ROWS:.+]] = arith.minsi %[[LEFT]], %{{c128.*}} : index
// CHECK:         %[[W:.+]] = attn.load_tile %[[BIAS]][%{{.*}}, %{{.*}}, %[[QSTART]], %{{.*}}] rows %[[ROWS]] cols %{{c128.*}} : memref<?x?x?x?xbf16> -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>
// CHECK:         %[[R:.+]] = attn.convert_layout %[[W]] : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>
// CHECK:         arith.extf %[[R]]
// CHECK:       scf.for
// CHECK:         %[[NK:.+]] = memref.dim %[[BIAS]], %{{c3.*}} : memref<?x?x?x?xbf16>
// CHECK:         %[[KLEFT:.+]] = arith.subi %[[NK]], %[[KSTART:[^ ]+]] : index
// CHECK:         %[[COLS:.+]] = arith.minsi %[[KLEFT]], %{{c128.*}} : index
// CHECK:         attn.load_tile %[[BIAS]][%{{.*}}, %{{.*}}, %{{.*}}, %[[KSTART]]] rows %{{.*}} cols %[[COLS]] : memref<?x?x?x?xbf16> -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>

// REGS-LABEL: func.func @bias
// REGS:         attn.load_tile %{{.*}} cols %{{.*}} : memref<?x?x?x?xbf16> -> tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>
// REGS-NOT:     attn.convert_layout

// The producer fills the window's ring with bulk tensor copies beside K and
// V (a column window: its rows and columns reach the bias's end), and at
// 48 registers: a one-thread producer that claims tiles spilled 8 bytes at
// 40 with the window's copy.
// PROD-LABEL: func.func @bias
// PROD-SAME:    %[[BIAS:[^:]+]]: memref<?x?x?x?xbf16>
// (K's ring, then the window's, then V's.)
// PROD:         attn.alloc_ring : !attn.ring<2, tensor<128x128xbf16
// PROD-NEXT:    %[[RING:.+]] = attn.alloc_ring : !attn.ring<2, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// PROD:         attn.warp_specialize registers(consumers = 224, producer = 48)
// PROD:           attn.ring_wait %[[RING]]
// PROD:           attn.convert_layout
// PROD:         } producer {
// PROD:           attn.async_load_tile %[[BIAS]][{{.*}}] rows %{{.*}} cols %{{.*}}, %[[RING]][%{{.*}}] {bulk}
func.func @bias(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                %bias: memref<?x?x?x?xbf16>) {
  attn.attention %q, %k, %v into %o bias(%bias : memref<?x?x?x?xbf16>)
      {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// An f32 window of 64 keys is two 128-byte slabs a row: staged too, and so
// is D = 256's 16-bit window of 64 keys. An f32 one of a program of one
// warpgroup (no producer: 64 rows at D = 128 with block-q) stays in
// registers.
// CHECK-LABEL: func.func @f32_bias
// CHECK:         attn.load_tile %{{.*}} cols %{{.*}} : memref<?x?x?x?xf32> -> tensor<128x64xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>
// CHECK:         attn.convert_layout %{{.*}} : tensor<128x64xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>
// CHECK-LABEL: func.func @d256_bias
// CHECK:         attn.load_tile %{{.*}} cols %{{.*}} : memref<?x?x?x?xbf16> -> tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>
// CHECK-LABEL: func.func @one_warpgroup
// CHECK:         attn.load_tile %{{.*}} cols %{{.*}} : memref<?x?x?x?xf32> -> tensor<64x64xf32, #attn.mma<warps = 4, version = 3>>
func.func @f32_bias(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                    %bias: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %v into %o bias(%bias : memref<?x?x?x?xf32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
func.func @d256_bias(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                     %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>,
                     %bias: memref<?x?x?x?xbf16>) {
  attn.attention %q, %k, %v into %o bias(%bias : memref<?x?x?x?xbf16>)
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
func.func @one_warpgroup(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                         %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                         %bias: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %v into %o bias(%bias : memref<?x?x?x?xf32>)
      {block_q = 64 : i64, block_kv = 64 : i64}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
