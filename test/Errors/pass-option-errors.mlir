// Bad pass and pipeline options: an error before any IR is touched (without
// a location: options are not in the IR), and exit code 1 (checked by
// `not`). test/Errors/bug-unused-pass-options.mlir checks IR without an
// attn.attention.

// RUN: not attn-opt %s --attn-tile-attention="block-q=3" 2>&1 | FileCheck %s --check-prefix=BQ3
// BQ3: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 3

// RUN: not attn-opt %s --attn-tile-attention="block-q=0 block-kv=-1" 2>&1 | FileCheck %s --check-prefix=BKVNEG
// BKVNEG: error: pass option block-kv must be a power of two in [1, 1024], got -1

// RUN: not attn-opt %s --attn-tile-attention="block-q=100000" 2>&1 | FileCheck %s --check-prefix=BQHUGE
// BQHUGE: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 100000

// RUN: not attn-opt %s --attn-tile-attention="block-kv=2048" 2>&1 | FileCheck %s --check-prefix=BKV2048
// BKV2048: error: pass option block-kv must be a power of two in [1, 1024], got 2048

// RUN: not attn-opt %s --attn-tile-attention="target=sm_12" 2>&1 | FileCheck %s --check-prefix=SM12
// SM12: error: pass option target: unknown target 'sm_12' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)

// RUN: not attn-opt %s --attn-tile-attention="target=gpu" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: pass option target: unknown target 'gpu' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)

// RUN: not attn-opt %s --attn-cpu-pipeline="block-q=3" 2>&1 | FileCheck %s --check-prefix=BQ3
// RUN: not attn-opt %s --attn-tile-pipeline="target=sm_12" 2>&1 | FileCheck %s --check-prefix=SM12

// RUN: not attn-opt %s --attn-fuse-online-softmax="rescale-threshold=16" 2>&1 | FileCheck %s --check-prefix=TAU16
// TAU16: error: pass option rescale-threshold must be in [0, 15], got 16
// RUN: not attn-opt %s --attn-fuse-online-softmax="rescale-threshold=-1" 2>&1 | FileCheck %s --check-prefix=TAUNEG
// TAUNEG: error: pass option rescale-threshold must be in [0, 15], got -1
// RUN: not attn-opt %s --attn-cpu-pipeline="rescale-threshold=nan" 2>&1 | FileCheck %s --check-prefix=TAUNAN
// TAUNAN: error: pass option rescale-threshold must be in [0, 15], got nan
// RUN: not attn-opt %s --attn-defer-row-sums="wgmma=2" 2>&1 | FileCheck %s --check-prefix=DEFERWGMMA
// DEFERWGMMA: error: pass option wgmma must be -1 (heuristic), 0 or 1, got 2

// Options the command-line parser rejects.
// RUN: not attn-opt %s --attn-tile-attention="block-q=abc" 2>&1 | FileCheck %s --check-prefix=NOTINT
// NOTINT: for the --block-q option: 'abc' value invalid for long argument!
// RUN: not attn-opt %s --attn-tile-attention="bogus=1" 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: no such option bogus
// RUN: not attn-opt %s --attn-cpu-pipeline="fuse=maybe" 2>&1 | FileCheck %s --check-prefix=FUSE
// FUSE: for the --fuse option: 'maybe' is invalid value for boolean argument!

func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
