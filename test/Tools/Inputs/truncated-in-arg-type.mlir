// A causal, bf16, head-dim-128 attention with dynamic batch, heads and
// sequence lengths. Compile and run it on the CPU with the check:
//   build/bin/attn-run examples/attention.mlir --batch 2 --heads 8 \
//       --seq-q 512 --seq-k 512 --check
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf1