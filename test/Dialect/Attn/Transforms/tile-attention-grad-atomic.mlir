// RUN: attn-opt %s -split-input-file --attn-tile-attention --canonicalize --cse | FileCheck %s

// With an f32 dQ workspace on a warpgroup-MMA target, dQ is summed in the
// key-block grid (five products a block pair): grad_prep writes Δ and
// zeroes the workspace, grad_kv adds dQᵀ = Kᵀ·dS for each step's 64
// queries atomically into it, grad_q_out scales it into dQ.

!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
!w = memref<?x?x?x128xf32>

// CHECK-LABEL: func.func @atomic_dq
// CHECK:       scf.forall
// CHECK:         attn.store_tile %{{.*}}, %arg9[{{.*}}] rows %{{.*}} : tensor<64xf32>
// CHECK:         attn.store_tile %[[ZERO:.*]], %arg10[{{.*}}] rows %{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xf32>
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.program = "grad_prep"
// CHECK:       scf.forall
// CHECK:         %[[K:.*]] = attn.load_tile %arg2{{.*}} -> tensor<128x128xbf16>
// CHECK:         scf.for
// CHECK:           %[[Q:.*]] = attn.load_tile %arg1[%{{.*}}, %[[H:.*]], %[[ROW:.*]]] rows %[[N:.*]] : {{.*}} -> tensor<64x128xbf16>
// CHECK:           attn.dot %[[K]], %[[Q]], %{{.*}} {rhs_transposed}
// CHECK:           attn.dot %[[DS:[^,]*]], %[[Q]], %{{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK:           %[[DQT:.*]] = attn.dot %[[K]], %[[DS]], %{{.*}} {lhs_transposed} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK:           attn.accumulate_tile %[[DQT]], %arg10[%{{.*}}, %[[H]], %[[ROW]]] rows %[[N]] {transposed} : tensor<128x64xf32>, memref<?x?x?x128xf32>
// CHECK:       } {attn.grid = ["batch", "heads_kv", "kv_blocks"], attn.program = "grad_kv"
// CHECK:       scf.forall
// CHECK:         %[[ACC:.*]] = attn.load_tile %arg10{{.*}} -> tensor<64x128xf32>
// CHECK:         %[[DQ:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<64x128xf32>
// CHECK:         attn.store_tile %[[DQ]], %arg6{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xbf16>
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.program = "grad_q_out"
func.func @atomic_dq(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                     %dq: !t, %dk: !t, %dv: !t, %delta: !r, %ws: !w) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dq_accum(%ws : !w)
      {target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// Without warpgroup MMA (the CPU here) the workspace is left untouched and
// the deterministic grids run.

!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
!w = memref<?x?x?x128xf32>

// CHECK-LABEL: func.func @cpu_deterministic
// CHECK-NOT:   attn.accumulate_tile
// CHECK:       attn.program = "grad_q"
// CHECK-NOT:   attn.accumulate_tile
// CHECK:       attn.program = "grad_kv"
// CHECK-NOT:   grad_q_out
func.func @cpu_deterministic(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t,
                             %lse: !r, %dq: !t, %dk: !t, %dv: !t, %delta: !r,
                             %ws: !w) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dq_accum(%ws : !w)
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
