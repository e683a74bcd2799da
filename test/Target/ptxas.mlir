// Every kernel variant the runtime bundle holds (f16/bf16 × D 64, 96, 128,
// 256 × causal or not × with or without LSE) assembles with ptxas for sm_80
// and sm_90 (and the sm_90a build for sm_90a); the table (registers per
// thread) is in the test log. 94 of the 96 spill nothing. Two sm_90a
// kernels spill 8 bytes, outside the key/value loops (a value the epilogue
// needs, stored before the masked loop and reloaded after it; checked in
// the SASS): bf16/f16 D = 128 non-causal without LSE (the 128x64 blocks of
// two m-tiles per warp that fill all 255 registers). Any other spill, or a
// larger one, fails.
// REQUIRES: ptxas
// RUN: rm -rf %t && attn-bundle --out-dir %t --chips sm_80,sm_90a
// RUN: bash %attn_src_root/tools/ptxas-check.sh --allow-spill 16 %t | FileCheck %s
// CHECK:     kernel arch regs spill status
// CHECK-NOT: FAIL
// CHECK:     kernels: 96, spill-free: 94, small spills (<= 16 bytes): 2, failed: 0
