// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// A tile's first row is addressed in 64 bits (a tensor may span 2^31
// elements or more): every index, the row's too, times its stride, summed
// as i64 into one getelementptr; the rows and columns of the tile are i32
// offsets from there, (r·stride + c) with r below the tile's rows.
#mma = #attn.mma<warps = 1>

// CHECK-LABEL: gpu.func @copy_kernel
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %c16 : index
// The load: [b, h, row] of the f32 source.
// CHECK-DAG:     %[[B:.*]] = arith.index_cast %[[Z]] : index to i64
// CHECK-DAG:     %[[SB:.*]] = arith.index_cast %strides#0 : index to i64
// CHECK:         %[[OB:.*]] = arith.muli %[[B]], %[[SB]] : i64
// CHECK:         %[[OH:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:         %[[OBH:.*]] = arith.addi %[[OB]], %[[OH]] : i64
// CHECK:         %[[R:.*]] = arith.index_cast %[[ROW]] : index to i64
// CHECK:         %[[OR:.*]] = arith.muli %[[R]], %c16_i64 : i64
// CHECK:         %[[OFF:.*]] = arith.addi %[[OBH]], %[[OR]] : i64
// CHECK:         %[[BASE:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:         llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:         llvm.load
// The store into the bf16 output: its own 64-bit row address.
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
// CHECK:         llvm.store
func.func @copy(%s: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %nb = memref.dim %s, %c0 : memref<?x?x?x16xf32>
  %nh = memref.dim %s, %c1 : memref<?x?x?x16xf32>
  %n = memref.dim %s, %c2 : memref<?x?x?x16xf32>
  %nq = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%nb, %nh, %nq) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%b, %h, %row] rows %c16 : memref<?x?x?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %o[%b, %h, %row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x?x?x16xbf16>
  }
  return
}
