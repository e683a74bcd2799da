// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products="programs=grad_q" | FileCheck %s --check-prefix=GRADQ
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_80" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products | FileCheck %s --check-prefix=SM80
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products="programs=attention min-products=2" | FileCheck %s --check-prefix=FWD
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-overlap-products="min-products=0" 2>&1 | FileCheck %s --check-prefix=MIN0
// MIN0: <unknown>:0: error: pass option min-products must be at least 1, got 0
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-overlap-products="programs=grad_x" 2>&1 | FileCheck %s --check-prefix=PROG
// PROG: <unknown>:0: error: pass option programs: unknown program 'grad_x' (expected attention, split_kv, merge_splits, grad_q, grad_kv, grad_prep, grad_q_out or block_lists)

// The backward's two grids on wgmma (bf16, D = 64, no mask: copy groups).
//
// grad_q: S = Q·Kᵀ and dP = dO·Vᵀ start back to back; the wait for S lets
// dP run on (pending = 1) under P = exp(scale·S − LSE); dQ += dS·K is
// waited for at the end of the step, where the next step needs it.
// CHECK-LABEL: func.func @grad
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             %[[K:.*]] = attn.ring_slot
// CHECK-NEXT:        %[[V:.*]] = attn.ring_slot
// CHECK-NEXT:        %[[S:.*]] = attn.dot %{{.*}}, %[[K]], %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:        %[[DP:.*]] = attn.dot %{{.*}}, %[[V]], %{{.*}} {async, rhs_transposed}
// CHECK:             attn.dot_wait %[[S]] {pending = 1 : i64}
// CHECK:             math.exp
// CHECK:             attn.dot_wait %[[DP]] {pending = 0 : i64}
// CHECK:             %[[DQ:.*]] = attn.dot %{{.*}}, %[[K]], %{{.*}} {async}
// CHECK-NEXT:        %[[DQW:.*]] = attn.dot_wait %[[DQ]] {pending = 0 : i64}
// CHECK-NEXT:        scf.yield %[[DQW]]
//
// grad_kv: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ start together (dPᵀ moved up past
// dV += Pᵀ·dO, which needs Pᵀ); dPᵀ runs under the exponentials, dV under
// dSᵀ = Pᵀ∘(dPᵀ − Δ); the per-column LSE and Δ loads only read memory, so
// the products start above them.
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[Q:.*]] = attn.ring_slot
// CHECK-NEXT:          %[[DO:.*]] = attn.ring_slot
// CHECK-NEXT:          %[[ST:.*]] = attn.dot %{{.*}}, %[[Q]], %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:          %[[DPT:.*]] = attn.dot %{{.*}}, %[[DO]], %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:          attn.load_tile
// CHECK-NEXT:          attn.load_tile
// CHECK:               attn.dot_wait %[[ST]] {pending = 1 : i64}
// CHECK:               math.exp
// CHECK:               %[[DV:.*]] = attn.dot %{{.*}}, %[[DO]], %{{.*}} {async}
// CHECK:               attn.dot_wait %[[DPT]] {pending = 1 : i64}
// CHECK:               %[[DK:.*]] = attn.dot %{{.*}}, %[[Q]], %{{.*}} {async}
// CHECK-NEXT:          %[[DVW:.*]] = attn.dot_wait %[[DV]] {pending = 1 : i64}
// CHECK-NEXT:          %[[DKW:.*]] = attn.dot_wait %[[DK]] {pending = 0 : i64}
// CHECK-NEXT:          scf.yield %[[DKW]], %[[DVW]]
//
// With programs=grad_q the key-major grid keeps its synchronous products.
// GRADQ-LABEL: func.func @grad
// GRADQ:         attn.dot {{.*}} {async, rhs_transposed}
// GRADQ:         attn.program = "grad_q"
// GRADQ-NOT:     {async
// GRADQ-NOT:     dot_wait
// GRADQ:         attn.program = "grad_kv"
//
// mma.sync has no asynchronous products: nothing changes.
// SM80-LABEL: func.func @grad
// SM80-NOT:     {async
// SM80-NOT:     dot_wait
// SM80:         return
!t = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r, %dq: !t,
                %dk: !t, %dv: !t, %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale)
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// D = 128: grad_kv is one flat loop on per-slot barriers (ring_wait /
// ring_release). A product does not start above the wait of the slot it
// reads, and is waited for before that slot's release: dV += Pᵀ·dO and
// dPᵀ = V·dOᵀ both finish before dO's slot goes back to the producer.
// CHECK-LABEL: func.func @grad_d128
// CHECK:         attn.program = "grad_q"
// CHECK:         scf.for
// CHECK:           attn.ring_wait %{{[0-9]+}}[%{{[0-9]+}}]
// CHECK:           attn.ring_wait %[[DOR:[0-9]+]][%[[SL:[0-9]+]]]
// CHECK-NEXT:      %[[DO:[0-9]+]] = attn.ring_slot %[[DOR]][%[[SL]]]
// CHECK:           %[[DV:.*]] = attn.dot %{{.*}}, %[[DO]], %{{.*}} {async}
// CHECK-NEXT:      %[[DPT:.*]] = attn.dot %{{.*}}, %[[DO]], %{{.*}} {async, rhs_transposed}
// CHECK-NEXT:      attn.dot_wait %[[DV]] {pending = 1 : i64}
// CHECK-NEXT:      attn.dot_wait %[[DPT]] {pending = 0 : i64}
// CHECK-NEXT:      attn.ring_release %[[DOR]][%[[SL]]]
!t128 = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r128 = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @grad_d128(%do: !t128, %q: !t128, %k: !t128, %v: !t128, %o: !t128,
                     %lse: !r128, %dq: !t128, %dk: !t128, %dv: !t128,
                     %delta: !r128, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale)
      : !t128, !t128, !t128, !t128, !t128, !r128, !t128, !t128, !t128, !r128
  return
}

// -----

// The forward's loop holds two products, each reading the other's result
// (S, then P·V): fewer than min-products, left synchronous. A grid without
// attn.program is the forward's ("attention"); with min-products=2 its
// products are asynchronous but each is waited for before its value is
// read or its slot released: S right away, P·V before V's release.
// CHECK-LABEL: func.func @forward
// FWD-LABEL:   func.func @forward
// FWD:           %[[S:.*]] = attn.dot {{.*}} {async, rhs_transposed}
// FWD-NEXT:      attn.dot_wait %[[S]] {pending = 0 : i64}
// FWD:           %[[O:.*]] = attn.dot {{.*}} {async}
// FWD-NEXT:      attn.dot_wait %[[O]] {pending = 0 : i64}
// FWD-NEXT:      attn.ring_release
// CHECK-NOT:     {async
// CHECK-NOT:     dot_wait
// CHECK:         return
func.func @forward(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                   %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
