// RUN: attn-opt %s -split-input-file -verify-diagnostics

// #attn.kernel_info's verifier: what a launcher would misread is refused
// where the attribute is written.

// expected-error @+1 {{threads must be a multiple of 32 in [32, 1024], got 100}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 100, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{block_m, block_n, head_dim and head_dim_v must be non-negative, got 64, -1, 64 and 64}}
#bad = #attn.kernel_info<block_m = 64, block_n = -1, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{smem_bytes must be in [0, 2^31), got -16}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = -16, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{unknown dtype 'fp8' (expected bf16, f16 or f32)}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "fp8", causal = false>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{unknown program 'backward' (expected attention, split_kv, merge_splits, grad_q, grad_kv, grad_prep, grad_q_out or block_lists)}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, program = "backward">
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{grid must be three products of the launch grid factors (x, y, z), got ["q_blocks", "heads"]}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, grid = ["q_blocks", "heads"]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{grid must be three products of the launch grid factors (x, y, z), got ["q_blocks", "heads_q", "rows"]}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, grid = ["q_blocks", "heads_q", "rows"]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{grid must be an array of strings}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, grid = [1, 2, 3]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{tensor_maps must be (argument, box rows, box bytes) triples}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, tensor_maps = [0, 128, 128, 1]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{unsupported: a tensor map of argument 16 with 128 rows of 128 bytes (maps of the memref arguments 0-15, of 1-256 rows of one 128- or 64-byte slab)}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, tensor_maps = [16, 128, 128]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// A box is one slab wide: 128 or 64 bytes of columns.
// expected-error @+1 {{unsupported: a tensor map of argument 1 with 64 rows of 32 bytes}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, tensor_maps = [0, 64, 128, 1, 64, 32]>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{register_estimate must be non-negative, got -1}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, register_estimate = -1>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// attn.kernel holds a kernel_info, not a dictionary.
// expected-error @+1 {{'attn.kernel' must be an #attn.kernel_info}}
func.func private @f() attributes {attn.kernel = {block_m = 64 : i64}}

// -----

// A required size missing is a parse error with the attribute's location.
// expected-error @+1 {{struct is missing required parameter: dtype}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, causal = false>

// -----

// expected-error @+1 {{window_left and window_right must be -1 (none) or in [0, 2^31), got -2 and -1}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = true, window_left = -2>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// The soft-cap: a positive, finite, normal f32.
// expected-error @+1 {{softcap must be a positive, finite, normal f32, got -3.000000e+00 : f32}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = true, softcap = -3.0 : f32>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{a persistent kernel needs its grid of tiles (grid)}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = false, persistent = true>
func.func private @f() attributes {attn.kernel = #bad}

// -----

// expected-error @+1 {{a tile counter belongs to a persistent kernel (persistent = true)}}
#bad = #attn.kernel_info<block_m = 64, block_n = 64, threads = 128, smem_bytes = 0, head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = true, grid = ["q_blocks", "heads_q", "batch"], tile_counter = true>
func.func private @f() attributes {attn.kernel = #bad}
