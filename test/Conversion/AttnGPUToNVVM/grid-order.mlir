// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s
// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm="group-blocks=0" -canonicalize | FileCheck %s --check-prefix=PLAIN
// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm="group-blocks=50" -canonicalize | FileCheck %s --check-prefix=FIFTY

// Which (batch, head, query block) thread block L = x + X·(y + Y·z) runs.
// The grid is launched as (query blocks, heads, batch) in every case; only
// the kernel's reading of its block index changes.

#mma = #attn.mma<warps = 1>

// Without a causal mask every query block costs the same: one head's blocks
// run together (they share its K and V in L2), x read in reverse.
// CHECK-LABEL: func.func @full
// CHECK:         gpu.launch_func @attn_kernels::@full_kernel blocks in (%{{.*}}, %[[H:.*]], %[[B:.*]]) threads
// CHECK-LABEL: gpu.func @full_kernel
// CHECK:         %[[X:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[Y:.*]] = gpu.block_id  y
// CHECK-NEXT:    %[[Z:.*]] = gpu.block_id  z
// CHECK-NEXT:    %[[NX:.*]] = gpu.grid_dim  x
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[NX]], %c1
// CHECK-NEXT:    %[[T:.*]] = arith.subi %[[LAST]], %[[X]]
// CHECK-NEXT:    arith.muli %[[T]], %c16
// The tile's address (64-bit): batch z, head y.
// CHECK:         arith.index_cast %[[Z]] : index to i64
// CHECK:         arith.index_cast %[[Y]] : index to i64
// PLAIN-LABEL:   gpu.func @full_kernel
// PLAIN-NOT:     gpu.grid_dim  y
// PLAIN:         gpu.return
func.func @full(%s: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %nb0 = memref.dim %s, %c0 : memref<?x?x?x16xf32>
  %nh = memref.dim %s, %c1 : memref<?x?x?x16xf32>
  %n = memref.dim %s, %c2 : memref<?x?x?x16xf32>
  %nq = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%nb0, %nh, %nq) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%b, %h, %row] rows %c16 : memref<?x?x?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %o[%b, %h, %row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x?x?x16xf32>
  } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 100>}
  return
}

// -----

#mma = #attn.mma<warps = 1>

