// The backward of the forward's score variants on the CPU path: attn-run
// --backward with --window, --softcap and --alibi builds dQ, dK, dV from
// fresh N(0,1) Q, K, V and dO (O and the LSE from the float64 forward with
// the same variant), NaN-poisoned outputs, and compares them with float64
// gradients whose modifier derivative is computed apart from the
// compiler's (the soft-cap's 1 − tanh², ALiBi's 1). One compile per RUN
// line, shapes that are not multiples of the blocks, GQA, Nq != Nk; a
// causal window and a two-sided one wide enough that each masked block
// range crosses one edge (L + R >= Br + Bc − 2: 158 for the CPU's key-major
// steps of 32 queries against 128 keys at D = 32) and narrow ones that
// cross both; the second run bit-identical.
//
// RUN: attn-run --backward --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 100 --seq-k 130 --more-seq 7,200 --window 20,10 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f32 --head-dim 32 --heads 2 --seq-q 300 --seq-k 500 --more-seq 257 --window 200,-1 --causal --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f32 --head-dim 32 --heads 2 --seq-q 400 --seq-k 350 --more-seq 129 --window 150,40 --check | FileCheck %s --check-prefix=TWO --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f32 --head-dim 64 --heads 4 --kv-heads 1 --seq-q 100 --seq-k 130 --more-seq 7,200 --softcap 3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype f16 --head-dim 64 --heads 4 --kv-heads 2 --seq-q 100 --seq-k 130 --more-seq 7,200 --alibi --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dtype bf16 --head-dim 128 --heads 2 --seq-q 100 --seq-k 130 --more-seq 7,200 --softcap 2 --window 40,-1 --causal --check | FileCheck %s --implicit-check-not=FAIL

// CHECK:       Nq=100 Nk=130 {{.*}} backward
// CHECK:       check dQ:
// CHECK:       check dK:
// CHECK:       check dV:
// CHECK:       check delta:
// CHECK:       deterministic: second run bit-identical
// CHECK:       PASS
// CHECK:       same kernel, Nq=7 Nk=130
// CHECK:       PASS
// CHECK:       same kernel, Nq=200 Nk=130
// CHECK:       PASS

// TWO:         Nq=400 Nk=350
// TWO:         PASS
// TWO:         same kernel, Nq=129 Nk=350
// TWO:         PASS

// ONE:         Nq=300 Nk=500
// ONE:         PASS
// ONE:         same kernel, Nq=257 Nk=500
// ONE:         PASS
