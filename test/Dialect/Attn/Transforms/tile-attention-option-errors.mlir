// attn-tile-attention's options: a bad option is an error before any IR is
// read (without a location: options are not in the IR), whether or not an op
// takes it (Inputs/no-op-takes-options.mlir has no op that does), and exit
// code 1; the command-line parser's own errors likewise.
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="block-q=3" 2>&1 | FileCheck %s --check-prefix=BQ3
// BQ3: <unknown>:0: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 3
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="block-q=0 block-kv=-1" 2>&1 | FileCheck %s --check-prefix=BKVNEG
// BKVNEG: <unknown>:0: error: pass option block-kv must be a power of two in [1, 1024], got -1
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="block-q=100000" 2>&1 | FileCheck %s --check-prefix=BQHUGE
// BQHUGE: <unknown>:0: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 100000
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="block-kv=2048" 2>&1 | FileCheck %s --check-prefix=BKV2048
// BKV2048: <unknown>:0: error: pass option block-kv must be a power of two in [1, 1024], got 2048
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="target=sm_12" 2>&1 | FileCheck %s --check-prefix=SM12
// SM12: <unknown>:0: error: pass option target: unknown target 'sm_12' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="target=gpu" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: <unknown>:0: error: pass option target: unknown target 'gpu' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="block-q=abc" 2>&1 | FileCheck %s --check-prefix=NOTINT
// NOTINT: for the --block-q option: 'abc' value invalid for long argument!
// RUN: not attn-opt %S/Inputs/no-op-takes-options.mlir -attn-tile-attention="bogus=1" 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: <Pass-Options-Parser>: no such option bogus

// Options that are valid but ask for blocks the options' target cannot
// hold: an error at the op they apply to.
// RUN: not attn-opt %s -attn-tile-attention="target=sm_86 block-q=1024 block-kv=1024" 2>&1 | FileCheck %s --check-prefix=FIT
// FIT: tile-attention-option-errors.mlir:[[@LINE+3]]:3: error: block sizes Br=1024, Bc=1024 need 786432 bytes of on-chip memory for the Q, K and V tiles, but target sm_86 offers 101376
func.func @f(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>,
             %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>,
        memref<?x?x?x128xf16>
  return
}
