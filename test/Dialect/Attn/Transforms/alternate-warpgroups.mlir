// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-alternate-warpgroups="min-warpgroups=2" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-alternate-warpgroups | FileCheck %s --check-prefix=THREE
// The pipeline's default: programs of three or more warpgroups only. Two
// warpgroups without a causal mask whose accumulators have at most 128
// columns may be added (noncausal-max-columns).
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-alternate-warpgroups="min-warpgroups=3 noncausal-max-columns=128" | FileCheck %s --check-prefix=NONCAUSAL

// bf16, D = 128, causal: two warpgroups (128x128 blocks), two key/value
// loops. Every product is issued in turn and waited for after passing the
// turn; the K and V slots are released after the waits.
// CHECK-LABEL: func.func @d128
// THREE-LABEL: func.func @d128
// THREE-NOT:     turn
// THREE:         return
// NONCAUSAL-LABEL: func.func @d128
// NONCAUSAL-NOT:     turn
// NONCAUSAL:         return
// CHECK:         scf.forall
// CHECK-NEXT:      attn.start_turns
// CHECK:           scf.for
// CHECK:             attn.ring_wait %[[KR:[0-9]+]][%[[SL:[0-9]+]]]
// CHECK:             attn.await_turn
// CHECK-NEXT:        %[[S:.*]] = attn.dot %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:        attn.pass_turn
// CHECK-NEXT:        attn.dot_wait %[[S]] {pending = 0 : i64}
// CHECK-NEXT:        attn.ring_release %[[KR]][%[[SL]]]
// CHECK:             attn.ring_wait %[[VR:[0-9]+]][%[[SL]]]
// CHECK:             attn.await_turn
// CHECK-NEXT:        %[[O:.*]] = attn.dot %{{.*}} {async}
// CHECK-NEXT:        attn.pass_turn
// CHECK-NEXT:        attn.dot_wait %[[O]] {pending = 0 : i64}
// CHECK-NEXT:        attn.ring_release %[[VR]][%[[SL]]]
// CHECK:             scf.yield
// CHECK:           scf.for
// CHECK:             attn.await_turn
// CHECK:             attn.await_turn
// CHECK:             scf.yield
// CHECK:           attn.end_turns
// CHECK-NEXT:    } {attn.grid = {{.*}}, attn.register_estimate
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// D = 64: one warpgroup a program (64x128 blocks): nothing to alternate.
// CHECK-LABEL: func.func @d64
// CHECK-NOT:     turn
// CHECK-NOT:     {async
// CHECK-NOT:     dot_wait
// CHECK:         return
func.func @d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
               %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// D = 64 with 192-row query blocks: three warpgroups take turns (with
// min-warpgroups=3 too).
// CHECK-LABEL: func.func @d64_tall
// CHECK:         attn.start_turns
// CHECK:           attn.await_turn
// CHECK-NEXT:      attn.dot %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:      attn.pass_turn
// CHECK:         attn.end_turns
// THREE-LABEL: func.func @d64_tall
// THREE:         attn.start_turns
// THREE:           attn.await_turn
// THREE:         attn.end_turns
// NONCAUSAL-LABEL: func.func @d64_tall
// NONCAUSAL:         attn.start_turns
func.func @d64_tall(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                    %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o {block_q = 192 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// With noncausal-max-columns = 128, two warpgroups without a causal mask
// take turns at D = 128 (the ragged end's mask is not causal) and not at
// D = 256 (O has 256 columns).
// THREE-LABEL: func.func @d128_full
// THREE-NOT:     turn
// THREE:         return
// NONCAUSAL-LABEL: func.func @d128_full
// NONCAUSAL:         attn.start_turns
// NONCAUSAL:           attn.await_turn
// NONCAUSAL:         attn.end_turns
func.func @d128_full(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// NONCAUSAL-LABEL: func.func @d256_full
// NONCAUSAL-NOT:     turn
// NONCAUSAL:         return
func.func @d256_full(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                     %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
