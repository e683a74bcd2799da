!t = memref<?x?x?x64xbf16>
!r = memref<?x?x?xf32>
func.func @bwd(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r, %dq: !t,
               %dk: !t, %dv: !t, %delta: !r) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
