// Attention dropout (FlashAttention's dropout_p, for training): every
// probability is kept with probability 1 − p and scaled by 1/(1 − p), or
// dropped, after the softmax and before P·V; the mask is Philox4x32-10 keyed
// by the seed, its counter's last word the offset (attn.attention's
// description defines it; attn/runtime/Philox.h computes it on the host).
// Non-causal, head dim 128, bf16, with the LSE (undropped). Written as the
// runtime launches kernels (KernelABI.h: tensors with run-time strides, the
// scale, then the rate, Philox key and offset), so attn-bundle can put it in
// a bundle (the build's does) and the runtime serves it to dropout problems
// (ForwardProblem::dropout, attn_variant.dropout_p). On the CPU with a fresh
// key and the check: build/bin/attn-run --dropout 0.1 --head-dim 128
// --dtype bf16 --seq-q 1000 --check.
func.func @attn_fwd_bf16_d128_dropout(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>, %scale: f32, %p: f32, %seed: i64,
    %offset: i32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) dropout(%p, %seed, %offset)
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>
  return
}
