// attn-run's GPU targets on a machine without a usable GPU (CI): --target gpu
// says why and exits 1; --target auto falls back to the CPU and still checks.
// REQUIRES: no-gpu
// RUN: not attn-run --target gpu --dtype bf16 --seq-q 64 --check 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: attn-run --target auto --dtype bf16 --seq-q 64 --causal --check | FileCheck %s --check-prefix=AUTO
// RUN: not attn-run --target gpu --dtype f32 --seq-q 64 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not attn-run --target gpu --chip sm_75 --dtype bf16 --seq-q 64 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not attn-run --target tpu 2>&1 | FileCheck %s --check-prefix=BAD
// fp8 has no CPU path: --target auto (the default) is the GPU, and says why
// it cannot run there.
// RUN: not attn-run --dtype e4m3 --head-dim 128 --seq-q 64 --check 2>&1 | FileCheck %s --check-prefix=GPU

// GPU: attn-run: error: {{.*(no CUDA driver|stub library|no CUDA-capable|no usable).*}}
// AUTO: attn-run: not on the GPU ({{.*}}); running on the CPU
// AUTO: target=cpu dtype=bf16
// AUTO: PASS
// F32: attn-run: error: unsupported: --target gpu runs f16 and bf16 (the tensor cores' inputs); f32 runs on --target cpu
// CHIP: attn-run: error: unsupported chip 'sm_75' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// BAD: attn-run: error: unknown --target 'tpu' (expected cpu, gpu or auto)
