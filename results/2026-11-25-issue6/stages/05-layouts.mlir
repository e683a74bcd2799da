module {
  func.func @attention(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) {
    %cst = arith.constant dense<0.0883883461> : tensor<128xf32>
    %cst_0 = arith.constant dense<1.000000e+00> : tensor<128xf32>
    %cst_1 = arith.constant dense<0.127517432> : tensor<128x64xf32>
    %cst_2 = arith.constant dense<8.000000e+00> : tensor<128xf32>
    %cst_3 = arith.constant dense<0.127517432> : tensor<128xf32>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %cst_7 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xbf16>
    %dim_8 = memref.dim %arg0, %c1 : memref<?x?x?x128xbf16>
    %dim_9 = memref.dim %arg0, %c2 : memref<?x?x?x128xbf16>
    %dim_10 = memref.dim %arg1, %c1 : memref<?x?x?x128xbf16>
    %dim_11 = memref.dim %arg1, %c2 : memref<?x?x?x128xbf16>
    %0 = arith.divui %dim_8, %dim_10 : index
    %1 = arith.ceildivsi %dim_9, %c128 : index
    scf.forall (%arg5, %arg6, %arg7) in (%dim, %dim_8, %1) {
      %cst_12 = arith.constant dense<0.0883883461> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_13 = arith.constant dense<1.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_14 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #attn.mma<warps = 4>>
      %cst_15 = arith.constant dense<0.127517432> : tensor<128x64xf32, #attn.mma<warps = 4>>
      %cst_16 = arith.constant dense<0.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_17 = arith.constant dense<0xFF800000> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_18 = arith.constant dense<8.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_19 = arith.constant dense<0.127517432> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_20 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #attn.mma<warps = 4>>
      %2 = arith.divui %arg6, %0 : index
      %3 = arith.muli %arg7, %c128 : index
      %4 = arith.subi %dim_9, %3 : index
      %5 = arith.minsi %4, %c128 : index
      %6 = attn.load_tile %arg0[%arg5, %arg6, %3] rows %5 : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
      %7 = arith.subi %dim_11, %dim_9 : index
      %8 = arith.addi %3, %5 : index
      %9 = arith.addi %8, %7 : index
      %10 = arith.minsi %dim_11, %9 : index
      %11 = arith.maxsi %10, %c0 : index
      %12 = arith.ceildivsi %11, %c64 : index
      %13 = arith.addi %3, %7 : index
      %14 = arith.addi %13, %c1 : index
      %15 = arith.floordivsi %14, %c64 : index
      %16 = arith.maxsi %15, %c0 : index
      %17 = arith.floordivsi %dim_11, %c64 : index
      %18 = arith.minsi %16, %17 : index
      %19 = arith.minsi %18, %12 : index
      %20:3 = scf.for %arg8 = %c0 to %19 step %c1 iter_args(%arg9 = %cst_17, %arg10 = %cst_16, %arg11 = %cst_14) -> (tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>) {
        %33 = arith.muli %arg8, %c64 : index
        %34 = attn.load_tile %arg1[%arg5, %2, %33] rows %c64 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
        %35 = attn.dot %6, %34, %cst_20 {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %36 = attn.reduce  max %35 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %37 = arith.maximumf %arg9, %36 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %38 = arith.subf %37, %arg9 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %39 = arith.mulf %38, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %40 = arith.cmpf ogt, %39, %cst_18 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %41 = arith.select %40, %37, %arg9 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %42 = arith.cmpf oeq, %41, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %43 = arith.select %42, %cst_16, %41 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %44 = attn.broadcast %43 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %45 = arith.subf %35, %44 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %46 = arith.mulf %45, %cst_15 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %47 = math.exp2 %46 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %48 = arith.subf %arg9, %43 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %49 = arith.mulf %48, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %50 = math.exp2 %49 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %51 = attn.reduce  sum %47 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %52 = arith.mulf %50, %arg10 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %53 = arith.addf %52, %51 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %54 = attn.broadcast %50 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        %55 = arith.mulf %54, %arg11 {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
        %56 = arith.truncf %47 : tensor<128x64xf32, #attn.mma<warps = 4>> to tensor<128x64xbf16, #attn.mma<warps = 4>>
        %57 = attn.load_tile %arg2[%arg5, %2, %33] rows %c64 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
        %58 = attn.dot %56, %57, %55 : tensor<128x64xbf16, #attn.mma<warps = 4>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        scf.yield %41, %53, %58 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %21:3 = scf.for %arg8 = %19 to %12 step %c1 iter_args(%arg9 = %20#0, %arg10 = %20#1, %arg11 = %20#2) -> (tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>) {
        %33 = arith.muli %arg8, %c64 : index
        %34 = arith.subi %dim_11, %33 : index
        %35 = arith.minsi %34, %c64 : index
        %36 = attn.load_tile %arg1[%arg5, %2, %33] rows %35 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
        %37 = attn.dot %6, %36, %cst_20 {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %38 = attn.mask %37 q(%3, %dim_9) kv(%33, %dim_11) {causal} : tensor<128x64xf32, #attn.mma<warps = 4>>
        %39 = attn.reduce  max %38 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %40 = arith.maximumf %arg9, %39 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %41 = arith.subf %40, %arg9 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %42 = arith.mulf %41, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %43 = arith.cmpf ogt, %42, %cst_18 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %44 = arith.select %43, %40, %arg9 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %45 = arith.cmpf oeq, %44, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %46 = arith.select %45, %cst_16, %44 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %47 = attn.broadcast %46 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %48 = arith.subf %38, %47 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %49 = arith.mulf %48, %cst_15 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %50 = math.exp2 %49 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %51 = arith.subf %arg9, %46 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %52 = arith.mulf %51, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %53 = math.exp2 %52 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %54 = attn.reduce  sum %50 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %55 = arith.mulf %53, %arg10 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %56 = arith.addf %55, %54 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %57 = attn.broadcast %53 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        %58 = arith.mulf %57, %arg11 {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
        %59 = arith.truncf %50 : tensor<128x64xf32, #attn.mma<warps = 4>> to tensor<128x64xbf16, #attn.mma<warps = 4>>
        %60 = attn.load_tile %arg2[%arg5, %2, %33] rows %35 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
        %61 = attn.dot %59, %60, %58 : tensor<128x64xbf16, #attn.mma<warps = 4>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        scf.yield %44, %56, %61 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %22 = arith.cmpf oeq, %21#1, %cst_16 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %23 = arith.select %22, %cst_13, %21#1 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_21 = arith.constant dense<1.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %24 = arith.divf %cst_21, %23 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %25 = attn.broadcast %24 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
      %26 = arith.mulf %21#2, %25 : tensor<128x128xf32, #attn.mma<warps = 4>>
      %27 = arith.cmpf oeq, %21#0, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %28 = arith.select %27, %cst_16, %21#0 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      attn.store_tile %26, %arg3[%arg5, %arg6, %3] rows %5 : tensor<128x128xf32, #attn.mma<warps = 4>>, memref<?x?x?x128xbf16>
      %29 = arith.mulf %28, %cst_12 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %30 = math.log %23 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %31 = arith.addf %29, %30 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %32 = arith.select %22, %cst_17, %31 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      attn.store_tile %32, %arg4[%arg5, %arg6, %3] rows %5 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, memref<?x?x?xf32>
    } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
    return
  }
}

