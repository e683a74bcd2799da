// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups | FileCheck %s
// With rotation, and the pipelines' default that leaves overlapped programs
// alone:
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups | FileCheck %s --check-prefix=ROT
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups="overlapped-programs=0" | FileCheck %s --check-prefix=NOROT
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups="bulk-copies=0" | FileCheck %s --check-prefix=CPASYNC --implicit-check-not={bulk}
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups="bulk-copies=0 producer-registers=24" | FileCheck %s --check-prefix=REGS
// RUN: not attn-opt %s -attn-specialize-warpgroups="warpgroups=2" 2>&1 | FileCheck %s --check-prefix=BADWG
// RUN: not attn-opt %s -attn-specialize-warpgroups="producer-registers=30" 2>&1 | FileCheck %s --check-prefix=BADREGS
// RUN: not attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups="producer-registers=168 consumer-registers=200" 2>&1 | FileCheck %s --check-prefix=OVER
// BADWG: unsupported: 2 producer warpgroups (pass option warpgroups; one is supported)
// BADREGS: pass option producer-registers must be -1, 0 or a multiple of 8 in [24, 256], got 30
// RUN: not attn-opt %s -attn-specialize-warpgroups="bulk-copies=2" 2>&1 | FileCheck %s --check-prefix=BADBULK
// BADBULK: pass option bulk-copies must be -1, 0 or 1, got 2
// OVER: unsupported: 200 registers for each of 256 consumer threads and 168 for each of 128 producer threads exceed the 64512 the launch of 384 threads holds (168 each; setmaxnreg would wait forever)

// bf16, D = 128: two consumer warpgroups on per-slot barriers. The rings
// are allocated first (both roles use them); the consumers keep the waits,
// the products and the releases, without a single copy; the producer gets
// Q's copy, the prologue's fills of block 0, and a copy of each loop (no
// loop-carried values) with its refills and their guards. On sm_90a every
// copy is a whole tile or a tile cut at the source's end, so all of them
// become bulk tensor copies ({bulk}); such a producer keeps 24 registers
// and the consumers get (168·384 − 128·24) / 256 → 240.
// CHECK-LABEL: func.func @d128
// CHECK:         scf.forall
// CHECK-NEXT:      %[[KR:.*]] = attn.alloc_ring : !attn.ring<2
// CHECK-NEXT:      %[[VR:.*]] = attn.alloc_ring : !attn.ring<2
// CHECK-NEXT:      %[[QR:.*]] = attn.alloc_ring : !attn.ring<1
// CHECK-NEXT:      attn.warp_specialize registers(consumers = 240, producer = 24) {
// CHECK-NOT:         attn.async_load_tile
// CHECK-NOT:         attn.ring_acquire
// CHECK-NOT:         attn.async_arrive
// CHECK:             attn.ring_wait %[[QR]]
// CHECK:             scf.for {{.*}} iter_args
// CHECK:               attn.ring_wait %[[KR]]
// CHECK:               attn.dot
// CHECK:               attn.ring_release %[[KR]]
// CHECK:               attn.ring_wait %[[VR]]
// CHECK:               attn.dot
// CHECK:               attn.ring_release %[[VR]]
// CHECK:             scf.for {{.*}} iter_args
// CHECK:             attn.store_tile
// CHECK:           } producer {
// CHECK-NOT:         attn.ring_wait
// CHECK-NOT:         attn.dot
// CHECK-NOT:         attn.ring_release
// CHECK:             attn.async_load_tile %{{.*}}, %[[QR]][%{{.*}}] {bulk}
// CHECK-NEXT:        attn.async_arrive %[[QR]]
// CHECK:             scf.if
// CHECK:               attn.ring_acquire %[[KR]]
// CHECK-NEXT:          attn.async_load_tile %{{.*}}, %[[KR]][%{{.*}}] {bulk}
// CHECK-NEXT:          attn.async_arrive %[[KR]]
// CHECK:               attn.ring_acquire %[[VR]]
// CHECK:             scf.for %[[J:[^ ]*]] = {{[^ ]*}} to {{[^ ]*}} step {{[^ ]*}} {
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addi %[[J]]
// CHECK-NEXT:          %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]]
// CHECK-NEXT:          scf.if %[[MORE]] {
// CHECK:                 attn.ring_acquire %[[KR]]
// CHECK:                 attn.ring_acquire %[[VR]]
// CHECK:             scf.for
// CHECK-NOT:         attn.store_tile
// CHECK:           {{^ +}$}}
// CHECK-NEXT:      }
// With cp.async the producer keeps each thread's copy addresses: 80
// registers, 208 for the consumers; REGS forces a cp.async producer down
// to 24.
// CPASYNC-LABEL: func.func @d128
// CPASYNC:         attn.warp_specialize registers(consumers = 208, producer = 80) {
// CPASYNC:         } producer {
// CPASYNC:           attn.async_load_tile
// CPASYNC:         {{^ +}$}}
// REGS-LABEL: func.func @d128
// REGS:         attn.warp_specialize registers(consumers = 240, producer = 24)
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// D = 256, rotated: the prologue and epilogue guards carry the softmax
// state; the producer keeps only their fills.
// ROT-LABEL: func.func @d256
// ROT:         attn.warp_specialize
// ROT:           attn.dot {{.*}} {async, rhs_transposed}
// ROT:         } producer {
// ROT-NOT:       attn.dot
// ROT:           attn.async_load_tile
// NOROT-LABEL: func.func @d256
// NOROT-NOT:   attn.warp_specialize
func.func @d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}

// -----

// D = 64 copies in groups (program-wide waits): left alone.
// CHECK-LABEL: func.func @d64
// CHECK-NOT:     attn.warp_specialize
// CHECK:         attn.async_commit
func.func @d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
               %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Block sparsity with full blocks: the consumers count the full list's
// leading whole entries with a scan (scf.while of scalar loads and
// comparisons) that bounds their unmasked loop; the producer clones the
// scan whole, so that its copies walk the same segments: the unmasked
// entries [0, W), the rest of the full list, then the partial list.
// CHECK-LABEL: func.func @full_lists
// CHECK:         attn.warp_specialize
// CHECK:           %[[W:.+]] = scf.while
// CHECK:           scf.for %{{.*}} = %{{c0(_[0-9]+)?}} to %[[W]]
// CHECK:         } producer {
// CHECK:           %[[PW:.+]] = scf.while
// CHECK:             memref.load
// CHECK:             scf.condition
// CHECK:           scf.for %{{.*}} = %{{c0(_[0-9]+)?}} to %[[PW]] step
// CHECK:             attn.async_load_tile
// CHECK:           scf.for %{{.*}} = %[[PW]] to
// CHECK:             attn.async_load_tile
func.func @full_lists(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                      %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                      %cnt: memref<?x1x?xi32>, %idx: memref<?x1x?x?xi32>,
                      %fcnt: memref<?x1x?xi32>, %fidx: memref<?x1x?x?xi32>,
                      %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%cnt, %idx : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%fcnt, %fidx : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
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
