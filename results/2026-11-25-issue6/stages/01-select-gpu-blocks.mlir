module {
  func.func @attention(%arg0: memref<?x?x?x128xbf16>, %arg1: memref<?x?x?x128xbf16>, %arg2: memref<?x?x?x128xbf16>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<?x?x?xf32>) {
    attn.attention %arg0, %arg1, %arg2 into %arg3 lse(%arg4 : memref<?x?x?xf32>) {block_kv = 64 : i64, block_q = 128 : i64, causal, target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
    return
  }
}

