// GQA decoding on the CPU path: for one query row, attn-run runs the GPU
// runtime's packed view (the G query heads of a key/value head as G rows of
// one head, non-causal: a single query row sees every key either way) over
// the same bytes of Q, O and the LSE, and a query block that fits the short
// query (16 rows; 32 and 64 for up to that many). Every case is checked
// against the float64 reference of the unpacked problem, causal or not,
// with the LSE, a KV cache with ragged and empty sequences, pages and a
// soft-cap.
//
// RUN: attn-run --target cpu --dtype bf16 --head-dim 128 --batch 2 --heads 8 --kv-heads 2 --seq-q 1 --seq-k 300 --lse --check | FileCheck %s --check-prefixes=CHECK,PACKED
// RUN: attn-run --target cpu --dtype f32 --head-dim 64 --batch 3 --heads 12 --kv-heads 3 --seq-q 1 --seq-k 517 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,PACKED
// RUN: attn-run --target cpu --dtype f16 --head-dim 64 --batch 4 --heads 8 --kv-heads 1 --seq-q 1 --seq-k 300 --kv-lens 300,0,1,129 --paged 64 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,PACKED8
// RUN: attn-run --target cpu --dtype bf16 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 1 --seq-k 1000 --softcap 20 --check | FileCheck %s --check-prefixes=CHECK,PACKED2
//
// Not packed: ALiBi's slope is the query head's, a window places the row
// by its position, and other query lengths are positions; their query
// blocks still fit the query.
// RUN: attn-run --target cpu --dtype bf16 --head-dim 64 --heads 8 --kv-heads 2 --seq-q 1 --seq-k 300 --alibi --check | FileCheck %s --check-prefixes=CHECK,ONE --implicit-check-not=gqa-packed
// RUN: attn-run --target cpu --dtype bf16 --head-dim 64 --heads 8 --kv-heads 2 --seq-q 1 --seq-k 300 --window 64,0 --check | FileCheck %s --check-prefixes=CHECK,ONE --implicit-check-not=gqa-packed
// RUN: attn-run --target cpu --dtype bf16 --head-dim 64 --heads 8 --kv-heads 2 --seq-q 40 --seq-k 300 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,FORTY --implicit-check-not=gqa-packed
// RUN: attn-run --target cpu --dtype bf16 --head-dim 64 --heads 8 --kv-heads 2 --seq-q 130 --seq-k 300 --causal --check | FileCheck %s --check-prefixes=CHECK,LONG --implicit-check-not=gqa-packed
// A file's op keeps its own blocks (a block mask's rows must divide the
// mask's 32-row blocks: a 64-row query block would not compile).
// RUN: attn-run %S/Inputs/block-mask-window.mlir --heads 2 --seq-q 40 --seq-k 100 --check | FileCheck %s --check-prefixes=CHECK,LONG --implicit-check-not=gqa-packed

// PACKED:   gqa-packed=4 rows a head block-q=16
// PACKED8:  gqa-packed=8 rows a head block-q=16
// PACKED2:  gqa-packed=2 rows a head block-q=16
// ONE:      block-q=16
// FORTY:    block-q=64
// LONG-NOT: block-q=
// CHECK:    check O:
// CHECK:    PASS
