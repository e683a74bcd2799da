// The backward with 64 queries a step in its key-block grid: at D = 128
// that grid spills while the query-block grid does not.
!t = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @bwd_spill(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                     %dq: !t, %dk: !t, %dv: !t, %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) {causal, block_q = 64}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
