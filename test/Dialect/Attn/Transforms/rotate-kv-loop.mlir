// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-alternate-warpgroups="min-warpgroups=2" | FileCheck %s --check-prefix=TURNS
// causal-programs=0 min-columns=256: only programs without a causal mask whose
// P·V accumulator has at least 256 columns.
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop="causal-programs=0 min-columns=256" | FileCheck %s --check-prefix=DEFAULT
// RUN: not attn-opt %s -attn-rotate-kv-loop="causal-programs=2" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: pass option causal-programs must be 0 or 1 (the pipelines' rotate: -1, 0 or 1), got 2

// bf16, D = 128, not causal: two warpgroups on per-slot barriers. The
// unmasked loop is rotated by half an iteration:
//  - prologue (lb < ub): block lb's refill (K and V of block lb + 1), S_lb
//    (synchronous) and its softmax; it yields m, l, Õ = α·O and P;
//  - loop from lb + 1: S_j issued, then P_{j-1}·V_{j-1} (V's slot and fill
//    of block j − 1), S_j waited for alone (pending 1), K released, the
//    softmax, then P·V waited for (pending 0), V's slot released, Õ = α·O,
//    and V's refill after the release; P carried;
//  - epilogue (lb < ub): P·V of block ub − 1 into O.
// The loop of masked blocks (the ragged end) is left as it was.
// CHECK-LABEL: func.func @d128
// CHECK:         %[[KR:[0-9]+]] = attn.alloc_ring : !attn.ring<2
// CHECK-NEXT:    %[[VR:[0-9]+]] = attn.alloc_ring : !attn.ring<2
// CHECK:         %[[PRO:.*]]:4 = scf.if %[[NONEMPTY:[0-9]+]] -> ({{.*}}tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>) {
// CHECK:           attn.ring_acquire %[[KR]]
// CHECK:           attn.ring_acquire %[[VR]]
// CHECK:           attn.ring_wait %[[KR]]
// CHECK-NEXT:      %[[K0:.*]] = attn.ring_slot %[[KR]]
// CHECK-NEXT:      %[[S0:.*]] = attn.dot %{{.*}}, %[[K0]], %{{.*}} {rhs_transposed}
// CHECK-NEXT:      attn.ring_release %[[KR]]
// CHECK-NOT:       attn.dot
// CHECK:           %[[P0:.*]] = arith.truncf
// CHECK-NEXT:      scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[P0]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xbf16
// CHECK-NEXT:      scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]]
// CHECK:         %[[LB1:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[LOOP:.*]]:4 = scf.for %[[J:.*]] = %[[LB1]] to %[[UB:[^ ]+]] {{.*}} iter_args(%{{.*}} = %[[PRO]]#0, %{{.*}} = %[[PRO]]#1, %[[OPREV:.*]] = %[[PRO]]#2, %[[PPREV:.*]] = %[[PRO]]#3)
// CHECK:           scf.if
// CHECK-NOT:         attn.ring_acquire %[[VR]]
// CHECK:             attn.ring_acquire %[[KR]]
// CHECK-NOT:         attn.ring_acquire %[[VR]]
// CHECK:           }
// CHECK:           attn.ring_wait %[[KR]][%[[SL:[0-9]+]]]
// CHECK-NEXT:      %[[K:.*]] = attn.ring_slot %[[KR]][%[[SL]]]
// CHECK-NEXT:      %[[SA:.*]] = attn.dot %{{.*}}, %[[K]], %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:      %[[JM1:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[JP:.*]] = arith.subi %[[JM1]], %{{.*}} : index
// CHECK-NEXT:      %[[PSL:.*]] = arith.remui %[[JP]], %{{.*}} : index
// CHECK:           attn.ring_wait %[[VR]][%[[PSL]]] fill
// CHECK-NEXT:      %[[V:.*]] = attn.ring_slot %[[VR]][%[[PSL]]]
// CHECK-NEXT:      %[[OA:.*]] = attn.dot %[[PPREV]], %[[V]], %[[OPREV]] {async}
// CHECK-NEXT:      %[[S:.*]] = attn.dot_wait %[[SA]] {pending = 1 : i64}
// CHECK-NEXT:      attn.ring_release %[[KR]][%[[SL]]]
// CHECK-NEXT:      attn.reduce max %[[S]]
// P_j is converted once B(j − 1) is done, not into P_{j-1}'s registers,
// which the product in flight reads:
// CHECK-NOT:       arith.truncf
// CHECK:           %[[O:.*]] = attn.dot_wait %[[OA]] {pending = 0 : i64}
// CHECK-NEXT:      %[[P:.*]] = arith.truncf
// CHECK-NEXT:      attn.ring_release %[[VR]][%[[PSL]]]
// CHECK-NEXT:      %[[OS:.*]] = arith.mulf %{{.*}}, %[[O]]
// CHECK-NEXT:      scf.if
// CHECK-NOT:         attn.ring_acquire %[[KR]]
// CHECK:             attn.ring_acquire %[[VR]]
// CHECK:           }
// CHECK-NEXT:      scf.yield %{{.*}}, %{{.*}}, %[[OS]], %[[P]]
// CHECK:         } {attn.online_softmax
// CHECK-NEXT:    %[[EPI:.*]] = scf.if %[[NONEMPTY]] -> (tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>) {
// CHECK-NEXT:      %[[LAST:.*]] = arith.subi %[[UB]], %{{.*}} : index
// CHECK-NEXT:      %[[LP:.*]] = arith.subi %[[LAST]], %{{.*}} : index
// CHECK-NEXT:      %[[LSL:.*]] = arith.remui %[[LP]], %{{.*}} : index
// CHECK:           attn.ring_wait %[[VR]][%[[LSL]]]
// CHECK-NEXT:      %[[VL:.*]] = attn.ring_slot %[[VR]][%[[LSL]]]
// CHECK-NEXT:      %[[OL:.*]] = attn.dot %[[LOOP]]#3, %[[VL]], %[[LOOP]]#2 :
// CHECK-NEXT:      attn.ring_release %[[VR]][%[[LSL]]]
// CHECK-NEXT:      scf.yield %[[OL]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[LOOP]]#2
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[LOOP]]#0, %{{.*}} = %[[LOOP]]#1, %{{.*}} = %[[EPI]])
// CHECK-NOT:       {async
// CHECK:           attn.mask
// CHECK-NOT:       {async
// CHECK:           scf.yield

