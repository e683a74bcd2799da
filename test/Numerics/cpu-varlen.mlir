// A packed batch (varlen) on the CPU path: attn-run --varlen packs sequences
// of the given query lengths (and --varlen-k key lengths, default the same)
// along the rows of [1, H, total, D] tensors with offsets cu_q, cu_k
// (attn.attention varlen(...)), and checks O and LSE against the float64
// reference of each sequence on its own rows and keys: a kernel that reads
// or writes across a sequence boundary, or aligns the causal mask to the
// packed batch instead of the sequence, fails. Empty sequences (no queries,
// or queries without keys: O = 0, LSE = -inf), a single row, a sequence
// longer than the block, GQA, causal and not.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --heads 8 --kv-heads 2 --varlen 5,64,1,300 --lse --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --heads 4 --kv-heads 2 --varlen 100,7,300 --varlen-k 50,20,301 --causal --lse --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --heads 2 --varlen 130,0,257,1 --varlen-k 10,5,0,1 --causal --lse --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --heads 2 --varlen 1,1,1 --varlen-k 1000,10,3 --lse --check | FileCheck %s

// CHECK:       varlen=
// CHECK:       check O:
// CHECK:       check LSE:
// CHECK:       PASS

// Bad values are refused before anything runs.
// RUN: not attn-run --varlen 3,-1 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: attn-run: error: varlen: sequence 1 has a negative length
// RUN: not attn-run --varlen 3,4 --varlen-k 3 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: attn-run: error: varlen: 2 query lengths but 1 key lengths
// RUN: not attn-run --varlen 3,4 --batch 2 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: attn-run: error: --batch follows from --varlen's lengths; do not give it
// RUN: not attn-run --varlen 3,4 --paged 16 2>&1 | FileCheck %s --check-prefix=CACHE
// CACHE: attn-run: error: unsupported: --varlen with a KV cache (--kv-lens, --paged) or --kv-splits
// RUN: not attn-run --varlen-k 3 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: attn-run: error: --varlen-k needs --varlen
// RUN: not attn-run --varlen 0,0 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: attn-run: error: --varlen: every query and key length is 0
// RUN: not attn-run --varlen 3 --target gpu 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: attn-run: error: unsupported: a KV cache (--kv-lens, --paged) or a packed batch (--varlen) on --target gpu
