// RUN: attn-opt %s -split-input-file -attn-gpu-module-to-binary | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-gpu-module-to-binary="lsr-register-limit=0" | FileCheck %s --check-prefix=NEVER
// RUN: attn-opt %s -split-input-file -attn-gpu-module-to-binary="format=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: not attn-opt %s -attn-gpu-module-to-binary="format=ptx" 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// BADFORMAT: pass option format must be offloading, llvm, assembly, isa, binary, bin, fatbinary or fatbin, got 'ptx'

// gpu-module-to-binary, and LLVM's loop strength reduction off where a
// kernel's register estimate (attn.kernel, from attn-assign-layouts) reaches
// the limit (255): recorded as attn.lsr = false on the gpu.binary.

// CHECK-LABEL: gpu.binary @at_limit
// CHECK-SAME:    {attn.lsr = false}
// CHECK-SAME:    [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{.*}}, assembly = "
// NEVER-LABEL: gpu.binary @at_limit
// NEVER-NOT:     attn.lsr
// NEVER-SAME:    [#gpu.object
// LLVM-LABEL:  gpu.binary @at_limit
// LLVM-SAME:     {attn.lsr = false}
// LLVM-SAME:     offload = "
gpu.module @at_limit [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 255, dynamic_row_stride = true>} {
    llvm.return
  }
}

// -----

// Below the limit: LLVM's defaults.
// CHECK-LABEL: gpu.binary @below_limit
// CHECK-NOT:     attn.lsr
// CHECK-SAME:    [#gpu.object
gpu.module @below_limit [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 223, dynamic_row_stride = true>} {
    llvm.return
  }
}

// -----

// At the limit, but its tile copies have a compile-time row stride (the
// pass offsets are immediates): LSR stays on.
// CHECK-LABEL: gpu.binary @static_stride
// CHECK-NOT:     attn.lsr
// CHECK-SAME:    [#gpu.object
gpu.module @static_stride [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 255, dynamic_row_stride = false>} {
    llvm.return
  }
}

// -----

// At the limit with run-time strides (as without the flag above): LSR off.
// CHECK-LABEL: gpu.binary @dynamic_stride
// CHECK-SAME:    {attn.lsr = false}
gpu.module @dynamic_stride [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 255, dynamic_row_stride = true>} {
    llvm.return
  }
}

// -----

// A kernel without an estimate (not from attn-assign-layouts): defaults.
// CHECK-LABEL: gpu.binary @no_estimate
// CHECK-NOT:     attn.lsr
// CHECK-SAME:    [#gpu.object
gpu.module @no_estimate [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// One kernel at the limit is enough for every module translated with it.
// CHECK-LABEL: gpu.binary @first {attn.lsr = false}
// CHECK-LABEL: gpu.binary @second {attn.lsr = false}
gpu.module @first [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 200, dynamic_row_stride = true>} {
    llvm.return
  }
}
gpu.module @second [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel, attn.kernel = #attn.kernel_info<block_m = 128, block_n = 64, threads = 256, smem_bytes = 0, head_dim = 128, head_dim_v = 128, dtype = "bf16", causal = false, register_estimate = 300, dynamic_row_stride = true>} {
    llvm.return
  }
}
