// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s

// Programs whose key blocks come from block lists (block_mask, full_blocks)
// on sm_90a: their tiles are as long as their lists, so they claim them
// where the consumers keep room, a document mask's gathers included; the
// producer then walks the lists in one thread with 48 registers.
// CHECK-LABEL: gpu.func @documents_kernel
// CHECK-SAME:    register_estimate = {{[0-9]+}}, persistent = true, tile_counter = true>
// CHECK:         nvvm.setmaxregister increase 224
// CHECK:         nvvm.setmaxregister decrease 48
// CHECK:         llvm.atomicrmw
func.func @documents(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %counts: memref<?x1x?xi32>, %indices: memref<?x1x?x?xi32>,
                     %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// At D = 256 a gathering listed program keeps a block per tile (claimed,
// its consumers spilled 32 B); with one list its producer keeps 24
// registers ...
// CHECK-LABEL: gpu.func @documents_d256_kernel
// CHECK-SAME:    register_estimate = {{[0-9]+}}>
// CHECK:         nvvm.setmaxregister increase 240
// CHECK:         nvvm.setmaxregister decrease 24
// CHECK-NOT:     llvm.atomicrmw
func.func @documents_d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                          %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>,
                          %counts: memref<?x1x?xi32>,
                          %indices: memref<?x1x?x?xi32>,
                          %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}

// -----

// ... and with two (full_blocks beside block_mask) 32: at 24 it spilled 12
// bytes.
// CHECK-LABEL: gpu.func @documents_full_d256_kernel
// CHECK-SAME:    register_estimate = {{[0-9]+}}>
// CHECK:         nvvm.setmaxregister increase 232
// CHECK:         nvvm.setmaxregister decrease 32
// CHECK-NOT:     llvm.atomicrmw
func.func @documents_full_d256(%q: memref<?x?x?x256xbf16>,
                               %k: memref<?x?x?x256xbf16>,
                               %v: memref<?x?x?x256xbf16>,
                               %o: memref<?x?x?x256xbf16>,
                               %counts: memref<?x1x?xi32>,
                               %indices: memref<?x1x?x?xi32>,
                               %full_counts: memref<?x1x?xi32>,
                               %full_indices: memref<?x1x?x?xi32>,
                               %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
