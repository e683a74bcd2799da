// RUN: attn-opt %s -attn-assign-layouts | FileCheck %s

// A splat that feeds both a per-row and a per-column vector of the same
// length (a bias's rows' and columns' parts, one scalar factor) takes both
// layouts: the per-column use gets its own copy, as a shared constant does.
// CHECK-LABEL: func.func @splat_rows_and_columns
// CHECK-DAG:     %[[ROWSPLAT:.*]] = tensor.splat %{{.*}} : tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>>
// CHECK-DAG:     %[[COLSPLAT:.*]] = tensor.splat %{{.*}} : tensor<64xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>>
// CHECK-DAG:     arith.mulf %[[COLSPLAT]], %{{.*}} : tensor<64xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>>
// CHECK-DAG:     arith.mulf %[[ROWSPLAT]], %{{.*}} : tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>>
func.func @splat_rows_and_columns(%s: memref<?x?x?x64xf32>, %d: memref<?x?x?x64xf32>,
                                  %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %s, %c0 : memref<?x?x?x64xf32>
  scf.forall (%b, %h, %i) in (%n, %c1, %c1) {
    %t = attn.load_tile %s[%b, %h, %c0] rows %c64 : memref<?x?x?x64xf32> -> tensor<64x64xf32>
    %x = tensor.splat %f : tensor<64xf32>
    %qi = attn.iota %c0 dim 0 : tensor<64xi32>
    %qf = arith.sitofp %qi : tensor<64xi32> to tensor<64xf32>
    %kj = attn.iota %c0 dim 0 : tensor<64xi32>
    %kf = arith.sitofp %kj : tensor<64xi32> to tensor<64xf32>
    %r = arith.mulf %x, %qf : tensor<64xf32>
    %c = arith.mulf %x, %kf : tensor<64xf32>
    %rb = attn.broadcast %r : tensor<64xf32> -> tensor<64x64xf32>
    %cb = attn.broadcast %c {per_column} : tensor<64xf32> -> tensor<64x64xf32>
    %u = arith.addf %t, %rb : tensor<64x64xf32>
    %v = arith.addf %u, %cb : tensor<64x64xf32>
    attn.store_tile %v, %d[%b, %h, %c0] rows %c64 : tensor<64x64xf32>, memref<?x?x?x64xf32>
  }
  return
}
