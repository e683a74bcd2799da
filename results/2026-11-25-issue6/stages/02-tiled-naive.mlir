module {
  func.func @attention(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xbf16>
    %c1 = arith.constant 1 : index
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?x?x128xbf16>
    %c2 = arith.constant 2 : index
    %dim_1 = memref.dim %arg0, %c2 : memref<?x?x?x128xbf16>
    %c1_2 = arith.constant 1 : index
    %dim_3 = memref.dim %arg1, %c1_2 : memref<?x?x?x128xbf16>
    %c2_4 = arith.constant 2 : index
    %dim_5 = memref.dim %arg1, %c2_4 : memref<?x?x?x128xbf16>
    %0 = arith.divui %dim_0, %dim_3 : index
    %c128 = arith.constant 128 : index
    %c64 = arith.constant 64 : index
    %1 = arith.ceildivsi %dim_1, %c128 : index
    scf.forall (%arg5, %arg6, %arg7) in (%dim, %dim_0, %1) {
      %2 = arith.divui %arg6, %0 : index
      %3 = arith.muli %arg7, %c128 : index
      %4 = arith.subi %dim_1, %3 : index
      %5 = arith.minsi %4, %c128 : index
      %6 = attn.load_tile %arg0[%arg5, %arg6, %3] rows %5 : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
      %c0_6 = arith.constant 0 : index
      %7 = arith.subi %dim_5, %dim_1 : index
      %8 = arith.addi %3, %5 : index
      %9 = arith.addi %8, %7 : index
      %10 = arith.minsi %dim_5, %9 : index
      %11 = arith.maxsi %10, %c0_6 : index
      %12 = arith.ceildivsi %11, %c64 : index
      %c1_7 = arith.constant 1 : index
      %13 = arith.addi %3, %7 : index
      %14 = arith.addi %13, %c1_7 : index
      %15 = arith.floordivsi %14, %c64 : index
      %16 = arith.maxsi %15, %c0_6 : index
      %17 = arith.floordivsi %dim_5, %c64 : index
      %18 = arith.minsi %16, %17 : index
      %19 = arith.minsi %18, %12 : index
      %cst = arith.constant dense<0xFF800000> : tensor<128xf32>
      %c1_8 = arith.constant 1 : index
      %20 = scf.for %arg8 = %c0_6 to %19 step %c1_8 iter_args(%arg9 = %cst) -> (tensor<128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = attn.load_tile %arg1[%arg5, %2, %34] rows %c64_16 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %36 = attn.dot %6, %35, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %37 = attn.reduce  max %36 : tensor<128x64xf32> -> tensor<128xf32>
        %38 = arith.maximumf %arg9, %37 : tensor<128xf32>
        scf.yield %38 : tensor<128xf32>
      } {attn.softmax_pass = "max", attn.softmax_scale = 0.0883883461 : f32}
      %21 = scf.for %arg8 = %19 to %12 step %c1_8 iter_args(%arg9 = %20) -> (tensor<128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = arith.subi %dim_5, %34 : index
        %36 = arith.minsi %35, %c64_16 : index
        %37 = attn.load_tile %arg1[%arg5, %2, %34] rows %36 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %38 = attn.dot %6, %37, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %39 = attn.mask %38 q(%3, %dim_1) kv(%34, %dim_5) {causal} : tensor<128x64xf32>
        %40 = attn.reduce  max %39 : tensor<128x64xf32> -> tensor<128xf32>
        %41 = arith.maximumf %arg9, %40 : tensor<128xf32>
        scf.yield %41 : tensor<128xf32>
      } {attn.softmax_pass = "max", attn.softmax_scale = 0.0883883461 : f32}
      %cst_9 = arith.constant dense<0xFF800000> : tensor<128xf32>
      %cst_10 = arith.constant dense<0.000000e+00> : tensor<128xf32>
      %22 = arith.cmpf oeq, %21, %cst_9 : tensor<128xf32>
      %23 = arith.select %22, %cst_10, %21 : tensor<128xi1>, tensor<128xf32>
      %c1_11 = arith.constant 1 : index
      %24 = scf.for %arg8 = %c0_6 to %19 step %c1_11 iter_args(%arg9 = %cst_10) -> (tensor<128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = attn.load_tile %arg1[%arg5, %2, %34] rows %c64_16 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %36 = attn.dot %6, %35, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %37 = attn.broadcast %23 : tensor<128xf32> -> tensor<128x64xf32>
        %38 = arith.subf %36, %37 : tensor<128x64xf32>
        %cst_18 = arith.constant dense<0.0883883461> : tensor<128x64xf32>
        %39 = arith.mulf %38, %cst_18 : tensor<128x64xf32>
        %40 = math.exp %39 : tensor<128x64xf32>
        %41 = attn.reduce  sum %40 : tensor<128x64xf32> -> tensor<128xf32>
        %42 = arith.addf %arg9, %41 : tensor<128xf32>
        scf.yield %42 : tensor<128xf32>
      } {attn.softmax_pass = "sum", attn.softmax_scale = 0.0883883461 : f32}
      %25 = scf.for %arg8 = %19 to %12 step %c1_11 iter_args(%arg9 = %24) -> (tensor<128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = arith.subi %dim_5, %34 : index
        %36 = arith.minsi %35, %c64_16 : index
        %37 = attn.load_tile %arg1[%arg5, %2, %34] rows %36 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %38 = attn.dot %6, %37, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %39 = attn.mask %38 q(%3, %dim_1) kv(%34, %dim_5) {causal} : tensor<128x64xf32>
        %40 = attn.broadcast %23 : tensor<128xf32> -> tensor<128x64xf32>
        %41 = arith.subf %39, %40 : tensor<128x64xf32>
        %cst_18 = arith.constant dense<0.0883883461> : tensor<128x64xf32>
        %42 = arith.mulf %41, %cst_18 : tensor<128x64xf32>
        %43 = math.exp %42 : tensor<128x64xf32>
        %44 = attn.reduce  sum %43 : tensor<128x64xf32> -> tensor<128xf32>
        %45 = arith.addf %arg9, %44 : tensor<128xf32>
        scf.yield %45 : tensor<128xf32>
      } {attn.softmax_pass = "sum", attn.softmax_scale = 0.0883883461 : f32}
      %26 = arith.cmpf oeq, %25, %cst_10 : tensor<128xf32>
      %cst_12 = arith.constant dense<1.000000e+00> : tensor<128xf32>
      %27 = arith.select %26, %cst_12, %25 : tensor<128xi1>, tensor<128xf32>
      %cst_13 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
      %c1_14 = arith.constant 1 : index
      %28 = scf.for %arg8 = %c0_6 to %19 step %c1_14 iter_args(%arg9 = %cst_13) -> (tensor<128x128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = attn.load_tile %arg1[%arg5, %2, %34] rows %c64_16 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %36 = attn.dot %6, %35, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %37 = attn.broadcast %23 : tensor<128xf32> -> tensor<128x64xf32>
        %38 = arith.subf %36, %37 : tensor<128x64xf32>
        %cst_18 = arith.constant dense<0.0883883461> : tensor<128x64xf32>
        %39 = arith.mulf %38, %cst_18 : tensor<128x64xf32>
        %40 = math.exp %39 : tensor<128x64xf32>
        %41 = attn.broadcast %27 : tensor<128xf32> -> tensor<128x64xf32>
        %42 = arith.divf %40, %41 : tensor<128x64xf32>
        %43 = arith.truncf %42 : tensor<128x64xf32> to tensor<128x64xbf16>
        %44 = attn.load_tile %arg2[%arg5, %2, %34] rows %c64_16 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %45 = attn.dot %43, %44, %arg9 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        scf.yield %45 : tensor<128x128xf32>
      } {attn.softmax_pass = "pv", attn.softmax_scale = 0.0883883461 : f32}
      %29 = scf.for %arg8 = %19 to %12 step %c1_14 iter_args(%arg9 = %28) -> (tensor<128x128xf32>) {
        %c64_16 = arith.constant 64 : index
        %34 = arith.muli %arg8, %c64_16 : index
        %35 = arith.subi %dim_5, %34 : index
        %36 = arith.minsi %35, %c64_16 : index
        %37 = attn.load_tile %arg1[%arg5, %2, %34] rows %36 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %cst_17 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
        %38 = attn.dot %6, %37, %cst_17 {rhs_transposed} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
        %39 = attn.mask %38 q(%3, %dim_1) kv(%34, %dim_5) {causal} : tensor<128x64xf32>
        %40 = attn.broadcast %23 : tensor<128xf32> -> tensor<128x64xf32>
        %41 = arith.subf %39, %40 : tensor<128x64xf32>
        %cst_18 = arith.constant dense<0.0883883461> : tensor<128x64xf32>
        %42 = arith.mulf %41, %cst_18 : tensor<128x64xf32>
        %43 = math.exp %42 : tensor<128x64xf32>
        %44 = attn.broadcast %27 : tensor<128xf32> -> tensor<128x64xf32>
        %45 = arith.divf %43, %44 : tensor<128x64xf32>
        %46 = arith.truncf %45 : tensor<128x64xf32> to tensor<128x64xbf16>
        %47 = attn.load_tile %arg2[%arg5, %2, %34] rows %36 : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
        %48 = attn.dot %46, %47, %arg9 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        scf.yield %48 : tensor<128x128xf32>
      } {attn.softmax_pass = "pv", attn.softmax_scale = 0.0883883461 : f32}
      attn.store_tile %29, %arg3[%arg5, %arg6, %3] rows %5 : tensor<128x128xf32>, memref<?x?x?x128xbf16>
      %cst_15 = arith.constant dense<0.0883883461> : tensor<128xf32>
      %30 = arith.mulf %23, %cst_15 : tensor<128xf32>
      %31 = math.log %27 : tensor<128xf32>
      %32 = arith.addf %30, %31 : tensor<128xf32>
      %33 = arith.select %26, %cst_9, %32 : tensor<128xi1>, tensor<128xf32>
      attn.store_tile %33, %arg4[%arg5, %arg6, %3] rows %5 : tensor<128xf32>, memref<?x?x?xf32>
    } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
    return
  }
}

