// A problem whose values are narrower than its keys (D = 192 for Q and K,
// Dv = 128 for V and O, as DeepSeek's multi-head latent attention has):
// causal, with the log-sum-exp, bf16, any batch, heads and lengths.
func.func @attn_fwd_bf16_d192_v128_causal(
    %q: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) {causal}
      : memref<?x?x?x192xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x192xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>
  return
}
