// Every kernel variant the runtime bundle holds (f16/bf16 × D 64, 96, 128,
// 256 × causal or not × with or without LSE) assembles with ptxas for sm_80
// and sm_90 (and the sm_90a build for sm_90a); the table (registers per
// thread) is in the test log. 88 of the 96 spill nothing. Eight sm_90a
// kernels spill 8-16 bytes, all outside the key/value loop (values such as
// the query block's first row, kept for the epilogue; checked in the SASS):
// bf16/f16 D = 128 (the 128x64 blocks of two m-tiles per warp that fill
// all 255 registers; causal with and without LSE, non-causal with LSE) and
// D = 256 causal without LSE. Any other spill, or a larger one, fails.
// REQUIRES: ptxas
// RUN: rm -rf %t && attn-bundle --out-dir %t --chips sm_80,sm_90a
// RUN: bash %attn_src_root/tools/ptxas-check.sh --allow-spill 16 %t | FileCheck %s
// CHECK:     kernel arch regs spill status
// CHECK-NOT: FAIL
// CHECK:     kernels: 96, spill-free: 88, small spills (<= 16 bytes): 8, failed: 0
