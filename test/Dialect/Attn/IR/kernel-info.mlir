// RUN: attn-opt %s -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s

// #attn.kernel_info round-trips: the required sizes in order, the optional
// parameters only where they differ from their defaults (program =
// "attention", no grid, no tensor maps, register_estimate = 0,
// dynamic_row_stride = false).
// CHECK-LABEL: gpu.func @wgmma_kernel
// CHECK-SAME:    attn.kernel = #attn.kernel_info<block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = true, grid = ["q_blocks", "heads_q", "batch"], tensor_maps = [0, 128, 128, 1, 128, 128, 2, 64, 64], register_estimate = 168>
gpu.module @kernels {
  gpu.func @wgmma_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096,
      head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = true,
      program = "attention", grid = ["q_blocks", "heads_q", "batch"],
      tensor_maps = [0, 128, 128, 1, 128, 128, 2, 64, 64], register_estimate = 168,
      dynamic_row_stride = false>} {
    gpu.return
  }
}

// -----

// A split-KV kernel's grid multiplies its query blocks by the splits; a
// merge has no key blocks (block_n = 0) and one head dim, its output's.
// CHECK-LABEL: gpu.func @split_kernel
// CHECK-SAME:    #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 49152, head_dim = 64, head_dim_v = 64, dtype = "f16", causal = false, program = "split_kv", grid = ["q_blocks*splits", "heads_q", "batch"], dynamic_row_stride = true>
// CHECK-LABEL: gpu.func @merge_kernel
// CHECK-SAME:    #attn.kernel_info<block_m = 64, block_n = 0, threads = 128, smem_bytes = 0, head_dim = 0, head_dim_v = 256, dtype = "f16", causal = false, program = "merge_splits">
gpu.module @kernels {
  gpu.func @split_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 64, block_n = 64, threads = 128, smem_bytes = 49152,
      head_dim = 64, head_dim_v = 64, dtype = "f16", causal = false,
      program = "split_kv", grid = ["q_blocks*splits", "heads_q", "batch"],
      dynamic_row_stride = true>} {
    gpu.return
  }
  gpu.func @merge_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 64, block_n = 0, threads = 128, smem_bytes = 0, head_dim = 0,
      head_dim_v = 256, dtype = "f16", causal = false,
      program = "merge_splits">} {
    gpu.return
  }
}

// -----

// A sliding window's bounds: printed where set (the default -1 is none).
// CHECK-LABEL: gpu.func @window_kernel
// CHECK-SAME:    #attn.kernel_info<block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = true, window_left = 4096>
gpu.module @kernels {
  gpu.func @window_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096,
      head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = true,
      window_left = 4096, window_right = -1>} {
    gpu.return
  }
}

// -----

// A persistent kernel: printed where set, after its grid of tiles.
// CHECK-LABEL: gpu.func @persistent_kernel
// CHECK-SAME:    #attn.kernel_info<block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, grid = ["q_blocks", "heads_q", "batch"], persistent = true>
gpu.module @kernels {
  gpu.func @persistent_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096,
      head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false,
      grid = ["q_blocks", "heads_q", "batch"], persistent = true>} {
    gpu.return
  }
}

// -----

// A dynamic persistent kernel: it takes a tile counter last.
// CHECK-LABEL: gpu.func @dynamic_kernel
// CHECK-SAME:    causal = true, grid = ["q_blocks", "heads_q", "batch"], persistent = true, tile_counter = true>
gpu.module @kernels {
  gpu.func @dynamic_kernel(%counter: !llvm.ptr<1>) kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 128, block_n = 128, threads = 384, smem_bytes = 164096,
      head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = true,
      grid = ["q_blocks", "heads_q", "batch"], persistent = true,
      tile_counter = true>} {
    gpu.return
  }
}

// -----

// A kernel that waits for the grids before it may be launched under their
// tail (the manifest's pdl=1).
// CHECK-LABEL: gpu.func @chained_kernel
// CHECK-SAME:    program = "merge_splits", dependent_launch = true>
gpu.module @kernels {
  gpu.func @chained_kernel() kernel attributes {attn.kernel = #attn.kernel_info<
      block_m = 16, block_n = 0, threads = 32, smem_bytes = 0, head_dim = 0,
      head_dim_v = 128, dtype = "bf16", causal = false,
      program = "merge_splits", dependent_launch = true>} {
    gpu.return
  }
}
