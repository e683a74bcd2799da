// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx | FileCheck %s
// The legacy builder is gone: its option is an unknown one.
// RUN: not attn-opt %s --attn-codegen="chip=sm_80 backend=legacy" --emit=ptx 2>&1 | FileCheck %s --check-prefix=LEGACY
// RUN: attn-opt %s --attn-codegen="chip=sm_90a producer=0 rotate=0" --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=SM90 \
// RUN:   --implicit-check-not=mma.sync.aligned --implicit-check-not=cp.async.wait_group < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_90a persistent=1" --emit=ptx | FileCheck %s --check-prefix=SPEC
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx | FileCheck %s --check-prefix=NOCPASYNC
// RUN: attn-opt %s --attn-codegen="chip=sm_90a bulk-copies=0" --emit=ptx | FileCheck %s --check-prefix=CPASYNC
// RUN: attn-opt %s --attn-codegen="chip=sm_90a bulk-copies=0" --emit=ptx | FileCheck %s --check-prefix=NOBULK
// RUN: not attn-opt %s --attn-codegen="chip=sm_75" --emit=ptx 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: attn-opt %s --attn-codegen="chip=sm_90a kv-stages=1" --emit=ptx | FileCheck %s --check-prefix=ONESLOT
// RUN: attn-opt %s --attn-codegen="chip=sm_90a wgmma=0" --emit=ptx | FileCheck %s --check-prefix=MMASYNC
// RUN: attn-opt %s --attn-codegen="chip=sm_90a mbarriers=0" --emit=ptx | FileCheck %s --check-prefix=GROUPS
// RUN: attn-opt %s --attn-codegen="chip=sm_90a rotate=1" --emit=ptx | FileCheck %s --check-prefix=ROTATE
// RUN: not attn-opt %s --attn-codegen="chip=sm_90a kv-stages=-1" --emit=ptx 2>&1 | FileCheck %s --check-prefix=BADSTAGES
// RUN: attn-opt %s --attn-codegen="chip=sm_90a persistent=2" --emit=ptx | FileCheck %s --check-prefix=DYNAMIC

// The whole pipeline down to PTX: the instructions we meant are there.
// CHECK:       .version 8.0
// CHECK:       .target sm_80
// CHECK:       .visible .entry attention_kernel(
// CHECK:       .maxntid 128, 1, 1
// (LLVM lays the loops out rotated: the body's order is not the text's.)
// Copies with a run-time row count (Q, the masked blocks) and without (the
// whole blocks of the unmasked segment):
// CHECK-DAG:   cp.async.cg.shared.global [%{{[a-z0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-DAG:   cp.async.cg.shared.global [%{{[a-z0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16;
// CHECK-DAG:   cp.async.commit_group;
// CHECK-DAG:   cp.async.wait_group 0;
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG:   shfl.sync.bfly.b32
// CHECK-DAG:   ex2.approx.ftz.f32
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG:   lg2.approx.ftz.f32

// LEGACY:      <Pass-Options-Parser>: no such option backend
// LEGACY-NEXT: attn-opt: error: bad --attn-codegen options 'chip=sm_80 backend=legacy'

// sm_90a: Hopper's warpgroup MMA, 256 threads (two warpgroups of 64 query
// rows). The K/V rings are synchronised per slot: thread 0 initialises two
// mbarriers per slot (expecting all 256 threads; the rings' barriers after
// every tile: Q, K's and V's two slots, 160 KiB), each thread signs its
// copies with cp.async.mbarrier.arrive.noinc, waits for a slot with
// try_wait.parity, fences into the async proxy (wgmma reads shared memory
// through it) and releases the slot with mbarrier.arrive right after the
// wgmma that read it. Each dot is a wgmma.fence, its k-steps (S = Q·Kᵀ: 8
// of k16 from two descriptors; O += P·V: 8, P from registers), one commit
// and a wait.
// SM90:        .target sm_90a
// SM90:        .extern .shared .align 1024 .b8 attn_smem[];
// SM90:        .maxntid 256, 1, 1
// SM90:        mbarrier.init.shared.b64 [attn_smem+163840], %r{{[0-9]+}};
// SM90:        bar.sync 0;
// SM90:        cp.async.mbarrier.arrive.noinc.shared.b64
// SM90:        mbarrier.try_wait.parity.shared.b64
// SM90:        fence.proxy.async.shared::cta;
// SM90:        wgmma.fence.sync.aligned;
// SM90-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 0, {{ *}}0;
// SM90:        wgmma.commit_group.sync.aligned;
// SM90-NEXT:   wgmma.wait_group.sync.aligned 0;
// SM90-NEXT:   mbarrier.arrive.shared.b64
// SM90:        wgmma.fence.sync.aligned;
// SM90-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 1;
// SM90:        wgmma.commit_group.sync.aligned;
// SM90-NEXT:   wgmma.wait_group.sync.aligned 0;
// SM90-NEXT:   mbarrier.arrive.shared.b64

