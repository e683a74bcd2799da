// A tile-level program whose score path does more than the built-in
// softmax: a tanh soft-cap on the raw scores before the online softmax,
//   O = softmax(scale · cap·tanh(QKᵀ / cap)) · V,  cap = 8, scale = 1/sqrt(128),
// written at the tile level (the fused form attn-tile-attention and
// attn-fuse-online-softmax give for a bf16, D = 128 attention, with the cap
// inserted after each S = Q·Kᵀ). The GPU backend lowers the extra arith/math
// ops like any other elementwise op (tanh from ex2 and rcp per element: no
// `afn`, so not tanh.approx), and the
// GPU check (tools/scripts/gpu_programs.py) compares it with float64.
// program: {"variant": "softcap", "softcap": 8.0, "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse"], "bench": false}
// RUN: attn-opt %s -attn-assign-layouts -attn-pipeline-kv-loop -convert-attn-gpu-to-nvvm | FileCheck %s --check-prefix=IR --implicit-check-not=math.tanh
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// IR-LABEL: gpu.func @attention_kernel
// IR:         arith.andi %{{.*}}, %c2147483647_i32 : i32
// IR:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// IR:         llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// IR:         arith.ori
// PTX:        .entry attention_kernel
// On sm_90a: S = Q·Kᵀ (128x32 blocks) on wgmma with both operands in
// shared memory, O += P·V with P from registers.
// PTX:        wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 0, {{ *}}0;
// PTX:        wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 1;
// PTX:        ex2.approx.ftz.f32
func.func @attention(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) {
    %cst = arith.constant dense<0.0883883461> : tensor<128xf32>
    %cst_0 = arith.constant dense<1.000000e+00> : tensor<128xf32>
    %cst_1 = arith.constant dense<0.127517432> : tensor<128xf32>
    %cst_2 = arith.constant dense<0.127517432> : tensor<128x32xf32>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<128x32xf32>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %cst_6 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xbf16>
    %dim_7 = memref.dim %arg0, %c1 : memref<?x?x?x128xbf16>
    %dim_8 = memref.dim %arg0, %c2 : memref<?x?x?x128xbf16>
    %dim_9 = memref.dim %arg1, %c1 : memref<?x?x?x128xbf16>
    %dim_10 = memref.dim %arg1, %c2 : memref<?x?x?x128xbf16>
    %0 = arith.divui %dim_7, %dim_9 : index
    %1 = arith.ceildivsi %dim_8, %c128 : index
    scf.forall (%arg5, %arg6, %arg7) in (%dim, %dim_7, %1) {
      %2 = arith.divui %arg6, %0 : index
      %3 = arith.muli %arg7, %c128 : index
      %4 = arith.subi %dim_8, %3 : index
      %5 = arith.minsi %4, %c128 : index
      %6 = attn.load_tile %arg0[%arg5, %arg6, %3] rows %5 : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
      %7 = arith.ceildivsi %dim_10, %c32 : index
      %8 = arith.floordivsi %dim_10, %c32 : index
      %9:3 = scf.for %arg8 = %c0 to %8 step %c1 iter_args(%arg9 = %cst_6, %arg10 = %cst_5, %arg11 = %cst_4) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %21 = arith.muli %arg8, %c32 : index
        %22 = arith.subi %dim_10, %21 : index
        %23 = arith.minsi %22, %c32 : index
        %24 = attn.load_tile %arg1[%arg5, %2, %21] rows %23 : memref<?x?x?x128xbf16> -> tensor<32x128xbf16>
        %25 = attn.dot %6, %24, %cst_3 {rhs_transposed} : tensor<128x128xbf16>, tensor<32x128xbf16> -> tensor<128x32xf32>
        // Soft-cap: S <- cap * tanh(S / cap), cap = 8.
        %capinv_25 = arith.constant dense<0.125> : tensor<128x32xf32>
        %sc_25 = arith.mulf %25, %capinv_25 : tensor<128x32xf32>
        %th_25 = math.tanh %sc_25 : tensor<128x32xf32>
        %cap_25 = arith.constant dense<8.0> : tensor<128x32xf32>
        %capped_25 = arith.mulf %th_25, %cap_25 : tensor<128x32xf32>
        %26 = attn.reduce  max %capped_25 : tensor<128x32xf32> -> tensor<128xf32>
        %27 = arith.maximumf %arg9, %26 : tensor<128xf32>
        %28 = arith.cmpf oeq, %27, %cst_6 : tensor<128xf32>
        %29 = arith.select %28, %cst_5, %27 : tensor<128xi1>, tensor<128xf32>
        %30 = attn.broadcast %29 : tensor<128xf32> -> tensor<128x32xf32>
        %31 = arith.subf %capped_25, %30 : tensor<128x32xf32>
        %32 = arith.mulf %31, %cst_2 : tensor<128x32xf32>
        %33 = math.exp2 %32 : tensor<128x32xf32>
        %34 = arith.subf %arg9, %29 : tensor<128xf32>
        %35 = arith.mulf %34, %cst_1 : tensor<128xf32>
        %36 = math.exp2 %35 : tensor<128xf32>
        %37 = attn.reduce  sum %33 : tensor<128x32xf32> -> tensor<128xf32>
        %38 = arith.mulf %36, %arg10 : tensor<128xf32>
        %39 = arith.addf %38, %37 : tensor<128xf32>
        %40 = attn.broadcast %36 : tensor<128xf32> -> tensor<128x128xf32>
        %41 = arith.mulf %40, %arg11 : tensor<128x128xf32>
        %42 = arith.truncf %33 : tensor<128x32xf32> to tensor<128x32xbf16>
        %43 = attn.load_tile %arg2[%arg5, %2, %21] rows %23 : memref<?x?x?x128xbf16> -> tensor<32x128xbf16>
        %44 = attn.dot %42, %43, %41 : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
        scf.yield %27, %39, %44 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %10:3 = scf.for %arg8 = %8 to %7 step %c1 iter_args(%arg9 = %9#0, %arg10 = %9#1, %arg11 = %9#2) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %21 = arith.muli %arg8, %c32 : index
        %22 = arith.subi %dim_10, %21 : index
        %23 = arith.minsi %22, %c32 : index
        %24 = attn.load_tile %arg1[%arg5, %2, %21] rows %23 : memref<?x?x?x128xbf16> -> tensor<32x128xbf16>
        %25 = attn.dot %6, %24, %cst_3 {rhs_transposed} : tensor<128x128xbf16>, tensor<32x128xbf16> -> tensor<128x32xf32>
        // Soft-cap: S <- cap * tanh(S / cap), cap = 8.
        %capinv_25 = arith.constant dense<0.125> : tensor<128x32xf32>
        %sc_25 = arith.mulf %25, %capinv_25 : tensor<128x32xf32>
        %th_25 = math.tanh %sc_25 : tensor<128x32xf32>
        %cap_25 = arith.constant dense<8.0> : tensor<128x32xf32>
        %capped_25 = arith.mulf %th_25, %cap_25 : tensor<128x32xf32>
        %26 = attn.mask %capped_25 q(%3, %dim_8) kv(%21, %dim_10) : tensor<128x32xf32>
        %27 = attn.reduce  max %26 : tensor<128x32xf32> -> tensor<128xf32>
        %28 = arith.maximumf %arg9, %27 : tensor<128xf32>
        %29 = arith.cmpf oeq, %28, %cst_6 : tensor<128xf32>
        %30 = arith.select %29, %cst_5, %28 : tensor<128xi1>, tensor<128xf32>
        %31 = attn.broadcast %30 : tensor<128xf32> -> tensor<128x32xf32>
        %32 = arith.subf %26, %31 : tensor<128x32xf32>
        %33 = arith.mulf %32, %cst_2 : tensor<128x32xf32>
        %34 = math.exp2 %33 : tensor<128x32xf32>
        %35 = arith.subf %arg9, %30 : tensor<128xf32>
        %36 = arith.mulf %35, %cst_1 : tensor<128xf32>
        %37 = math.exp2 %36 : tensor<128xf32>
        %38 = attn.reduce  sum %34 : tensor<128x32xf32> -> tensor<128xf32>
        %39 = arith.mulf %37, %arg10 : tensor<128xf32>
        %40 = arith.addf %39, %38 : tensor<128xf32>
        %41 = attn.broadcast %37 : tensor<128xf32> -> tensor<128x128xf32>
        %42 = arith.mulf %41, %arg11 : tensor<128x128xf32>
        %43 = arith.truncf %34 : tensor<128x32xf32> to tensor<128x32xbf16>
        %44 = attn.load_tile %arg2[%arg5, %2, %21] rows %23 : memref<?x?x?x128xbf16> -> tensor<32x128xbf16>
        %45 = attn.dot %43, %44, %42 : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
        scf.yield %28, %40, %45 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %11 = arith.cmpf oeq, %10#1, %cst_5 : tensor<128xf32>
      %12 = arith.select %11, %cst_0, %10#1 : tensor<128xi1>, tensor<128xf32>
      %13 = attn.broadcast %12 : tensor<128xf32> -> tensor<128x128xf32>
      %14 = arith.divf %10#2, %13 : tensor<128x128xf32>
      %15 = arith.cmpf oeq, %10#0, %cst_6 : tensor<128xf32>
      %16 = arith.select %15, %cst_5, %10#0 : tensor<128xi1>, tensor<128xf32>
      attn.store_tile %14, %arg3[%arg5, %arg6, %3] rows %5 : tensor<128x128xf32>, memref<?x?x?x128xbf16>
      %17 = arith.mulf %16, %cst : tensor<128xf32>
      %18 = math.log %12 : tensor<128xf32>
      %19 = arith.addf %17, %18 : tensor<128xf32>
      %20 = arith.select %11, %cst_6, %19 : tensor<128xi1>, tensor<128xf32>
      attn.store_tile %20, %arg4[%arg5, %arg6, %3] rows %5 : tensor<128xf32>, memref<?x?x?xf32>
    } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
    return
  }
