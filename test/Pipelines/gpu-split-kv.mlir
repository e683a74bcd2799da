// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80

// The split-KV kernel takes the forward's schedule; its description says
// program = "split_kv" for launchers. At D = 128 on sm_90a it has 64 query
// rows (the few packed rows of a decoding step): one warpgroup that issues
// its own cp.async copies of the 32 KiB K and V tiles into rings on
// per-slot barriers (no producer, no tensor maps: streaming K and V, that
// keeps the memory busier); on sm_80 mma.sync. On sm_90a it waits for the
// grid before it first thing (attn-chain-grids), so the runtime may launch
// it under that grid's tail (dependent_launch).
// CHECK-LABEL: gpu.func @split_kernel
// CHECK-SAME:    attn.kernel = #attn.kernel_info<
// SM90-SAME:     block_m = 64, block_n = 128, threads = 128,
// CHECK-SAME:    program = "split_kv"
// SM90-NOT:      tensor_maps
// SM90-SAME:     dependent_launch = true
// SM80-NOT:      dependent_launch
// SM90:          nvvm.griddepcontrol wait
// SM90-NEXT:     nvvm.griddepcontrol launch_dependents
// SM80-NOT:      nvvm.griddepcontrol
// SM90:          nvvm.mbarrier.init
// SM90-NOT:      nvvm.cp.async.bulk.tensor
// SM90-DAG:      nvvm.cp.async.shared.global
// SM90-DAG:      nvvm.cp.async.mbarrier.arrive
// SM90-DAG:      nvvm.wgmma.mma_async
// SM80:          nvvm.mma.sync
func.func @split(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
                 %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
                 %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
                 %po: memref<?x?x?x?x128xf32>, %pl: memref<?x?x?x?xf32>,
                 %s: f32) {
  attn.attention %q, %k, %v into %po lse(%pl : memref<?x?x?x?xf32>) scale(%s)
      {split_kv}
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x?x128xf32>
  return
}

// -----

// At D = 64 (64 query rows, one warpgroup, as the forward) the split
// program still takes per-slot barriers and the producer: its loop is a
// few blocks long, and the producer issues their copies from the start.
// CHECK-LABEL: gpu.func @split64_kernel
// SM90-SAME:     block_m = 64, block_n = 128, threads = 256,
// SM90:          nvvm.mbarrier.init
// SM90:          nvvm.cp.async.bulk.tensor.shared.cluster.global
func.func @split64(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
                   %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
                   %po: memref<?x?x?x?x64xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x64xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x?x64xf32>
  return
}

// -----

// The merge is a program without attn.dot: its register tiles take the
// mma.sync layout on every chip (16 rows a warp: one warp for its 16 rows),
// and its output tile and the memory under its column window describe the
// kernel (rows, head dim, element type); 16 column blocks of 16 in x.
// ptxas bounds it by one block per SM (it issues an iteration's loads
// first then).
// CHECK-LABEL: gpu.func @merge_kernel
// CHECK-SAME:    attn.kernel = #attn.kernel_info<block_m = 16, block_n = 0,
// CHECK-SAME:    threads = 32, smem_bytes = 0, head_dim = 0, head_dim_v = 256,
// CHECK-SAME:    dtype = "f16"
// CHECK-SAME:    program = "merge_splits", grid = ["q_blocks*16", "heads_q", "batch"]
// SM90-SAME:     dependent_launch = true
// SM80-NOT:      dependent_launch
// CHECK-SAME:    nvvm.minctasm = 1
// SM90:          nvvm.griddepcontrol wait
// SM80-NOT:      nvvm.griddepcontrol
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         llvm.load {{.*}} -> vector<2xf32>
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
func.func @merge(%po: memref<?x?x?x?x256xf32>, %pl: memref<?x?x?x?xf32>,
                 %o: memref<?x?x?x256xf16, strided<[?, ?, ?, 1]>>) {
  attn.merge_splits %po, %pl into %o
      : memref<?x?x?x?x256xf32>, memref<?x?x?x?xf32>,
        memref<?x?x?x256xf16, strided<[?, ?, ?, 1]>>
  return
}
