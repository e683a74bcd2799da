// FIXED BUG (regression test, formerly XFAIL): attn-tile-attention checks its
// options only when it tiles an op, so bad options pass silently (exit 0) on IR
// without an attn.attention, or when every op names its own target and block
// sizes. Bad options should always be an error.

// RUN: not attn-opt %s --attn-tile-attention="target=sm_12" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: {{.*}}sm_12
// RUN: not attn-opt %s --attn-tile-attention="block-q=3" 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: {{.*}}block-q must be a power of two

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
