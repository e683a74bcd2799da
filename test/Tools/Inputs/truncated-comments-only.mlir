// A causal, bf16, head-dim-128 attention with dynamic batch, heads and
// sequence lengths. Compile and run it on the CPU with the check:
//   build/bin/attn-run examples/attention.mlir --batch 2 --h