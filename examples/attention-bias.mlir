// An additive score bias (SDPA's float attn_mask, T5's relative positions
// computed outside, key padding as -inf): every scaled score S of batch b,
// query head h, query i and key j becomes S + bias[b', h', i, j], with bias
// [1|B, 1|Hq, Nq, Nk] (b' = 0 where its batch dim is 1, h' likewise) in the
// inputs' type, widened to f32. Non-causal, head dim 128, bf16, with the LSE.
// Written as the runtime launches kernels (KernelABI.h: tensors with run-time
// strides, the bias just before the scale, the scale last), so attn-bundle
// can put it in a bundle (the build's does) and the runtime serves it to
// problems with a bf16 bias (ForwardProblem::bias, attn_variant.bias). On
// the CPU with a fresh bias and the check: build/bin/attn-run
// examples/attention-bias.mlir --bias --batch 2 --heads 4 --seq-q 300
// --check.
func.func @attn_fwd_bf16_d128_bias(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>,
    %bias: memref<?x?x?x?xbf16, strided<[?, ?, ?, 1]>>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) bias(%bias : memref<?x?x?x?xbf16, strided<[?, ?, ?, 1]>>)
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>
  return
}
