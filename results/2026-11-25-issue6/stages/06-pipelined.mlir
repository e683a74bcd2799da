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
      %2 = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      %3 = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      %cst_12 = arith.constant dense<0.0883883461> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_13 = arith.constant dense<1.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_14 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #attn.mma<warps = 4>>
      %cst_15 = arith.constant dense<0.127517432> : tensor<128x64xf32, #attn.mma<warps = 4>>
      %cst_16 = arith.constant dense<0.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_17 = arith.constant dense<0xFF800000> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_18 = arith.constant dense<8.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_19 = arith.constant dense<0.127517432> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_20 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #attn.mma<warps = 4>>
      %4 = arith.divui %arg6, %0 : index
      %5 = arith.muli %arg7, %c128 : index
      %6 = arith.subi %dim_9, %5 : index
      %7 = arith.minsi %6, %c128 : index
      %8 = attn.alloc_ring : !attn.ring<1, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      %c0_21 = arith.constant 0 : index
      attn.async_load_tile %arg0[%arg5, %arg6, %5] rows %7, %8[%c0_21] : memref<?x?x?x128xbf16>, !attn.ring<1, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      attn.async_commit
      %9 = attn.ring_slot %8[%c0_21] : !attn.ring<1, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      %10 = arith.subi %dim_11, %dim_9 : index
      %11 = arith.addi %5, %7 : index
      %12 = arith.addi %11, %10 : index
      %13 = arith.minsi %dim_11, %12 : index
      %14 = arith.maxsi %13, %c0 : index
      %15 = arith.ceildivsi %14, %c64 : index
      %16 = arith.addi %5, %10 : index
      %17 = arith.addi %16, %c1 : index
      %18 = arith.floordivsi %17, %c64 : index
      %19 = arith.maxsi %18, %c0 : index
      %20 = arith.floordivsi %dim_11, %c64 : index
      %21 = arith.minsi %19, %20 : index
      %22 = arith.minsi %21, %15 : index
      %c2_22 = arith.constant 2 : index
      %23 = arith.cmpi slt, %c0, %22 : index
      scf.if %23 {
        %38 = arith.muli %c0, %c64 : index
        %39 = arith.remui %c0, %c2_22 : index
        attn.async_load_tile %arg1[%arg5, %4, %38] rows %c64, %2[%39] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        attn.async_load_tile %arg2[%arg5, %4, %38] rows %c64, %3[%39] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      }
      attn.async_commit
      %c1_23 = arith.constant 1 : index
      %24:3 = scf.for %arg8 = %c0 to %22 step %c1 iter_args(%arg9 = %cst_17, %arg10 = %cst_16, %arg11 = %cst_14) -> (tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>) {
        attn.async_wait 0
        %38 = arith.addi %arg8, %c1_23 : index
        %39 = arith.cmpi slt, %38, %22 : index
        scf.if %39 {
          %67 = arith.muli %38, %c64 : index
          %68 = arith.remui %38, %c2_22 : index
          attn.async_load_tile %arg1[%arg5, %4, %67] rows %c64, %2[%68] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
          attn.async_load_tile %arg2[%arg5, %4, %67] rows %c64, %3[%68] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        }
        attn.async_commit
        %40 = arith.remui %arg8, %c2_22 : index
        %41 = arith.muli %arg8, %c64 : index
        %42 = attn.ring_slot %2[%40] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        %43 = attn.dot %9, %42, %cst_20 {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %44 = attn.reduce  max %43 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %45 = arith.maximumf %arg9, %44 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %46 = arith.subf %45, %arg9 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %47 = arith.mulf %46, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %48 = arith.cmpf ogt, %47, %cst_18 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %49 = arith.select %48, %45, %arg9 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %50 = arith.cmpf oeq, %49, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %51 = arith.select %50, %cst_16, %49 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %52 = attn.broadcast %51 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %53 = arith.subf %43, %52 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %54 = arith.mulf %53, %cst_15 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %55 = math.exp2 %54 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %56 = arith.subf %arg9, %51 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %57 = arith.mulf %56, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %58 = math.exp2 %57 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %59 = attn.reduce  sum %55 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %60 = arith.mulf %58, %arg10 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %61 = arith.addf %60, %59 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %62 = attn.broadcast %58 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        %63 = arith.mulf %62, %arg11 {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
        %64 = arith.truncf %55 : tensor<128x64xf32, #attn.mma<warps = 4>> to tensor<128x64xbf16, #attn.mma<warps = 4>>
        %65 = attn.ring_slot %3[%40] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        %66 = attn.dot %64, %65, %63 : tensor<128x64xbf16, #attn.mma<warps = 4>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        scf.yield %49, %61, %66 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %c2_24 = arith.constant 2 : index
      %25 = arith.cmpi slt, %22, %15 : index
      scf.if %25 {
        %38 = arith.muli %22, %c64 : index
        %39 = arith.subi %dim_11, %38 : index
        %40 = arith.minsi %39, %c64 : index
        %41 = arith.remui %22, %c2_24 : index
        attn.async_load_tile %arg1[%arg5, %4, %38] rows %40, %2[%41] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        attn.async_load_tile %arg2[%arg5, %4, %38] rows %40, %3[%41] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
      }
      attn.async_commit
      %c1_25 = arith.constant 1 : index
      %26:3 = scf.for %arg8 = %22 to %15 step %c1 iter_args(%arg9 = %24#0, %arg10 = %24#1, %arg11 = %24#2) -> (tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>) {
        attn.async_wait 0
        %38 = arith.addi %arg8, %c1_25 : index
        %39 = arith.cmpi slt, %38, %15 : index
        scf.if %39 {
          %70 = arith.muli %38, %c64 : index
          %71 = arith.subi %dim_11, %70 : index
          %72 = arith.minsi %71, %c64 : index
          %73 = arith.remui %38, %c2_24 : index
          attn.async_load_tile %arg1[%arg5, %4, %70] rows %72, %2[%73] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
          attn.async_load_tile %arg2[%arg5, %4, %70] rows %72, %3[%73] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        }
        attn.async_commit
        %40 = arith.remui %arg8, %c2_24 : index
        %41 = arith.muli %arg8, %c64 : index
        %42 = arith.subi %dim_11, %41 : index
        %43 = arith.minsi %42, %c64 : index
        %44 = attn.ring_slot %2[%40] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        %45 = attn.dot %9, %44, %cst_20 {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %46 = attn.mask %45 q(%5, %dim_9) kv(%41, %dim_11) {causal} : tensor<128x64xf32, #attn.mma<warps = 4>>
        %47 = attn.reduce  max %46 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %48 = arith.maximumf %arg9, %47 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %49 = arith.subf %48, %arg9 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %50 = arith.mulf %49, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %51 = arith.cmpf ogt, %50, %cst_18 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %52 = arith.select %51, %48, %arg9 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %53 = arith.cmpf oeq, %52, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %54 = arith.select %53, %cst_16, %52 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %55 = attn.broadcast %54 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x64xf32, #attn.mma<warps = 4>>
        %56 = arith.subf %46, %55 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %57 = arith.mulf %56, %cst_15 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %58 = math.exp2 %57 : tensor<128x64xf32, #attn.mma<warps = 4>>
        %59 = arith.subf %arg9, %54 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %60 = arith.mulf %59, %cst_19 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %61 = math.exp2 %60 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %62 = attn.reduce  sum %58 : tensor<128x64xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %63 = arith.mulf %61, %arg10 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %64 = arith.addf %63, %62 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
        %65 = attn.broadcast %61 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        %66 = arith.mulf %65, %arg11 {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
        %67 = arith.truncf %58 : tensor<128x64xf32, #attn.mma<warps = 4>> to tensor<128x64xbf16, #attn.mma<warps = 4>>
        %68 = attn.ring_slot %3[%40] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
        %69 = attn.dot %67, %68, %66 : tensor<128x64xbf16, #attn.mma<warps = 4>>, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
        scf.yield %52, %64, %69 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, tensor<128x128xf32, #attn.mma<warps = 4>>
      } {attn.online_softmax, attn.softmax_scale = 0.0883883461 : f32}
      %27 = arith.cmpf oeq, %26#1, %cst_16 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %28 = arith.select %27, %cst_13, %26#1 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %cst_26 = arith.constant dense<1.000000e+00> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %29 = arith.divf %cst_26, %28 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %30 = attn.broadcast %29 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
      %31 = arith.mulf %26#2, %30 : tensor<128x128xf32, #attn.mma<warps = 4>>
      %32 = arith.cmpf oeq, %26#0, %cst_17 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %33 = arith.select %32, %cst_16, %26#0 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      attn.store_tile %31, %arg3[%arg5, %arg6, %5] rows %7 : tensor<128x128xf32, #attn.mma<warps = 4>>, memref<?x?x?x128xbf16>
      %34 = arith.mulf %33, %cst_12 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %35 = math.log %28 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %36 = arith.addf %34, %35 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      %37 = arith.select %27, %cst_17, %36 : tensor<128xi1, #attn.slice<#attn.mma<warps = 4>>>, tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
      attn.store_tile %37, %arg4[%arg5, %arg6, %5] rows %7 : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>, memref<?x?x?xf32>
    } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
    return
  }
}

