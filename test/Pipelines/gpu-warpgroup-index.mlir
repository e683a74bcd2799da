// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a block-q=192" | FileCheck %s --check-prefix=Q192
// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s

// The warpgroup index (tid / 128 broadcast from lane 0) that Q's wgmma
// descriptors start from is computed once, first thing in the consumers'
// program, where that was measured to pay: three consumer warpgroups
// (192 query rows at D = 64), or two over a 16-bit Q of 128 columns
// beside a claiming producer of 48 registers (the consumers keep 224).
// LLVM then hoists the descriptors out of the loop. No other broadcast is
// left in the consumers' program.
// Q192-LABEL: gpu.func @attention_kernel
// Q192:         nvvm.setmaxregister  increase 160
// Q192-NEXT:    %[[WG:.*]] = arith.divui %{{.*}}, %c128_i32 : i32
// Q192-NEXT:    nvvm.shfl.sync  idx %{{.*}}, %[[WG]], %c0_i32, %c31_i32 : i32 -> i32
// Q192-NOT:     nvvm.shfl.sync  idx
// Q192:         nvvm.setmaxregister  decrease 32
// CHECK-LABEL:  gpu.func @attention_kernel
// CHECK-NOT:    nvvm.setmaxregister
!t = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !t, %o: !t,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) : !t, !t, !t, !t
  return
}

// -----

// D = 128: the claiming producer gets 48 registers (with 40 it spilled
// 12 B once the descriptors were hoisted).
// CHECK-LABEL:  gpu.func @attention_kernel
// CHECK:        nvvm.setmaxregister  increase 224
// CHECK-NEXT:   %[[WG:.*]] = arith.divui %{{.*}}, %c128_i32 : i32
// CHECK-NEXT:   nvvm.shfl.sync  idx %{{.*}}, %[[WG]], %c0_i32, %c31_i32 : i32 -> i32
// CHECK-NOT:    nvvm.shfl.sync  idx
// CHECK:        nvvm.setmaxregister  decrease 48
!t = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !t, %o: !t,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) : !t, !t, !t, !t
  return
}

// -----

// D = 256: hoisted, it spilled 56-72 B before the role split, so every
// wgmma of Q·Kᵀ keeps its own broadcast.
// CHECK-LABEL:  gpu.func @attention_kernel
// CHECK:        nvvm.setmaxregister  increase 224
// CHECK-NOT:    nvvm.shfl.sync  idx
// CHECK:        scf.while
// CHECK:        nvvm.shfl.sync  idx
// CHECK:        nvvm.wgmma.mma_async
// CHECK:        nvvm.shfl.sync  idx
// CHECK:        nvvm.setmaxregister  decrease 48
!t = memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !t, %o: !t,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) : !t, !t, !t, !t
  return
}
