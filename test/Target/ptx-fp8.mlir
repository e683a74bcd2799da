// fp8 (e4m3) attention down to PTX on sm_90a: wgmma with k = 32 over e4m3
// operands (Q·Kᵀ from shared memory, 256 keys a block: m64n256k32; P·V with
// P from registers), P rounded
// by cvt.rn.satfinite.e4m3x2 and regrouped in each quad by shuffles and
// byte permutes whose selectors are the lane's (a register, not an
// immediate), every tile (V transposed included) filled by bulk tensor
// copies.
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --implicit-check-not=cp.async.cg --implicit-check-not=ldmatrix < %t.ptx
// The host side: tensor maps of one 128-byte slab (128 fp8 columns) by
// the tile's rows (K: 256), V's over its transposed [Dv, Nk] rows.
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" | FileCheck %s --check-prefix=HOST
// The manifest line the launcher reads.
// RUN: rm -rf %t.bundle && attn-bundle --out-dir %t.bundle --chips sm_90a %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.bundle/manifest.txt
// Only sm_90a multiplies fp8; head dims are multiples of 64.
// RUN: not attn-opt %s --attn-codegen="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not attn-opt %s --attn-codegen="chip=sm_90a wgmma=0" 2>&1 | FileCheck %s --check-prefix=NOWGMMA

// CHECK:     .target sm_90a
// CHECK:     .visible .entry attention_kernel(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{{[^}]*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{[^}]*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1;
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232

// HOST: attn.tensor_map %arg0 box[128, 128] : memref<?x?x?x128xf8E4M3FN>
// HOST: attn.tensor_map %arg1 box[256, 128] : memref<?x?x?x128xf8E4M3FN>
// HOST: attn.tensor_map %arg2 box[128, 128] : memref<?x?x128x?xf8E4M3FN>
// HOST: gpu.launch_func @attn_kernels::@attention_kernel

// MANIFEST: kernel name=attention_kernel {{.*}}chip=sm_90a dtype=e4m3 head_dim=128 head_dim_v=128 causal=1 block_m=128 block_n=256 threads=384 {{.*}}tensor_maps=0:128,1:256,2:128 grid=dynamic(q_blocks,heads_q,batch)

// SM80: error: unsupported: fp8 attention on sm_80 (fp8 products are sm_90a's wgmma)
// NOWGMMA: error: unsupported: fp8 attention on sm_90a without wgmma (head dims must be multiples of 64, and wgmma not turned off)

func.func @attention(%q: memref<?x?x?x128xf8E4M3FN>,
                     %k: memref<?x?x?x128xf8E4M3FN>,
                     %v: memref<?x?x128x?xf8E4M3FN>,
                     %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>,
                     %s: f32, %qd: f32, %kd: f32, %vd: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) scale(%s)
      descale(%qd, %kd, %vd) {causal, v_transposed}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}
