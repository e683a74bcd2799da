// RUN: attn-opt %s --attn-tile-attention --canonicalize --cse --attn-assign-layouts="wgmma=0" -verify-diagnostics

// Only wgmma programs stage a computed right operand (dS for dQᵀ = Kᵀ·dS)
// through shared memory: forced onto mma.sync, the five-product key-block
// grid is refused, not lowered wrongly.

!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
!w = memref<?x?x?x128xf32>

func.func @staging_on_mma_sync(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t,
                               %lse: !r, %dq: !t, %dk: !t, %dv: !t,
                               %delta: !r, %ws: !w) {
  // expected-error @+1 {{unsupported: a computed right operand of attn.dot on mma.sync (only wgmma programs stage one through shared memory)}}
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dq_accum(%ws : !w)
      {target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
