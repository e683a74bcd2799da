// The backward pass as the runtime would launch it: the tensors with
// run-time strides, the scale last.
!t = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @attn_bwd_bf16_d64_causal(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t,
                                    %lse: !r, %dq: !t, %dk: !t, %dv: !t,
                                    %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
