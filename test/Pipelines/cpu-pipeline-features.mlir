// RUN: attn-opt %s -split-input-file -attn-cpu-pipeline="cpu-features=amx" | FileCheck %s --check-prefix=AMX
// RUN: attn-opt %s -split-input-file -attn-cpu-pipeline="cpu-features=avx512bf16" | FileCheck %s --check-prefix=DOT
// RUN: attn-opt %s -split-input-file -attn-cpu-pipeline="cpu-features=avx512" | FileCheck %s --check-prefix=AVX512
// RUN: attn-opt %s -split-input-file -attn-cpu-pipeline="cpu-features=avx2" | FileCheck %s --check-prefix=AVX2
// RUN: attn-opt %s -split-input-file -attn-tile-pipeline="cpu-features=amx" | FileCheck %s --check-prefix=BLOCKS

// One source, three instruction sets (attn-run --cpu-features picks the
// host's highest; any lower one can be forced).
//
// amx: both bf16 products on AMX tiles (tileloadd, tdpbf16ps, tilestored;
// the tile configuration is LLVM's), the softmax on AVX-512 with exp2
// through vscalefps, P rounded to bf16 by the conversion instruction
// (fptrunc, not the integer expansion), no FMA register tiles left.
// AMX-LABEL: llvm.func @bf16
// AMX:         llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// AMX:         llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// AMX:         llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// AMX:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// AMX:         llvm.fptrunc {{.*}} : vector<32xf32> to vector<32xbf16>
// AMX-NOT:     llvm.intr.fmuladd
// AMX-LABEL: llvm.func @f32
// AMX-NOT:     llvm.x86.t
// AMX:         llvm.intr.fmuladd{{.*}} : (vector<32xf32>, vector<32xf32>, vector<32xf32>)
// AMX:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// AMX-NOT:     llvm.x86.t

// avx512bf16 (attn-run's default on hosts with AVX512-BF16 and no AMX): the
// bf16 products as vdpbf16ps register tiles on the same packed operands, no
// tile instruction, P rounded by fptrunc; f32 keeps the FMA tiles.
// DOT-LABEL: llvm.func @bf16
// DOT-NOT:     llvm.x86.t
// DOT:         llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// DOT:         llvm.fptrunc {{.*}} : vector<32xf32> to vector<32xbf16>
// DOT-NOT:     llvm.x86.t
// DOT-LABEL: llvm.func @f32
// DOT-NOT:     llvm.x86.avx512bf16
// DOT:         llvm.intr.fmuladd{{.*}} : (vector<32xf32>, vector<32xf32>, vector<32xf32>)

// avx512: 8×32 register tiles of FMAs on 16-lane registers (vector<32xf32>
// rows, two registers each), vscalefps for exp2, no tile instruction.
// AVX512-LABEL: llvm.func @bf16
// AVX512-NOT:     llvm.x86.t
// AVX512:         llvm.intr.fmuladd{{.*}} : (vector<32xf32>, vector<32xf32>, vector<32xf32>)
// AVX512:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// AVX512-NOT:     llvm.x86.t

// avx2: 4×16 register tiles, the generic exp2 polynomial, no AVX-512 or
// AMX intrinsic.
// AVX2-LABEL: llvm.func @bf16
// AVX2-NOT:     llvm.x86
// AVX2:         llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2-NOT:     llvm.x86

// The AMX level's key blocks: 256 keys at D = 128 bf16 (128 query rows);
// f32 keeps the derived 128.
// BLOCKS-LABEL: func.func @bf16
// BLOCKS:         tensor<128x256xf32>
// BLOCKS-LABEL: func.func @f32
// BLOCKS-NOT:     x256x
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

func.func @f32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
               %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
