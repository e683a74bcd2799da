// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products="programs=grad_q" | FileCheck %s --check-prefix=GRADQ
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_80" | attn-opt -split-input-file -attn-assign-layouts -attn-pipeline-kv-loop -attn-overlap-products | FileCheck %s --check-prefix=SM80

// The backward's two grids on wgmma (bf16, D = 128, no mask).
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
!t = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r, %dq: !t,
                %dk: !t, %dv: !t, %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale)
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// The forward's loop holds two products, each reading the other's result
// (S, then P·V): fewer than min-products, left synchronous.
// CHECK-LABEL: func.func @forward
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
