// RUN: attn-opt %s -attn-tile-attention -cse | FileCheck %s --check-prefix=TILE \
// RUN:   --implicit-check-not=attn.softmax_scale
// RUN: attn-opt %s -attn-tile-attention -attn-fuse-online-softmax -cse | FileCheck %s --check-prefix=FUSED \
// RUN:   --implicit-check-not=attn.softmax

// A run-time scale (scale(%s), here the function's f32 argument %arg5).
//
// Tiling: the naive form multiplies by tensor.splat %s where a constant
// scale would be an arith.constant tile (exp(s·(S − m)) in the sum and pv
// passes, s·m in the LSE), and leaves the loops without attn.softmax_scale
// (the RUN line's implicit CHECK-NOT scans all of the output).

// TILE-LABEL: func.func @dynamic
// TILE-SAME:    %[[S:[^:]+]]: f32)
// TILE:         scf.forall
// TILE-NOT:       tensor.splat
// TILE:           } {attn.softmax_pass = "max"}
// TILE:           } {attn.softmax_pass = "max"}
// TILE:           scf.for
// TILE:             %[[SS:.*]] = tensor.splat %[[S]] : tensor<32x16xf32>
// TILE:             %[[X:.*]] = arith.mulf %{{.*}}, %[[SS]] : tensor<32x16xf32>
// TILE:             math.exp %[[X]] : tensor<32x16xf32>
// TILE:           } {attn.softmax_pass = "sum"}
// TILE:             tensor.splat %[[S]] : tensor<32x16xf32>
// TILE:           } {attn.softmax_pass = "sum"}
// TILE:             tensor.splat %[[S]] : tensor<32x16xf32>
// TILE:           } {attn.softmax_pass = "pv"}
// TILE:             tensor.splat %[[S]] : tensor<32x16xf32>
// TILE:           } {attn.softmax_pass = "pv"}
// TILE:           attn.store_tile %{{.*}}, %arg3
// LSE = s·m + log(l):
// TILE:           %[[SR:.*]] = tensor.splat %[[S]] : tensor<32xf32>
// TILE:           arith.mulf %{{.*}}, %[[SR]] : tensor<32xf32>
// TILE:           math.log
// TILE:           attn.store_tile %{{.*}}, %arg4

// Fusion: c = s·log2(e) once per program, ahead of the loops, in f32; the
// exponents are (S − m')·splat(c) and (m − m')·splat(c). The fused loops
// carry no attn.softmax_scale (there is no constant to give), and no
// attn.softmax_* tag is left anywhere (the implicit CHECK-NOT).

// FUSED-LABEL: func.func @dynamic
// FUSED-SAME:    %[[S:[^:]+]]: f32)
// FUSED:         scf.forall
// FUSED:           %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// FUSED:           %[[C:.*]] = arith.mulf %[[S]], %[[LOG2E]] : f32
// FUSED:           %[[H:.*]]:3 = scf.for
// FUSED:             %[[SD:.*]] = arith.subf
// FUSED:             %[[CS:.*]] = tensor.splat %[[C]] : tensor<32x16xf32>
// FUSED:             %[[X:.*]] = arith.mulf %[[SD]], %[[CS]] : tensor<32x16xf32>
// FUSED:             math.exp2 %[[X]] : tensor<32x16xf32>
// FUSED:             %[[MD:.*]] = arith.subf
// FUSED:             %[[CR:.*]] = tensor.splat %[[C]] : tensor<32xf32>
// FUSED:             %[[AX:.*]] = arith.mulf %[[MD]], %[[CR]] : tensor<32xf32>
// FUSED:             math.exp2 %[[AX]] : tensor<32xf32>
// FUSED:           } {attn.online_softmax}
// FUSED:           scf.for {{.*}} iter_args(%{{.*}} = %[[H]]#0, %{{.*}} = %[[H]]#1, %{{.*}} = %[[H]]#2)
// FUSED:             attn.mask
// FUSED:             tensor.splat %[[C]] : tensor<32x16xf32>
// FUSED:             tensor.splat %[[C]] : tensor<32xf32>
// FUSED:           } {attn.online_softmax}
// FUSED:           attn.store_tile %{{.*}}, %arg3
// FUSED:           %[[SR:.*]] = tensor.splat %[[S]] : tensor<32xf32>
// FUSED:           arith.mulf %{{.*}}, %[[SR]] : tensor<32xf32>
// FUSED:           attn.store_tile %{{.*}}, %arg4
func.func @dynamic(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                   %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                   %lse: memref<?x?x?xf32>, %s: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) scale(%s)
      {causal, block_q = 32 : i64, block_kv = 16 : i64}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
