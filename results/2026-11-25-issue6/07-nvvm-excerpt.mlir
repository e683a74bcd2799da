// Excerpts of stages/07-nvvm.mlir (xz-compressed beside this file): the module after
// convert-attn-gpu-to-nvvm + canonicalize + cse, for examples/attention.mlir (bf16, D = 128,
// causal, LSE) with --attn-codegen="chip=sm_90a" (see README.md for the commands).
// /*NNNNN*/ is the line number in 07-nvvm.mlir. Not a valid MLIR file.

// ---- 07-nvvm.mlir lines 1-17: host side: the grid became gpu.launch_func; the kernel takes the function's memrefs
/*    1*/ module attributes {gpu.container_module} {
/*    2*/   func.func @attention(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) {
/*    3*/     %c98304_i32 = arith.constant 98304 : i32
/*    4*/     %c128 = arith.constant 128 : index
/*    5*/     %c2 = arith.constant 2 : index
/*    6*/     %c1 = arith.constant 1 : index
/*    7*/     %c0 = arith.constant 0 : index
/*    8*/     %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xbf16>
/*    9*/     %dim_0 = memref.dim %arg0, %c1 : memref<?x?x?x128xbf16>
/*   10*/     %dim_1 = memref.dim %arg0, %c2 : memref<?x?x?x128xbf16>
/*   11*/     %0 = arith.ceildivsi %dim_1, %c128 : index
/*   12*/     gpu.launch_func  @attn_kernels::@attention_kernel blocks in (%0, %dim_0, %dim) threads in (%c128, %c1, %c1)  dynamic_shared_memory_size %c98304_i32 args(%arg0 : memref<?x?x?x128xbf16>, %arg1 : memref<?x?x?x128xbf16>, %arg2 : memref<?x?x?x128xbf16>, %arg3 : memref<?x?x?x128xbf16>, %arg4 : memref<?x?x?xf32>)
/*   13*/     return
/*   14*/   }
/*   15*/   gpu.module @attn_kernels {
/*   16*/     llvm.mlir.global external @attn_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
/*   17*/     gpu.func @attention_kernel(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) kernel attributes {attn.kernel = {abi = "memref", block_m = 128 : i64, block_n = 64 : i64, causal = true, dtype = "bf16", head_dim = 128 : i64, smem_bytes = 98304 : i64, threads = 128 : i64}, known_block_size = array<i32: 128, 1, 1>} {

// ---- 07-nvvm.mlir lines 63-98: mapGridIndices: causal, group-blocks = 4 x 132 SMs = 528: (batch, head, query block) from the block index
/*   63*/       %block_id_x = gpu.block_id  x
/*   64*/       %block_id_y = gpu.block_id  y
/*   65*/       %block_id_z = gpu.block_id  z
/*   66*/       %grid_dim_x = gpu.grid_dim  x
/*   67*/       %1 = arith.index_castui %block_id_x : index to i32
/*   68*/       %2 = arith.index_castui %block_id_y : index to i32
/*   69*/       %3 = arith.index_castui %block_id_z : index to i32
/*   70*/       %4 = arith.index_castui %grid_dim_x : index to i32
/*   71*/       %grid_dim_y = gpu.grid_dim  y
/*   72*/       %5 = arith.index_castui %grid_dim_y : index to i32
/*   73*/       %grid_dim_z = gpu.grid_dim  z
/*   74*/       %6 = arith.index_castui %grid_dim_z : index to i32
/*   75*/       %7 = arith.muli %5, %6 : i32
/*   76*/       %8 = arith.muli %5, %3 : i32
/*   77*/       %9 = arith.addi %2, %8 : i32
/*   78*/       %10 = arith.muli %4, %9 : i32
/*   79*/       %11 = arith.addi %1, %10 : i32
/*   80*/       %12 = arith.ceildivui %c528_i32, %4 : i32
/*   81*/       %13 = arith.ceildivui %7, %12 : i32
/*   82*/       %14 = arith.ceildivui %7, %13 : i32
/*   83*/       %15 = arith.muli %14, %4 : i32
/*   84*/       %16 = arith.divui %11, %15 : i32
/*   85*/       %17 = arith.remui %11, %15 : i32
/*   86*/       %18 = arith.muli %16, %14 : i32
/*   87*/       %19 = arith.subi %7, %18 : i32
/*   88*/       %20 = arith.minui %14, %19 : i32
/*   89*/       %21 = arith.remui %17, %20 : i32
/*   90*/       %22 = arith.addi %18, %21 : i32
/*   91*/       %23 = arith.divui %22, %5 : i32
/*   92*/       %24 = arith.index_castui %23 : i32 to index
/*   93*/       %25 = arith.remui %22, %5 : i32
/*   94*/       %26 = arith.index_castui %25 : i32 to index
/*   95*/       %27 = arith.divui %17, %20 : i32
/*   96*/       %28 = arith.subi %4, %c1_i32 : i32
/*   97*/       %29 = arith.subi %28, %27 : i32
/*   98*/       %30 = arith.index_castui %29 : i32 to index

// ---- 07-nvvm.mlir lines 471-500: first (unmasked) key/value loop: attn.async_wait 0 -> cp.async.wait_group 0 + bar.sync; prefetch of block j+1 (first K chunks)
/*  471*/       %291:3 = scf.for %arg5 = %c0 to %289 step %c1 iter_args(%arg6 = %cst_6, %arg7 = %cst_7, %arg8 = %cst_9) -> (vector<4xf32>, vector<4xf32>, vector<128xf32>) {
/*  472*/         nvvm.cp.async.wait.group 0
/*  473*/         nvvm.barrier0
/*  474*/         %352 = arith.addi %arg5, %c1 : index
/*  475*/         %353 = arith.cmpi slt, %352, %289 : index
/*  476*/         scf.if %353 {
/*  477*/           %2678 = arith.muli %352, %c64 : index
/*  478*/           %2679 = arith.remui %352, %c2 : index
/*  479*/           %2680 = arith.index_cast %2679 : index to i32
/*  480*/           %2681 = arith.muli %2680, %c16384_i32 : i32
/*  481*/           %2682 = llvm.getelementptr %0[%2681] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
/*  482*/           %base_buffer_25, %offset_26, %sizes_27:4, %strides_28:4 = memref.extract_strided_metadata %arg1 : memref<?x?x?x128xbf16> -> memref<bf16>, index, index, index, index, index, index, index, index, index
/*  483*/           %intptr_29 = memref.extract_aligned_pointer_as_index %arg1 : memref<?x?x?x128xbf16> -> index
/*  484*/           %2683 = arith.index_castui %intptr_29 : index to i64
/*  485*/           %2684 = llvm.inttoptr %2683 : i64 to !llvm.ptr<1>
/*  486*/           %2685 = arith.index_cast %strides_28#0 : index to i32
/*  487*/           %2686 = arith.muli %41, %2685 : i32
/*  488*/           %2687 = arith.index_cast %strides_28#1 : index to i32
/*  489*/           %2688 = arith.index_cast %33 : index to i32
/*  490*/           %2689 = arith.muli %2688, %2687 : i32
/*  491*/           %2690 = arith.addi %2686, %2689 : i32
/*  492*/           %2691 = llvm.getelementptr %2684[%2690] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
/*  493*/           %2692 = arith.index_cast %2678 : index to i32
/*  494*/           %2693 = llvm.getelementptr %2682[%57] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
/*  495*/           %2694 = arith.addi %2692, %51 : i32
/*  496*/           %2695 = arith.muli %2694, %c128_i32 : i32
/*  497*/           %2696 = arith.addi %2695, %59 : i32
/*  498*/           %2697 = llvm.getelementptr %2691[%2696] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
/*  499*/           nvvm.cp.async.shared.global %2693, %2697, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
/*  500*/           %2698 = llvm.getelementptr %2682[%72] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8

// ---- 07-nvvm.mlir lines 578-582: attn.async_commit; attn.ring_slot -> ring base + (j mod 2) * 16384
/*  578*/         nvvm.cp.async.commit.group
/*  579*/         %354 = arith.remui %arg5, %c2 : index
/*  580*/         %355 = arith.index_cast %354 : index to i32
/*  581*/         %356 = arith.muli %355, %c16384_i32 : i32
/*  582*/         %357 = llvm.getelementptr %0[%356] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8

// ---- 07-nvvm.mlir lines 626-690: attn.dot S = Q K^T: ldmatrix.x4 A fragments of Q (from shared) and B fragments of K (issued ahead), then mma.sync m16n8k16
/*  626*/         %401 = arith.xori %389, %c6_i32 : i32
/*  627*/         %402 = arith.muli %401, %c16_i32 : i32
/*  628*/         %403 = arith.addi %387, %402 : i32
/*  629*/         %404 = llvm.getelementptr %357[%403] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
/*  630*/         %405 = nvvm.ldmatrix %369 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  631*/         %406 = llvm.extractvalue %405[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  632*/         %407 = llvm.extractvalue %405[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  633*/         %408 = llvm.extractvalue %405[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  634*/         %409 = llvm.extractvalue %405[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  635*/         %410 = llvm.getelementptr %369[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
/*  636*/         %411 = nvvm.ldmatrix %410 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  637*/         %412 = llvm.extractvalue %411[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  638*/         %413 = llvm.extractvalue %411[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  639*/         %414 = llvm.extractvalue %411[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  640*/         %415 = llvm.extractvalue %411[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  641*/         %416 = nvvm.ldmatrix %392 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  642*/         %417 = llvm.extractvalue %416[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  643*/         %418 = llvm.extractvalue %416[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  644*/         %419 = llvm.extractvalue %416[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  645*/         %420 = llvm.extractvalue %416[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  646*/         %421 = llvm.getelementptr %392[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
/*  647*/         %422 = nvvm.ldmatrix %421 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  648*/         %423 = llvm.extractvalue %422[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  649*/         %424 = llvm.extractvalue %422[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  650*/         %425 = llvm.extractvalue %422[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  651*/         %426 = llvm.extractvalue %422[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  652*/         %427 = llvm.getelementptr %392[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
/*  653*/         %428 = nvvm.ldmatrix %427 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  654*/         %429 = llvm.extractvalue %428[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  655*/         %430 = llvm.extractvalue %428[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  656*/         %431 = llvm.extractvalue %428[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  657*/         %432 = llvm.extractvalue %428[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  658*/         %433 = llvm.getelementptr %392[12288] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
/*  659*/         %434 = nvvm.ldmatrix %433 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  660*/         %435 = llvm.extractvalue %434[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  661*/         %436 = llvm.extractvalue %434[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  662*/         %437 = llvm.extractvalue %434[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  663*/         %438 = llvm.extractvalue %434[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  664*/         %439 = nvvm.ldmatrix %373 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  665*/         %440 = llvm.extractvalue %439[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  666*/         %441 = llvm.extractvalue %439[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  667*/         %442 = llvm.extractvalue %439[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  668*/         %443 = llvm.extractvalue %439[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  669*/         %444 = llvm.getelementptr %373[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
/*  670*/         %445 = nvvm.ldmatrix %444 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  671*/         %446 = llvm.extractvalue %445[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  672*/         %447 = llvm.extractvalue %445[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  673*/         %448 = llvm.extractvalue %445[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  674*/         %449 = llvm.extractvalue %445[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  675*/         %450 = nvvm.ldmatrix %396 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/*  676*/         %451 = llvm.extractvalue %450[0] : !llvm.struct<(i32, i32, i32, i32)> 
/*  677*/         %452 = llvm.extractvalue %450[1] : !llvm.struct<(i32, i32, i32, i32)> 
/*  678*/         %453 = llvm.extractvalue %450[2] : !llvm.struct<(i32, i32, i32, i32)> 
/*  679*/         %454 = llvm.extractvalue %450[3] : !llvm.struct<(i32, i32, i32, i32)> 
/*  680*/         %455 = nvvm.mma.sync A[%406, %407, %408, %409]  B[%417, %418]  C[%cst_0, %cst_0, %cst_0, %cst_0]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
/*  681*/         %456 = llvm.extractvalue %455[0] : !llvm.struct<(f32, f32, f32, f32)> 
/*  682*/         %457 = llvm.extractvalue %455[1] : !llvm.struct<(f32, f32, f32, f32)> 
/*  683*/         %458 = llvm.extractvalue %455[2] : !llvm.struct<(f32, f32, f32, f32)> 
/*  684*/         %459 = llvm.extractvalue %455[3] : !llvm.struct<(f32, f32, f32, f32)> 
/*  685*/         %460 = nvvm.mma.sync A[%406, %407, %408, %409]  B[%419, %420]  C[%cst_0, %cst_0, %cst_0, %cst_0]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
/*  686*/         %461 = llvm.extractvalue %460[0] : !llvm.struct<(f32, f32, f32, f32)> 
/*  687*/         %462 = llvm.extractvalue %460[1] : !llvm.struct<(f32, f32, f32, f32)> 
/*  688*/         %463 = llvm.extractvalue %460[2] : !llvm.struct<(f32, f32, f32, f32)> 
/*  689*/         %464 = llvm.extractvalue %460[3] : !llvm.struct<(f32, f32, f32, f32)> 
/*  690*/         %465 = nvvm.mma.sync A[%412, %413, %414, %415]  B[%417, %418]  C[%cst_0, %cst_0, %cst_0, %cst_0]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// ---- 07-nvvm.mlir lines 1550-1570: attn.reduce max, one of the thread's 4 rows: in-thread maxnum fold of its 16 elements, then shfl.bfly 1 and 2 across the quad
/* 1550*/         %1325 = vector.from_elements %1246, %1247, %1248, %1249, %1251, %1252, %1253, %1254, %1266, %1267, %1268, %1269, %1271, %1272, %1273, %1274, %1286, %1287, %1288, %1289, %1291, %1292, %1293, %1294, %1306, %1307, %1308, %1309, %1311, %1312, %1313, %1314, %1256, %1257, %1258, %1259, %1261, %1262, %1263, %1264, %1276, %1277, %1278, %1279, %1281, %1282, %1283, %1284, %1296, %1297, %1298, %1299, %1301, %1302, %1303, %1304, %1316, %1317, %1318, %1319, %1321, %1322, %1323, %1324 : vector<64xf32>
/* 1551*/         %1326 = llvm.intr.maxnum(%1246, %1247) : (f32, f32) -> f32
/* 1552*/         %1327 = llvm.intr.maxnum(%1326, %1251) : (f32, f32) -> f32
/* 1553*/         %1328 = llvm.intr.maxnum(%1327, %1252) : (f32, f32) -> f32
/* 1554*/         %1329 = llvm.intr.maxnum(%1328, %1266) : (f32, f32) -> f32
/* 1555*/         %1330 = llvm.intr.maxnum(%1329, %1267) : (f32, f32) -> f32
/* 1556*/         %1331 = llvm.intr.maxnum(%1330, %1271) : (f32, f32) -> f32
/* 1557*/         %1332 = llvm.intr.maxnum(%1331, %1272) : (f32, f32) -> f32
/* 1558*/         %1333 = llvm.intr.maxnum(%1332, %1286) : (f32, f32) -> f32
/* 1559*/         %1334 = llvm.intr.maxnum(%1333, %1287) : (f32, f32) -> f32
/* 1560*/         %1335 = llvm.intr.maxnum(%1334, %1291) : (f32, f32) -> f32
/* 1561*/         %1336 = llvm.intr.maxnum(%1335, %1292) : (f32, f32) -> f32
/* 1562*/         %1337 = llvm.intr.maxnum(%1336, %1306) : (f32, f32) -> f32
/* 1563*/         %1338 = llvm.intr.maxnum(%1337, %1307) : (f32, f32) -> f32
/* 1564*/         %1339 = llvm.intr.maxnum(%1338, %1311) : (f32, f32) -> f32
/* 1565*/         %1340 = llvm.intr.maxnum(%1339, %1312) : (f32, f32) -> f32
/* 1566*/         %1341 = nvvm.shfl.sync  bfly %c-1_i32, %1340, %c1_i32, %c31_i32 : f32 -> f32
/* 1567*/         %1342 = llvm.intr.maxnum(%1340, %1341) : (f32, f32) -> f32
/* 1568*/         %1343 = nvvm.shfl.sync  bfly %c-1_i32, %1342, %c2_i32, %c31_i32 : f32 -> f32
/* 1569*/         %1344 = llvm.intr.maxnum(%1342, %1343) : (f32, f32) -> f32
/* 1570*/         %1345 = llvm.intr.maxnum(%1248, %1249) : (f32, f32) -> f32

// ---- 07-nvvm.mlir lines 1627-1641: the online-softmax arith on the per-thread vectors (vector<4xf32> = the thread's 4 rows); attn.broadcast = vector.shuffle; math.exp2 -> ex2.approx per element
/* 1627*/         %1402 = vector.from_elements %1344, %1363, %1382, %1401 : vector<4xf32>
/* 1628*/         %1403 = arith.maximumf %arg6, %1402 : vector<4xf32>
/* 1629*/         %1404 = arith.subf %1403, %arg6 : vector<4xf32>
/* 1630*/         %1405 = arith.mulf %1404, %cst_4 : vector<4xf32>
/* 1631*/         %1406 = arith.cmpf ogt, %1405, %cst_5 : vector<4xf32>
/* 1632*/         %1407 = arith.select %1406, %1403, %arg6 : vector<4xi1>, vector<4xf32>
/* 1633*/         %1408 = arith.cmpf oeq, %1407, %cst_6 : vector<4xf32>
/* 1634*/         %1409 = arith.select %1408, %cst_7, %1407 : vector<4xi1>, vector<4xf32>
/* 1635*/         %1410 = vector.shuffle %1409, %1409 [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2, 3, 3] : vector<4xf32>, vector<4xf32>
/* 1636*/         %1411 = arith.subf %1325, %1410 : vector<64xf32>
/* 1637*/         %1412 = arith.mulf %1411, %cst_8 : vector<64xf32>
/* 1638*/         %1413 = vector.extract %1412[0] : f32 from vector<64xf32>
/* 1639*/         %1414 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%1413) : (f32) -> f32
/* 1640*/         %1415 = vector.extract %1412[1] : f32 from vector<64xf32>
/* 1641*/         %1416 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%1415) : (f32) -> f32

// ---- 07-nvvm.mlir lines 1855-1866: arith.mulf {attn.skip_unit_factors} (O * alpha): scalar multiplies under 'any alpha != 1'
/* 1855*/         %1630 = arith.mulf %1552, %arg7 : vector<4xf32>
/* 1856*/         %1631 = arith.addf %1630, %1629 : vector<4xf32>
/* 1857*/         %1632 = arith.cmpf une, %1552, %cst_10 : vector<4xf32>
/* 1858*/         %1633 = vector.reduction <or>, %1632 : vector<4xi1> into i1
/* 1859*/         %1634 = scf.if %1633 -> (vector<128xf32>) {
/* 1860*/           %2678 = vector.extract %arg8[0] : f32 from vector<128xf32>
/* 1861*/           %2679 = arith.mulf %1545, %2678 : f32
/* 1862*/           %2680 = vector.extract %arg8[1] : f32 from vector<128xf32>
/* 1863*/           %2681 = arith.mulf %1545, %2680 : f32
/* 1864*/           %2682 = vector.extract %arg8[2] : f32 from vector<128xf32>
/* 1865*/           %2683 = arith.mulf %1547, %2682 : f32
/* 1866*/           %2684 = vector.extract %arg8[3] : f32 from vector<128xf32>

// ---- 07-nvvm.mlir lines 2271-2292: attn.dot O += P V: P's A fragments packed from the thread's bf16 scores (no shared memory), V's B fragments via ldmatrix .trans (layout col)
/* 2271*/         %1785 = vector.shuffle %1635, %1635 [0, 1] : vector<64xbf16>, vector<64xbf16>
/* 2272*/         %1786 = llvm.bitcast %1785 : vector<2xbf16> to i32
/* 2273*/         %1787 = vector.shuffle %1635, %1635 [2, 3] : vector<64xbf16>, vector<64xbf16>
/* 2274*/         %1788 = llvm.bitcast %1787 : vector<2xbf16> to i32
/* 2275*/         %1789 = vector.shuffle %1635, %1635 [4, 5] : vector<64xbf16>, vector<64xbf16>
/* 2276*/         %1790 = llvm.bitcast %1789 : vector<2xbf16> to i32
/* 2277*/         %1791 = vector.shuffle %1635, %1635 [6, 7] : vector<64xbf16>, vector<64xbf16>
/* 2278*/         %1792 = llvm.bitcast %1791 : vector<2xbf16> to i32
/* 2279*/         %1793 = vector.shuffle %1635, %1635 [32, 33] : vector<64xbf16>, vector<64xbf16>
/* 2280*/         %1794 = llvm.bitcast %1793 : vector<2xbf16> to i32
/* 2281*/         %1795 = vector.shuffle %1635, %1635 [34, 35] : vector<64xbf16>, vector<64xbf16>
/* 2282*/         %1796 = llvm.bitcast %1795 : vector<2xbf16> to i32
/* 2283*/         %1797 = vector.shuffle %1635, %1635 [36, 37] : vector<64xbf16>, vector<64xbf16>
/* 2284*/         %1798 = llvm.bitcast %1797 : vector<2xbf16> to i32
/* 2285*/         %1799 = vector.shuffle %1635, %1635 [38, 39] : vector<64xbf16>, vector<64xbf16>
/* 2286*/         %1800 = llvm.bitcast %1799 : vector<2xbf16> to i32
/* 2287*/         %1801 = nvvm.ldmatrix %1644 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
/* 2288*/         %1802 = llvm.extractvalue %1801[0] : !llvm.struct<(i32, i32, i32, i32)> 
/* 2289*/         %1803 = llvm.extractvalue %1801[1] : !llvm.struct<(i32, i32, i32, i32)> 
/* 2290*/         %1804 = llvm.extractvalue %1801[2] : !llvm.struct<(i32, i32, i32, i32)> 
/* 2291*/         %1805 = llvm.extractvalue %1801[3] : !llvm.struct<(i32, i32, i32, i32)> 
/* 2292*/         %1806 = nvvm.ldmatrix %1648 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>

// ---- 07-nvvm.mlir lines 2313-2322: ... and its mma.sync with the O accumulators
/* 2313*/         %1827 = nvvm.mma.sync A[%1786, %1788, %1790, %1792]  B[%1802, %1803]  C[%1657, %1658, %1659, %1660]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
/* 2314*/         %1828 = llvm.extractvalue %1827[0] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2315*/         %1829 = llvm.extractvalue %1827[1] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2316*/         %1830 = llvm.extractvalue %1827[2] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2317*/         %1831 = llvm.extractvalue %1827[3] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2318*/         %1832 = nvvm.mma.sync A[%1786, %1788, %1790, %1792]  B[%1804, %1805]  C[%1661, %1662, %1663, %1664]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
/* 2319*/         %1833 = llvm.extractvalue %1832[0] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2320*/         %1834 = llvm.extractvalue %1832[1] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2321*/         %1835 = llvm.extractvalue %1832[2] : !llvm.struct<(f32, f32, f32, f32)> 
/* 2322*/         %1836 = llvm.extractvalue %1832[3] : !llvm.struct<(f32, f32, f32, f32)> 

// ---- 07-nvvm.mlir lines 4405-4424: attn.mask (causal, masked loop): one scalar bound per thread compared against constant column / column-row offset vectors
/* 4405*/         %1327 = arith.divui %359, %c4_i32 : i32
/* 4406*/         %1328 = arith.remui %359, %c4_i32 : i32
/* 4407*/         %1329 = arith.addi %361, %1327 : i32
/* 4408*/         %1330 = arith.addi %48, %1329 : i32
/* 4409*/         %1331 = arith.index_cast %355 : index to i32
/* 4410*/         %1332 = arith.muli %1328, %c2_i32 : i32
/* 4411*/         %1333 = arith.addi %1331, %1332 : i32
/* 4412*/         %1334 = arith.index_cast %dim_14 : index to i32
/* 4413*/         %1335 = arith.subi %1334, %1333 : i32
/* 4414*/         %1336 = vector.broadcast %1335 : i32 to vector<64xi32>
/* 4415*/         %1337 = arith.cmpi sle, %1336, %cst_3 : vector<64xi32>
/* 4416*/         %1338 = arith.index_cast %dim_13 : index to i32
/* 4417*/         %1339 = arith.subi %1334, %1338 : i32
/* 4418*/         %1340 = arith.addi %1330, %1339 : i32
/* 4419*/         %1341 = arith.subi %1340, %1333 : i32
/* 4420*/         %1342 = vector.broadcast %1341 : i32 to vector<64xi32>
/* 4421*/         %1343 = arith.cmpi slt, %1342, %cst_2 : vector<64xi32>
/* 4422*/         %1344 = arith.ori %1337, %1343 : vector<64xi1>
/* 4423*/         %1345 = arith.select %1344, %cst_1, %1326 : vector<64xi1>, vector<64xf32>
/* 4424*/         %1346 = vector.extract %1345[0] : f32 from vector<64xf32>

// ---- 07-nvvm.mlir lines 6128-6140: attn.store_tile O (#attn.mma): row-guarded 2 x bf16 stores of the thread's pairs
/* 6128*/       scf.if %316 {
/* 6129*/         %352 = arith.addi %48, %314 : i32
/* 6130*/         %353 = arith.muli %352, %c128_i32 : i32
/* 6131*/         %354 = vector.shuffle %298, %298 [0, 1] : vector<128xf32>, vector<128xf32>
/* 6132*/         %355 = arith.truncf %354 : vector<2xf32> to vector<2xbf16>
/* 6133*/         %356 = arith.addi %353, %315 : i32
/* 6134*/         %357 = llvm.getelementptr %313[%356] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
/* 6135*/         llvm.store %355, %357 {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
/* 6136*/         %358 = vector.shuffle %298, %298 [4, 5] : vector<128xf32>, vector<128xf32>
/* 6137*/         %359 = arith.truncf %358 : vector<2xf32> to vector<2xbf16>
/* 6138*/         %360 = arith.addi %315, %c8_i32 : i32
/* 6139*/         %361 = arith.addi %353, %360 : i32
/* 6140*/         %362 = llvm.getelementptr %313[%361] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
