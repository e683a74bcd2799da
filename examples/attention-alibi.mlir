// ALiBi (BLOOM, MPT; FlashAttention's alibi_slopes): every scaled score
// gets −slopes[h]·|i + Nk − Nq − j| (bottom-right aligned), one f32 slope
// per query head, given at run time; causal, head dim 128, bf16, with the
// LSE. attn-expand-alibi writes it as a score_mod region (the slope once per
// program; under the causal mask the distance without |·|). Written as the
// runtime launches kernels (KernelABI.h: tensors with run-time strides, the
// slopes just before the scale, the scale last), so attn-bundle can put it
// in a bundle (the build's does) and the runtime serves it to ALiBi
// problems (ForwardProblem::alibi, attn_variant.alibi_slopes). On the CPU
// with fresh slopes and the check: build/bin/attn-run --alibi --causal
// --head-dim 128 --dtype bf16 --seq-q 1000 --check.
func.func @attn_fwd_bf16_d128_causal_alibi(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>, %slopes: memref<?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) alibi(%slopes : memref<?xf32>) {causal}
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>
  return
}
