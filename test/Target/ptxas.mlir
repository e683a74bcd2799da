// Every kernel variant the runtime bundle holds (f16/bf16 × D 64, 96, 128,
// 256 × causal or not × with or without LSE) assembles with ptxas for sm_80 and sm_90 (and the sm_90a
// build for sm_90a) with 0 bytes spilled; the table (registers per thread)
// is in the test log.
// REQUIRES: ptxas
// RUN: rm -rf %t && attn-bundle --out-dir %t --chips sm_80,sm_90a
// RUN: bash %attn_src_root/tools/ptxas-check.sh %t | FileCheck %s
// CHECK:     kernel arch regs spill status
// CHECK-COUNT-96: {{ 0 +ok$}}
// CHECK-NOT: FAIL