// By default a producer warpgroup (attn-specialize-warpgroups): 384
// threads, one block per multiprocessor (the register cap setmaxnreg
// needs); after the rings' barriers are initialised the consumers raise
// their registers to 240 and run the products, the producer lowers its own
// to 24 and one of its threads issues every copy as bulk tensor copies
// (TMA) from the tensor maps of q, k and v (grid-constant parameters after
// the memrefs, their addresses taken in the parameter space), announcing
// each fill's bytes on the slot's barrier. The consumers' unmasked loop is
// rotated (attn-rotate-kv-loop): S_j waited for alone while P·V of block
// j − 1 runs on.
// SPEC:        .target sm_90a
// SPEC:        .param .align 64 .b8 attention_kernel_param_53[128],
// SPEC-NEXT:   .param .align 64 .b8 attention_kernel_param_54[128],
// SPEC-NEXT:   .param .align 64 .b8 attention_kernel_param_55[128]
// SPEC-NEXT:  )
// SPEC:        .maxntid 384, 1, 1
// SPEC-NEXT:   .minnctapersm 1
// SPEC:        cvta.param.u64
// SPEC:        mbarrier.init.shared.b64
// SPEC:        bar.sync 0;
// SPEC:        setmaxnreg.inc.sync.aligned.u32 240;
// The roles' code in whatever order LLVM places the branches:
// SPEC-DAG:    wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SPEC-DAG:    wgmma.wait_group.sync.aligned 1;
// SPEC-DAG:    setmaxnreg.dec.sync.aligned.u32 24;
// SPEC-DAG:    cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SPEC-DAG:    mbarrier.arrive.expect_tx.shared.b64
// No copy by the threads themselves anywhere:
// NOCPASYNC:     .target sm_90a
// NOCPASYNC-NOT: cp.async.cg
// NOCPASYNC-NOT: cp.async.mbarrier.arrive

// bulk-copies=0: the producer copies with cp.async (each of its 128 threads
// a share of every tile) and keeps 80 registers; the consumers get 208.
// CPASYNC:        .maxntid 384, 1, 1
// CPASYNC-NOT:    .b8 attention_kernel_param
// CPASYNC:        mbarrier.init.shared.b64
// CPASYNC:        bar.sync 0;
// CPASYNC:        setmaxnreg.inc.sync.aligned.u32 208;
// CPASYNC-DAG:    wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CPASYNC-DAG:    setmaxnreg.dec.sync.aligned.u32 80;
// CPASYNC-DAG:    cp.async.cg.shared.global
// CPASYNC-DAG:    cp.async.mbarrier.arrive.noinc.shared.b64
// NOBULK:         .target sm_90a
// NOBULK-NOT:     cp.async.bulk

// rotate=1: in the rotated loop S_j and P_{j-1}·V_{j-1} are committed as two
// groups, S_j is waited for alone (one group left in flight) and K's slot
// released, then P·V is waited for and V's slot released.
// ROTATE:      wgmma.commit_group.sync.aligned;
// ROTATE:      wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 1;
// ROTATE:      wgmma.commit_group.sync.aligned;
// ROTATE-NEXT: // begin inline asm
// ROTATE-NEXT: wgmma.wait_group.sync.aligned 1;
// ROTATE:      mbarrier.arrive.shared.b64
// ROTATE:      wgmma.wait_group.sync.aligned 0;
// ROTATE:      mbarrier.arrive.shared.b64

// mbarriers=0: copy groups; each is fenced into the async proxy before the
// program-wide barrier that publishes it.
// GROUPS:      .target sm_90a
// GROUPS-NOT:  mbarrier
// GROUPS:      cp.async.wait_group 0;
// GROUPS-NEXT: fence.proxy.async.shared::cta;
// GROUPS-NEXT: bar.sync 0;
// GROUPS:      wgmma.mma_async

// wgmma=0 keeps sm_90a on mma.sync (128 threads, two m-tiles per warp).
// MMASYNC:     .target sm_90a
// MMASYNC:     .maxntid 128, 1, 1
// MMASYNC:     mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMASYNC-NOT: wgmma

// BADCHIP: attn-opt: error: unsupported chip 'sm_75' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)

// One slot per K/V tile: two waits per key/value loop (K, then V), each
// for every group (two loops: unmasked, masked), never one that leaves a
// group in flight.
// ONESLOT:         .target sm_90a
// ONESLOT-NOT:     cp.async.wait_group{{[[:space:]]+}}{{[1-9]}}
// ONESLOT-COUNT-4: cp.async.wait_group{{[[:space:]]+}}0;
// ONESLOT-NOT:     cp.async.wait_group

// BADSTAGES: error: pass option stages must be 0 (auto) or in [1, 8], got -1

// A causal grid made persistent claims its tiles from the launch's counter:
// the counter is the last parameter, a global pointer after the three
// grid-constant tensor maps; the producer's claim is one atomic add, and
// the claim that draws the last tile zeroes the counter.
// DYNAMIC:      .param .align 64 .b8 attention_kernel_param_53[128],
// DYNAMIC-NEXT: .param .align 64 .b8 attention_kernel_param_54[128],
// DYNAMIC-NEXT: .param .align 64 .b8 attention_kernel_param_55[128],
// DYNAMIC-NEXT: .param .u64 .ptr .global .align 1 attention_kernel_param_56
// DYNAMIC-NEXT: )
// DYNAMIC:      ld.param.b64 %[[CTR:rd[0-9]+]], [attention_kernel_param_56];
// DYNAMIC:      atom.global.add.u32 %{{r[0-9]+}}, [%[[CTR]]], 1;
// DYNAMIC:      st.global.b32 [%[[CTR]]], 0;

func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