// DEFAULT-LABEL: func.func @d128
// DEFAULT-NOT:     {async
// DEFAULT:         return

// With turns (attn-alternate-warpgroups after): one turn covers both issues.
// TURNS-LABEL: func.func @d128
// TURNS:         attn.start_turns
// TURNS:         scf.for
// TURNS:           attn.await_turn
// TURNS-NEXT:      attn.dot %{{.*}} {async, rhs_transposed}
// TURNS:           attn.dot %{{.*}} {async}
// TURNS-NEXT:      attn.pass_turn
// TURNS-NEXT:      attn.dot_wait %{{.*}} {pending = 1 : i64}
// TURNS:           attn.dot_wait %{{.*}} {pending = 0 : i64}
// TURNS:         scf.for
// TURNS:           attn.await_turn
// TURNS-NEXT:      attn.dot %{{.*}} {async, rhs_transposed}
// TURNS-NEXT:      attn.pass_turn
// TURNS:         attn.end_turns
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// D = 64: one warpgroup, copy groups (no per-slot barriers): a refill at
// the top of iteration j relies on iteration j − 1 being over, so the loop
// is not rotated.
// CHECK-LABEL: func.func @d64
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

// D = 256 (128x64 blocks): rotated by default without a causal mask, not
// with one.
// CHECK-LABEL: func.func @d256
// CHECK:         attn.dot %{{.*}} {async, rhs_transposed}
// DEFAULT-LABEL: func.func @d256
// DEFAULT:         scf.for
// DEFAULT:           attn.dot %{{.*}} {async, rhs_transposed}
// DEFAULT-NEXT:      arith.subi
// DEFAULT:           attn.dot %{{.*}} {async}
// DEFAULT:         return
func.func @d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @d256_causal
// CHECK:         attn.dot %{{.*}} {async, rhs_transposed}
// DEFAULT-LABEL: func.func @d256_causal
// DEFAULT-NOT:     {async
// DEFAULT:         return
func.func @d256_causal(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                       %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
