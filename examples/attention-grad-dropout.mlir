// The backward of a dropout forward (examples/attention-dropout.mlir's, at
// head dim 64: non-causal, bf16): dQ, dK, dV from dO and the forward's Q,
// K, V, O and LSE, with the forward's rate, Philox key and offset, so that
// both passes drop the same probabilities (the key-major grid draws the
// mask transposed):
// dV = (P∘z)ᵀ·dO, dS = P∘(z∘dP − Δ), z = 1/(1 − p) where kept, 0 where
// dropped. Written as the runtime launches the backward (KernelABI.h:
// tensors with run-time strides, the scale, then the rate, key and offset),
// so attn-bundle puts its two kernels in the bundle and the runtime serves
// them to attn_backward_variant with dropout_p (at D = 128 the key-major
// grid's 64 queries a step spill with the Philox rounds on sm_90a, which
// the bundle does not take: libattn_jit builds that one). On the CPU path:
//   build/bin/attn-run --backward --dropout 0.1 --dtype bf16 \
//       --head-dim 64 --seq-q 300 --check
func.func @attn_bwd_bf16_d64_dropout(
    %do: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1]>>,
    %dq: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %dk: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %dv: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
    %delta: memref<?x?x?xf32, strided<[?, ?, 1]>>,
    %scale: f32, %p: f32, %seed: i64, %offset: i32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) dropout(%p, %seed, %offset)
      : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?xf32, strided<[?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?xf32, strided<[?, ?, 1]>>
  return
}