// Causal: query block t sees t + 1 key blocks. Heads in equal groups of
// about 4 blocks per SM of the device the kernel runs on (%nsmid, not the
// target's num_sms), in each group the last query block first, heads
// innermost; in 32 bits (the values live to the epilogue).
// CHECK-LABEL: gpu.func @causal_kernel
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[X:.*]] = arith.index_castui %block_id_x : index to i32
// CHECK-DAG:     %[[Y:.*]] = arith.index_castui %block_id_y : index to i32
// CHECK-DAG:     %[[Z:.*]] = arith.index_castui %block_id_z : index to i32
// CHECK-DAG:     %[[NX:.*]] = arith.index_castui %grid_dim_x : index to i32
// CHECK-DAG:     %[[NY:.*]] = arith.index_castui %grid_dim_y : index to i32
// CHECK-DAG:     %[[NZ:.*]] = arith.index_castui %grid_dim_z : index to i32
// L = x + X·(y + Y·z); Y·Z heads.
// CHECK:         %[[YZ:.*]] = arith.muli %[[NY]], %[[Z]] : i32
// CHECK:         %[[YS:.*]] = arith.addi %[[Y]], %[[YZ]] : i32
// CHECK:         %[[XS:.*]] = arith.muli %[[NX]], %[[YS]] : i32
// CHECK:         %[[L:.*]] = arith.addi %[[X]], %[[XS]] : i32
// G = ceil(Y·Z / ceil(Y·Z / ceil(4·SMs / T))): equal groups.
// CHECK:         %[[SMS:.*]] = nvvm.read.ptx.sreg.nsmid : i32
// CHECK:         %[[BLOCKS:.*]] = arith.muli %[[SMS]], %[[C4]] : i32
// CHECK:         %[[HEADS:.*]] = arith.muli %[[NY]], %[[NZ]] : i32
// CHECK:         %[[G0:.*]] = arith.ceildivui %[[BLOCKS]], %[[NX]] : i32
// CHECK:         %[[NG:.*]] = arith.ceildivui %[[HEADS]], %[[G0]] : i32
// CHECK:         %[[G:.*]] = arith.ceildivui %[[HEADS]], %[[NG]] : i32
// CHECK:         %[[GT:.*]] = arith.muli %[[G]], %[[NX]] : i32
// CHECK:         %[[GI:.*]] = arith.divui %[[L]], %[[GT]] : i32
// CHECK:         %[[R:.*]] = arith.remui %[[L]], %[[GT]] : i32
// The last group may be smaller: Gg = min(G, Y·Z - g·G).
// CHECK:         %[[FIRST:.*]] = arith.muli %[[GI]], %[[G]] : i32
// CHECK:         %[[LEFT:.*]] = arith.subi %[[HEADS]], %[[FIRST]] : i32
// CHECK:         %[[GG:.*]] = arith.minui %[[G]], %[[LEFT]] : i32
// n = g·G + r % Gg; batch = n / Y, head = n % Y; t = T - 1 - r / Gg.
// CHECK:         %[[RH:.*]] = arith.remui %[[R]], %[[GG]] : i32
// CHECK:         %[[N:.*]] = arith.addi %[[FIRST]], %[[RH]] : i32
// CHECK:         %[[BATCH:.*]] = arith.divui %[[N]], %[[NY]] : i32
// CHECK:         %[[HEAD:.*]] = arith.remui %[[N]], %[[NY]] : i32
// CHECK:         %[[RT:.*]] = arith.divui %[[R]], %[[GG]] : i32
// CHECK:         %[[T:.*]] = arith.subi %{{.*}}, %[[RT]] : i32
// CHECK:         %[[BI:.*]] = arith.index_castui %[[BATCH]] : i32 to index
// CHECK:         %[[HI:.*]] = arith.index_castui %[[HEAD]] : i32 to index
// CHECK:         %[[TI:.*]] = arith.index_castui %[[T]] : i32 to index
// CHECK:         arith.muli %[[TI]], %c16
// CHECK:         arith.index_cast %[[BI]] : index to i64
// CHECK:         arith.index_cast %[[HI]] : index to i64
// group-blocks=0: the plain order, as without the mask.
// PLAIN-LABEL:   gpu.func @causal_kernel
// PLAIN-NOT:     gpu.grid_dim  y
// PLAIN:         gpu.return
// FIFTY-LABEL:   gpu.func @causal_kernel
// FIFTY:         arith.constant 50 : i32
// FIFTY-NOT:     nvvm.read.ptx.sreg.nsmid
func.func @causal(%s: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %nb0 = memref.dim %s, %c0 : memref<?x?x?x16xf32>
  %nh = memref.dim %s, %c1 : memref<?x?x?x16xf32>
  %n = memref.dim %s, %c2 : memref<?x?x?x16xf32>
  %nq = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%nb0, %nh, %nq) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%b, %h, %row] rows %c16 : memref<?x?x?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%row, %n) kv(%c0, %n) {causal} : tensor<16x16xf32, #mma>
    attn.store_tile %m, %o[%b, %h, %row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x?x?x16xf32>
  } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 100>}
  return
}

// -----

#mma = #attn.mma<warps = 1>

// No target on the grid: the same, 4 blocks per SM of the device.
// CHECK-LABEL: gpu.func @causal_no_target_kernel
// CHECK:         %[[SMS:.*]] = nvvm.read.ptx.sreg.nsmid : i32
// CHECK-NEXT:    arith.muli %[[SMS]], %c4_i32 : i32
func.func @causal_no_target(%s: memref<?x16xf32>, %o: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %s, %c0 : memref<?x16xf32>
  %nq = arith.ceildivui %n, %c16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %nq) {
    %row = arith.muli %i, %c16 : index
    %t = attn.load_tile %s[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%row, %n) kv(%c0, %n) {causal} : tensor<16x16xf32, #mma>
    attn.store_tile %m, %o[%row] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}
