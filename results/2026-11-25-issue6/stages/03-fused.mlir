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
      %2 = arith.divui %arg6, %0 : index
      %3 = arith.muli %arg7, %c128 : index
      %4 = arith.subi %dim_9, %3 : index
      %5 = arith.minsi %4, %c128 : index
      %6 = attn.load_tile %arg0[%arg5, %arg6, %3] rows %5 : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
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
      %20:3 = scf.for %arg8 = %c0 to %19 step %c1 iter_args(%arg9 = %cst_7, %arg10 = %cst_6, %arg11 = %cst_5) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %32 = arith.muli %arg8, %c64 : index
        %33 = attn.load_tile %arg1[%arg5, %2, %32] rows %c64 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %34 = attn.dot %6, %33, %cst_4 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %35 = attn.reduce  max %34 : tensor<128x64xf32> -> tensor<128xf32>
        %36 = arith.maximumf %arg9, %35 : tensor<128xf32>
        %37 = arith.subf %36, %arg9 : tensor<128xf32>
        %38 = arith.mulf %37, %cst_3 : tensor<128xf32>
        %39 = arith.cmpf ogt, %38, %cst_2 : tensor<128xf32>
        %40 = arith.select %39, %36, %arg9 : tensor<128xi1>, tensor<128xf32>
        %41 = arith.cmpf oeq, %40, %cst_7 : tensor<128xf32>
        %42 = arith.select %41, %cst_6, %40 : tensor<128xi1>, tensor<128xf32>
        %43 = attn.broadcast %42 : tensor<128xf32> -> tensor<128x64xf32>
        %44 = arith.subf %34, %43 : tensor<128x64xf32>
        %45 = arith.mulf %44, %cst_1 : tensor<128x64xf32>
        %46 = math.exp2 %45 : tensor<128x64xf32>
        %47 = arith.subf %arg9, %42 : tensor<128xf32>
        %48 = arith.mulf %47, %cst_3 : tensor<128xf32>
        %49 = math.exp2 %48 : tensor<128xf32>
        %50 = attn.reduce  sum %46 : tensor<128x64xf32> -> tensor<128xf32>
        %51 = arith.mulf %49, %arg10 : tensor<128xf32>
        %52 = arith.addf %51, %50 : tensor<128xf32>
        %53 = attn.broadcast %49 : tensor<128xf32> -> tensor<128x128xf32>
        %54 = arith.mulf %53, %arg11 : tensor<128x128xf32>
        %55 = arith.truncf %46 : tensor<128x64xf32> to tensor<128x64xbf16>
        %56 = attn.load_tile %arg2[%arg5, %2, %32] rows %c64 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %57 = attn.dot %55, %56, %54 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        scf.yield %40, %52, %57 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %21:3 = scf.for %arg8 = %19 to %12 step %c1 iter_args(%arg9 = %20#0, %arg10 = %20#1, %arg11 = %20#2) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %32 = arith.muli %arg8, %c64 : index
        %33 = arith.subi %dim_11, %32 : index
        %34 = arith.minsi %33, %c64 : index
        %35 = attn.load_tile %arg1[%arg5, %2, %32] rows %34 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %36 = attn.dot %6, %35, %cst_4 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %37 = attn.mask %36 q(%3, %dim_9) kv(%32, %dim_11) {causal} : tensor<128x64xf32>
        %38 = attn.reduce  max %37 : tensor<128x64xf32> -> tensor<128xf32>
        %39 = arith.maximumf %arg9, %38 : tensor<128xf32>
        %40 = arith.subf %39, %arg9 : tensor<128xf32>
        %41 = arith.mulf %40, %cst_3 : tensor<128xf32>
        %42 = arith.cmpf ogt, %41, %cst_2 : tensor<128xf32>
        %43 = arith.select %42, %39, %arg9 : tensor<128xi1>, tensor<128xf32>
        %44 = arith.cmpf oeq, %43, %cst_7 : tensor<128xf32>
        %45 = arith.select %44, %cst_6, %43 : tensor<128xi1>, tensor<128xf32>
        %46 = attn.broadcast %45 : tensor<128xf32> -> tensor<128x64xf32>
        %47 = arith.subf %37, %46 : tensor<128x64xf32>
        %48 = arith.mulf %47, %cst_1 : tensor<128x64xf32>
        %49 = math.exp2 %48 : tensor<128x64xf32>
        %50 = arith.subf %arg9, %45 : tensor<128xf32>
        %51 = arith.mulf %50, %cst_3 : tensor<128xf32>
        %52 = math.exp2 %51 : tensor<128xf32>
        %53 = attn.reduce  sum %49 : tensor<128x64xf32> -> tensor<128xf32>
        %54 = arith.mulf %52, %arg10 : tensor<128xf32>
        %55 = arith.addf %54, %53 : tensor<128xf32>
        %56 = attn.broadcast %52 : tensor<128xf32> -> tensor<128x128xf32>
        %57 = arith.mulf %56, %arg11 : tensor<128x128xf32>
        %58 = arith.truncf %49 : tensor<128x64xf32> to tensor<128x64xbf16>
        %59 = attn.load_tile %arg2[%arg5, %2, %32] rows %34 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %60 = attn.dot %58, %59, %57 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        scf.yield %43, %55, %60 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %22 = arith.cmpf oeq, %21#1, %cst_6 : tensor<128xf32>
      %23 = arith.select %22, %cst_0, %21#1 : tensor<128xi1>, tensor<128xf32>
      %24 = attn.broadcast %23 : tensor<128xf32> -> tensor<128x128xf32>
      %25 = arith.divf %21#2, %24 : tensor<128x128xf32>
      %26 = arith.cmpf oeq, %21#0, %cst_7 : tensor<128xf32>
      %27 = arith.select %26, %cst_6, %21#0 : tensor<128xi1>, tensor<128xf32>
      attn.store_tile %25, %arg3[%arg5, %arg6, %3] rows %5 : tensor<128x128xf32>, memref<?x?x?x128xbf16>
      %28 = arith.mulf %27, %cst : tensor<128xf32>
      %29 = math.log %23 : tensor<128xf32>
      %30 = arith.addf %28, %29 : tensor<128xf32>
      %31 = arith.select %22, %cst_7, %30 : tensor<128xi1>, tensor<128xf32>
      attn.store_tile %31, %arg4[%arg5, %arg6, %3] rows %5 : tensor<128xf32>, memref<?x?x?xf32>
    } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
    return
  }
}

