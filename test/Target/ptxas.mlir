// Every kernel the build's bundle holds (f16/bf16 × D 64, 96, 128, 256 ×
// the forward (causal or not × with or without LSE; at D = 64 on sm_90a
// also with 192-row query blocks for long sequences, at D = 128 and 256
// with 64-row blocks for at most 64 rows), the split-KV kernel
// (causal or not) and the merge (with or without LSE), and for D 64 and 128
// the forward and split kernel over a KV cache (per-sequence key counts,
// contiguous or paged: pages of any multiple of the key block, and of 16
// rows; the forward at D = 128 also with 64-row blocks) and the forward over a packed batch (varlen); the problems written
// as IR in examples/ (D = 192, Dv = 128; a causal sliding window of 4096 at
// D = 128; Gemma 2's soft-cap of 50 at D = 256; ALiBi, causal, at D = 128;
// dropout, not causal, at D = 128; a bf16 score bias, not causal, at
// D = 128, on sm_90a twice: read by bulk copies, and element by element
// for biases of unaligned rows; the backward of ALiBi and of a soft-cap of 50, causal, at
// D = 128);
// the fp8 (e4m3) forward at
// D = 64, 128 and 256 on sm_90a (causal or not × with or without LSE); the
// backward's grad_q and grad_kv kernels at D 64, 96 and 128 (causal or not,
// f16/bf16: ptxas's counts of each entry of their PTX); SASS for sm_80, sm_86 and
// sm_89 from the sm_80 PTX, sm_90a from the sm_90a PTX) was assembled
// by ptxas -v when attn-bundle made the bundle (the attn-kernel-bundle
// target, a dependency of check-attn); its register and spill counts are in
// ptxas-report.txt, and the table is in the test log. None of the 995
// cubins spills; any spill fails. The sm_90a kernels with head dims of a multiple of 64 are
// wgmma kernels (256 threads, up to 255 registers: D = 256 holds O in 128
// of them), and so are D = 96's forward kernels (64-byte slabs); D = 96's
// backward stays on mma.sync.
// REQUIRES: ptxas
// RUN: bash %attn_src_root/tools/scripts/ptxas_check.sh --allow-spill 0 --report %attn_bundle_dir | FileCheck %s
// CHECK:     kernel arch regs spill status
// CHECK-NOT: FAIL
// CHECK:     kernels: 995, spill-free: 995, small spills (<= 0 bytes): 0, failed: 0

// The report is ptxas's own: one line per cubin of the manifest.
// RUN: FileCheck %s --check-prefix=REPORT < %attn_bundle_dir/ptxas-report.txt
// REPORT:      # ptxas -v per cubin, written by attn-bundle (Cuda compilation tools, release {{[0-9.]+}}, V{{[0-9.]+}}).
// REPORT-NEXT: # kernel chip registers spill-store-bytes spill-load-bytes
// REPORT-NEXT: attn_fwd_f16_d64_kernel sm_80 {{[0-9]+}} 0 0
// REPORT-NEXT: attn_fwd_f16_d64_kernel sm_86 {{[0-9]+}} 0 0
// REPORT-NEXT: attn_fwd_f16_d64_kernel sm_89 {{[0-9]+}} 0 0
// REPORT:      attn_fwd_bf16_d128_causal_nolse_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_fwd_bf16_d128_causal_nolse_q64_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_fwd_bf16_d128_causal_nolse_gqa_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_fwd_bf16_d128_causal_nolse_gqa_q64_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_split_bf16_d128_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_split_bf16_d128_causal_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_split_bf16_d128_causal_gqa_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_split_bf16_d128_causal_gqa_q128_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_merge_bf16_d128_kernel sm_90a {{[0-9]+}} 0 0
// REPORT-NEXT: attn_merge_bf16_d128_nolse_kernel sm_90a {{[0-9]+}} 0 0
// The problems of examples/ last.
// The backward's kernels after the built-in forward set.
// REPORT:      attn_bwd_f16_d64_kernel sm_80 {{[0-9]+}} 0 0
// REPORT:      attn_bwd_bf16_d128_causal_kernel_1 sm_90a {{[0-9]+}} 0 0
// REPORT:      attn_fwd_bf16_d192_v128_causal_kernel sm_80 {{[0-9]+}} 0 0
// REPORT:      attn_fwd_bf16_d192_v128_causal_kernel sm_90a {{[0-9]+}} 0 0
