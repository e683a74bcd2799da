// A KV cache on the CPU path: attn-run --kv-lens gives each sequence its
// own key count (attn.attention kv_lens(...)); --paged P moves K and V into
// pages of P rows in a shuffled order with a block table (pages(...)).
// Rows past a sequence's keys, spare pages and unused table entries are
// poisoned (NaN rows, out-of-range page numbers): a kernel that reads one
// fails the check against the float64 reference of each sequence's own
// keys. Lengths of 0 (O = 0, LSE = -inf), 1, a partial last page and a full
// cache; causal alignment per sequence; GQA; split-KV over pages.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --batch 4 --heads 8 --kv-heads 2 --seq-q 1 --seq-k 300 --kv-lens 300,0,1,129 --lse --check | FileCheck %s --check-prefixes=CHECK,LENS
// RUN: attn-run --dtype f32 --head-dim 64 --batch 3 --heads 4 --kv-heads 2 --seq-q 7 --seq-k 300 --paged 64 --kv-lens 300,1,177 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,PAGED
// RUN: attn-run --dtype f16 --head-dim 64 --batch 4 --heads 2 --seq-q 3 --seq-k 100 --paged 16 --kv-lens 17,100,0,64 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,PAGED
// RUN: attn-run --dtype bf16 --head-dim 128 --batch 2 --heads 8 --kv-heads 1 --seq-q 1 --seq-k 1000 --paged 256 --lse --check | FileCheck %s --check-prefixes=CHECK,PAGED
// RUN: attn-run --dtype bf16 --head-dim 64 --batch 3 --heads 8 --kv-heads 2 --seq-q 1 --seq-k 700 --paged 32 --kv-lens 9,700,333 --kv-splits 5 --lse --check | FileCheck %s --check-prefixes=CHECK,PAGED

// LENS:        kv-cache=seqlens
// PAGED:       kv-cache=paged page=
// CHECK:       check O:
// CHECK:       check LSE:
// CHECK:       PASS

// Bad values are refused before anything runs.
// RUN: not attn-run --paged 24 2>&1 | FileCheck %s --check-prefix=POW2
// POW2: attn-run: error: --paged must be a power of two (the page size), got 24
// RUN: not attn-run --batch 3 --kv-lens 1,2 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: attn-run: error: kv-lens has 2 entries, expected one per sequence (batch 3)
// RUN: not attn-run --batch 2 --seq-k 50 --kv-lens 1,51 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not attn-run --batch 2 --seq-k 50 --kv-lens -1,5 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: attn-run: error: kv-lens[{{[01]}}] = {{-1|51}} is outside [0, seq-k = 50]
// RUN: not attn-run --paged 16 --target gpu 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: attn-run: error: unsupported: a KV cache (--kv-lens, --paged) or a packed batch (--varlen) on --target gpu: attn-run runs them on the CPU path
// RUN: not attn-run %s --paged 16 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: attn-run: error: --kv-lens, --paged, --varlen and --softcap need the problem from flags, not an input file
// RUN: not attn-run --paged 16 --block-kv 32 --seq-k 64 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: unsupported: page size 16 is not a multiple of the key block (Bc=32): a key block is read from one page
