// The backward of a soft-capped forward (Gemma 2's cap of 50 on the
// scaled scores, S' = 50·tanh(S/50); causal, head dim 128 as Gemma 2 27B's,
// bf16): dS = P∘(dP − Δ)∘(1 − (S'/50)²), the cap's derivative taken from
// the same tanh the forward used. Written as the runtime launches the
// backward (KernelABI.h), so attn-bundle puts its two kernels in the
// bundle and the runtime serves them to attn_backward_variant with
// softcap = 50. On the CPU path:
//   build/bin/attn-run --backward --softcap 50 --causal --dtype bf16 \
//       --head-dim 128 --seq-q 300 --check
func.func @attn_bwd_bf16_d128_causal_sc50(
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
    %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) {causal, softcap = 50.0 : f32}
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
