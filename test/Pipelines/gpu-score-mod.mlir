// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s --check-prefixes=CHECK,SM90 \
// RUN:   --implicit-check-not=math.tanh --implicit-check-not=__nv_tanhf
// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80 \
// RUN:   --implicit-check-not=math.tanh --implicit-check-not=__nv_tanhf
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=tanh < %t.ptx

// A score_mod (soft-cap 30, as attn-run --softcap writes it) through the GPU
// kernel pipeline: the region becomes elementwise tile ops on the score
// tile, lowered by the same per-op patterns as the softmax (tanh from ex2
// per element: no math.tanh, libdevice call or PTX tanh anywhere, the RUN
// lines' implicit CHECK-NOTs), on wgmma (sm_90a: the TMA producer
// kernel) and on mma.sync (sm_80).
// CHECK-LABEL: gpu.func @softcap_kernel
// SM90-SAME:     threads = 384
// SM90:          nvvm.wgmma.mma_async
// SM80:          nvvm.mma.sync
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// PTX:           .entry softcap_kernel
// PTX:           wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX:           ex2.approx.ftz.f32
func.func @softcap(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                   %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 30.0 : f32
    %inv = arith.constant 0.0333333351 : f32
    %x = arith.mulf %s, %inv : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } {causal} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
