// RUN: attn-opt %s -attn-cpu-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=attn. --implicit-check-not=linalg. \
// RUN:   --implicit-check-not=scf. --implicit-check-not=tensor. \
// RUN:   --implicit-check-not=memref. --implicit-check-not=math.
// RUN: attn-opt %s -attn-tile-pipeline | FileCheck %s --check-prefix=TILE \
// RUN:   --implicit-check-not=attn.softmax_pass
// RUN: attn-opt %s -attn-tile-pipeline="fuse=false" | FileCheck %s --check-prefix=NAIVE
// RUN: attn-opt %s -attn-tile-pipeline="target=sm_86" | FileCheck %s --check-prefix=SM86

// The CPU pipeline ends in the LLVM dialect: no attn, tensor, linalg, scf,
// memref or math op anywhere in the output (the implicit CHECK-NOTs of the
// RUN line scan all of it), the entry keeps its C interface, and exp2 (from
// the fused softmax) is an LLVM intrinsic.
// CHECK-LABEL: llvm.func @attention
// CHECK:         llvm.intr.exp2
// CHECK:         llvm.intr.log
// CHECK-LABEL: llvm.func @_mlir_ciface_attention

// The tiling pipeline stops at the tile level, fused (no attn.softmax_pass
// anywhere: the RUN line's implicit CHECK-NOT)...
// TILE-LABEL:  func.func @attention
// TILE:          scf.forall
// TILE-COUNT-2:  attn.online_softmax

// ... or, without fusion, in the naive three-pass form.
// NAIVE-COUNT-2: attn.softmax_pass = "max"
// NAIVE-COUNT-2: attn.softmax_pass = "sum"
// NAIVE-COUNT-2: attn.softmax_pass = "pv"
// NAIVE-NOT:     attn.online_softmax

// The target option changes the blocks: sm_86 (bf16, d = 128) gives 64x64.
// SM86:          attn.load_tile %arg0{{.*}} -> tensor<64x128xbf16>
// SM86:          attn.load_tile %arg1{{.*}} -> tensor<64x128xbf16>

func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>) attributes {llvm.emit_c_interface} {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
