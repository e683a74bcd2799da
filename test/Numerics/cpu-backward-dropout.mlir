// The backward pass with dropout (attn.attention_grad ... dropout(p, seed,
// offset)) on the CPU path: attn-run --backward --dropout P draws a fresh
// Philox key, computes O and the LSE of the dropped float64 forward (the
// reference's mask is the op's, Philox.h), and compares dQ, dK, dV with the
// float64 gradients of the same dropped forward: dV = (P∘z)ᵀ·dO,
// dS = P∘(z∘dP − Δ), z = 1/(1 − p) where kept and 0 where dropped. A kernel
// that ignored the mask, or drew a different one (the key-major grid reads
// it transposed), fails the bound. GQA, causal with Nq ≠ Nk, lengths that
// are not multiples of the blocks, a Philox offset past 2^31, a high rate.
//
// RUN: attn-run --backward --dropout 0.2 --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 37 --more-seq 130,300 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --backward --dropout 0.5 --dtype bf16 --head-dim 128 --heads 2 --seq-q 100 --seq-k 257 --causal --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
// RUN: attn-run --backward --dropout 0.9 --dtype f16 --head-dim 64 --heads 3 --seq-q 77 --seq-k 50 --causal --dropout-offset 4000000000 --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
// RUN: not attn-run --backward --dropout 0.1 --target gpu --check 2>&1 | FileCheck %s --check-prefix=GPU

// CHECK:       dropout p=0.2
// CHECK:       Nq=37 Nk=37 {{.*}} backward
// CHECK:       check dQ:
// CHECK:       check dK:
// CHECK:       check dV:
// CHECK:       deterministic: second run bit-identical
// CHECK:       PASS
// CHECK:       same kernel, Nq=130 Nk=130
// CHECK:       PASS
// CHECK:       same kernel, Nq=300 Nk=300
// CHECK:       PASS

// ONE:         dropout p=
// ONE:         check dQ:
// ONE:         check dK:
// ONE:         check dV:
// ONE:         PASS

// GPU: unsupported: --dropout with --backward on the GPU
