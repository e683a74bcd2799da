// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_90a block-q=192" | FileCheck %s --check-prefix=STATIC
// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_90a block-q=128" | FileCheck %s --check-prefix=CLAIMED

// Who runs a bulk-copy producer's program on sm_90a. Three consumer
// warpgroups (192 rows at D = 64) leave the producer 32 registers, too few
// for the one-thread program that claims tiles: the grid keeps a static
// schedule, all 128 producer threads run the program, and the copying
// thread's warp reconverges (bar.warp.sync) before each of its copies and
// arrivals, so that no lane that only waits falls two phases behind (one
// that did waited for good: a launch hung). With two consumer warpgroups
// (128 rows) the tiles are claimed and the program runs in the copying
// thread alone.
// STATIC-LABEL: gpu.func @attention_kernel
// STATIC-SAME:    threads = 512
// STATIC-SAME:    persistent = true>
// STATIC:         nvvm.setmaxregister decrease 32
// STATIC-NOT:     llvm.atomicrmw
// STATIC:         nvvm.bar.warp.sync
// STATIC:         nvvm.cp.async.bulk.tensor.shared.cluster.global
// STATIC:         nvvm.bar.warp.sync
// STATIC:         nvvm.mbarrier.arrive.expect_tx
// CLAIMED-LABEL: gpu.func @attention_kernel
// CLAIMED-SAME:    threads = 384
// CLAIMED-SAME:    persistent = true, tile_counter = true>
// CLAIMED:         nvvm.setmaxregister decrease 40
// CLAIMED-NOT:     nvvm.bar.warp.sync
// CLAIMED:         llvm.atomicrmw add
// CLAIMED-NOT:     nvvm.bar.warp.sync
// CLAIMED:         gpu.return
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
