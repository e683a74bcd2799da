// The backward of examples/attention-alibi.mlir (ALiBi, causal, head dim
// 128, bf16): dQ, dK, dV from dO and the forward's Q, K, V, O and LSE, with
// the same per-head slopes. attn-expand-alibi writes ALiBi as its score_mod
// region, and the tiling differentiates it in forward mode (the bias does
// not depend on the score: dS = P∘(dP − Δ) as without it). Written as the
// runtime launches the backward (KernelABI.h: tensors with run-time
// strides, the slopes just before the scale, the scale last), so attn-bundle
// puts its two kernels in the bundle and the runtime serves them to
// attn_backward_variant with alibi_slopes. On the CPU path:
//   build/bin/attn-run --backward --alibi --causal --dtype bf16 \
//       --head-dim 128 --seq-q 300 --check
func.func @attn_bwd_bf16_d128_causal_alibi(
    %do: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1]>>,
    %dq: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %dk: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %dv: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %delta: memref<?x?x?xf32, strided<[?, ?, 1]>>,
    %slopes: memref<?xf32>, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) alibi(%slopes : memref<?xf32>) {causal}
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?xf32, strided<[?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?xf32, strided<[?, ?, 1]>>
  return
}
