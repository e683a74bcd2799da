// attn-codegen's llvm-opt-level: the optimisation level of LLVM on the
// kernels' NVVM module before PTX (ptxas optimises the PTX in any case),
// carried by the gpu.module's NVVM target; 3 by default. A level LLVM does
// not have is an error from the serialisation, not an abort.

// RUN: attn-opt %s --attn-codegen="chip=sm_80" | FileCheck %s --check-prefix=O3
// O3: gpu.binary @attn_kernels {{.*}}#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// RUN: attn-opt %s --attn-codegen="chip=sm_80 llvm-opt-level=1" | FileCheck %s --check-prefix=O1
// O1: gpu.binary @attn_kernels {{.*}}#nvvm.target<O = 1, chip = "sm_80", features = "+ptx80">
// RUN: not attn-opt %s --attn-codegen="chip=sm_80 llvm-opt-level=7" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: Invalid optimization level: 7.

func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
