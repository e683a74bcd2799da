// The backward pass (attn.attention_grad) on the CPU path: attn-run
// --backward builds dQ, dK, dV from fresh N(0,1) Q, K, V and dO, with O and
// the LSE of the float64 forward, NaN-poisoned outputs, and compares them
// with float64 gradients (relative error 1e-5 for f32, 2e-2 for f16/bf16)
// and Δ = rowsum(dO∘O) with its float64 value; a second run must be
// bit-identical (no atomics: each element is written once). Lengths that
// are not multiples of the blocks, Nq < Nk and Nq > Nk (causal rows that
// see no key get dQ = 0), GQA and MQA, Dv != D, a given scale; one compile
// per RUN line, every shape on fresh inputs. No problem has a single key:
// then P = 1 and Δ = dP, so dQ = dK = 0 exactly and their error is rounding
// measured against 0. Rows that see one or two keys (causal, Nq = 3) make
// dQ and dK sums of nearly cancelling terms, so those two also pass when
// their error is within the dtype's unit roundoff of the sums over the
// terms' sizes (rel_terms; f16 errs ~5e-5 of them, a wrong kernel ~1e-1).
//
// RUN: attn-run --backward --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 3 --more-seq 17,130,300 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 3 --more-seq 17,130,300 --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype bf16 --head-dim 128 --heads 8 --kv-heads 1 --seq-q 1 --seq-k 257 --more-seq 17,130,300 --causal --check | FileCheck %s --check-prefix=NK --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f16 --head-dim 64 --head-dim-v 32 --heads 2 --seq-q 3 --more-seq 17,130,300 --causal --scale 0.3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f32 --head-dim 32 --heads 3 --seq-q 300 --seq-k 70 --causal --check | FileCheck %s --check-prefix=SHORTK --implicit-check-not=FAIL

// CHECK:       Nq=3 Nk=3 {{.*}} backward
// CHECK:       check dQ:
// CHECK:       check dK:
// CHECK:       check dV:
// CHECK:       check delta:
// CHECK:       deterministic: second run bit-identical
// CHECK:       PASS
// CHECK:       same kernel, Nq=17 Nk=17
// CHECK:       PASS
// CHECK:       same kernel, Nq=130 Nk=130
// CHECK:       PASS
// CHECK:       same kernel, Nq=300 Nk=300
// CHECK:       PASS

// NK:          Nq=1 Nk=257
// NK:          PASS
// NK:          same kernel, Nq=17 Nk=257
// NK:          PASS
// NK:          same kernel, Nq=130 Nk=257
// NK:          PASS
// NK:          same kernel, Nq=300 Nk=257
// NK:          PASS

// SHORTK:      Nq=300 Nk=70
// SHORTK:      deterministic: second run bit-identical
// SHORTK:      PASS
