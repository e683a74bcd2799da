#!/usr/bin/env bash
# The commands that produced stages/ (run from the repository root; OUT defaults to /tmp/i6).
# They were run on 2026-11-25 with a copy of build/bin/attn-opt taken right after
# tools/setup.sh finished building commit f17223d (02:55 UTC); ptxas: CUDA 13.0 (V13.0.88).
# Each stage is one pass (or the pass and the canonicalize/cse that lib/Pipelines/Pipelines.cpp
# runs after it) with the options buildGPUKernelPipeline gives it for chip=sm_90a.
set -euo pipefail
A=${A:-build/bin/attn-opt}
OUT=${OUT:-/tmp/i6}
mkdir -p "$OUT"
cp examples/attention.mlir "$OUT/00-input.mlir"
$A "$OUT/00-input.mlir"            --attn-select-gpu-blocks=chip=sm_90a -o "$OUT/01-select-gpu-blocks.mlir"
$A "$OUT/01-select-gpu-blocks.mlir" --attn-tile-attention=target=sm_90a -o "$OUT/02-tiled-naive.mlir"
$A "$OUT/02-tiled-naive.mlir"      --attn-fuse-online-softmax=rescale-threshold=8 --canonicalize --cse -o "$OUT/03-fused.mlir"
$A "$OUT/03-fused.mlir"            --attn-defer-row-sums=max-columns=64 -o "$OUT/04-defer-row-sums.mlir"   # no change at D = 128
$A "$OUT/04-defer-row-sums.mlir"   --attn-assign-layouts -o "$OUT/05-layouts.mlir"
$A "$OUT/05-layouts.mlir"          --attn-pipeline-kv-loop=stages=2 -o "$OUT/06-pipelined.mlir"
$A "$OUT/06-pipelined.mlir"        --convert-attn-gpu-to-nvvm --canonicalize --cse -o "$OUT/07-nvvm.mlir"
$A "$OUT/07-nvvm.mlir" --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,canonicalize,cse,reconcile-unrealized-casts))' \
   -o "$OUT/08-llvm-dialect.mlir"
$A examples/attention.mlir --attn-codegen="chip=sm_90a" --emit=ptx -o "$OUT/09-kernel.ptx"
/usr/local/cuda/bin/ptxas -arch=sm_90a -v "$OUT/09-kernel.ptx" -o "$OUT/kernel.sm_90a.cubin" 2>&1 | tee "$OUT/ptxas-sm_90a.txt"
$A examples/attention.mlir --attn-codegen="chip=sm_80" --emit=ptx -o "$OUT/09-kernel.sm_80.ptx"
/usr/local/cuda/bin/ptxas -arch=sm_80 -v "$OUT/09-kernel.sm_80.ptx" -o /dev/null 2>&1 | tee "$OUT/ptxas-sm_80.txt"

# Cross-check: the whole pipeline in one run, printing the module after every pass.
# (--mlir-print-ir-module-scope needs --mlir-disable-threading.) Its dumps after
# attn-tile-attention, cse (after the fusion), attn-assign-layouts, attn-pipeline-kv-loop,
# cse (after convert-attn-gpu-to-nvvm) and reconcile-unrealized-casts equal 02, 03, 05, 06,
# 07 and 08 above line for line (blank lines aside).
$A examples/attention.mlir --attn-codegen="chip=sm_90a" --mlir-disable-threading \
   --mlir-print-ir-after-all --mlir-print-ir-module-scope -o "$OUT/final.mlir" 2> "$OUT/after-all.txt"
