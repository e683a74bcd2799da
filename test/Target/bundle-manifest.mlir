// The bundle attn-bundle writes for the runtime: per (dtype, head dim,
// causal), a kernel with and one without the LSE, both in the memref kernel
// ABI (runtime/include/attn/runtime/KernelABI.h), named after their
// configuration.
// RUN: rm -rf %t && attn-bundle --out-dir %t --chips sm_80 --dtypes bf16 --head-dims 64
// RUN: FileCheck %s < %t/manifest.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/attn_fwd_bf16_d64_nolse_kernel.sm_80.ptx
// Without --ptxas the bundle is PTX only: no sass= keys.
// CHECK: # PTX only: the driver JIT-compiles each kernel on first use.
// CHECK-NOT: sass=
// CHECK: kernel name=attn_fwd_bf16_d64_kernel ptx=attn_fwd_bf16_d64_kernel.sm_80.ptx chip=sm_80 dtype=bf16 head_dim=64 head_dim_v=64 causal=0 block_m=128 block_n=64 threads=128 smem={{[0-9]+}} abi=memref lse=1
// CHECK: kernel name=attn_fwd_bf16_d64_nolse_kernel {{.*}} causal=0 {{.*}} abi=memref lse=0
// CHECK: kernel name=attn_fwd_bf16_d64_causal_kernel {{.*}} causal=1 {{.*}} abi=memref lse=1
// CHECK: kernel name=attn_fwd_bf16_d64_causal_nolse_kernel {{.*}} causal=1 {{.*}} abi=memref lse=0{{$}}
// CHECK-NOT: sass=
// The kernel without LSE takes q, k, v, o (4 x 11 descriptor fields) and
// the scale: 45 parameters.
// PTX: .entry attn_fwd_bf16_d64_nolse_kernel(
// PTX: attn_fwd_bf16_d64_nolse_kernel_param_44
// PTX-NOT: attn_fwd_bf16_d64_nolse_kernel_param_45
