// A causal, bf16, head-dim-128 attention with dynamic batch, heads and
// sequence lengths. Compile and run it on the CPU with the check:
//   build/bin/attn-run examples/attention.mlir --batch 2 --heads 8 \
//       --seq-q 512 --seq-k 512 --check
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
