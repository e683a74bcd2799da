// Input of tile-attention-option-errors.mlir: no op here takes
// attn-tile-attention's options, so a bad option is refused without an op
// to apply it to.

func.func @no_attention() {
  return
}

// Every op names its own target and blocks: the options apply to none.
func.func @own_target(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                      %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>,
       block_q = 16, block_kv = 16}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
