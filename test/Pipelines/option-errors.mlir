// The pipelines' options: a bad option is an error before any IR is touched
// (without a location: options are not in the IR), and exit code 1. Each
// pass's own options are checked in its tests in Dialect/Attn/Transforms/; a
// pipeline refuses the options it hands on to its passes alike.

// RUN: not attn-opt %s --attn-cpu-pipeline="block-q=3" 2>&1 | FileCheck %s --check-prefix=BQ3
// BQ3: <unknown>:0: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 3
// RUN: not attn-opt %s --attn-tile-pipeline="target=sm_12" 2>&1 | FileCheck %s --check-prefix=SM12
// SM12: <unknown>:0: error: pass option target: unknown target 'sm_12' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)
// RUN: not attn-opt %s --attn-cpu-pipeline="rescale-threshold=nan" 2>&1 | FileCheck %s --check-prefix=TAUNAN
// TAUNAN: <unknown>:0: error: pass option rescale-threshold must be in [0, 15], got nan

// RUN: not attn-opt %s --attn-codegen="chip=sm_90a persistent=3" 2>&1 | FileCheck %s --check-prefix=PERSIST
// PERSIST: <unknown>:0: error: pass option grids (attn-codegen's persistent) must be 1 (grids without a causal mask) or 2 (all), got 3

// Options the command-line parser rejects.
// RUN: not attn-opt %s --attn-cpu-pipeline="fuse=maybe" 2>&1 | FileCheck %s --check-prefix=FUSE
// FUSE: for the --fuse option: 'maybe' is invalid value for boolean argument!
// RUN: not attn-opt %s --attn-cpu-pipeline="cpu-features=sse2" 2>&1 | FileCheck %s --check-prefix=FEATURES
// FEATURES: for the --cpu-features option: Cannot find option named 'sse2'!

func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
