// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-tile-attention

// attn-tile-attention says why it cannot tile an op, at the op, and fails.
// Its option errors are in tile-attention-option-errors.mlir.

// Block sizes that the op's own target cannot hold.
func.func @blocks_do_not_fit(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                             %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block sizes Br=1024, Bc=1024 need 786432 bytes of on-chip memory for the Q, K and V tiles, but target sm_80 offers 166912}}
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>,
       block_q = 1024, block_kv = 1024}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// The smallest derived blocks (16 rows) do not fit a 4 KiB target at D = 64.
func.func @tiny_smem(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{block sizes Br=16, Bc=16 need 12288 bytes of on-chip memory for the Q, K and V tiles, but target cpu offers 4096}}
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "cpu", smem_per_block = 4096, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// The target on an enclosing op is the one the pass reads.
module attributes {attn.target = #attn.target<arch = "sm_86", smem_per_block = 4096, num_sms = 84>} {
  func.func @enclosing_target(%q: memref<?x?x?x32xf16>, %k: memref<?x?x?x32xf16>,
                              %v: memref<?x?x?x32xf16>, %o: memref<?x?x?x32xf16>) {
    // expected-error @below {{block sizes Br=64, Bc=16 need 6144 bytes of on-chip memory for the Q, K and V tiles, but target sm_86 offers 4096}}
    attn.attention %q, %k, %v into %o {block_q = 64, block_kv = 16}
        : memref<?x?x?x32xf16>, memref<?x?x?x32xf16>, memref<?x?x?x32xf16>,
          memref<?x?x?x32xf16>
    return
  }
}

// -----

// The largest head dim the verifier accepts (1024), in f32, does not fit
// the smallest blocks in sm_86's shared memory.
func.func @huge_head_dim(%q: memref<?x?x?x1024xf32>, %k: memref<?x?x?x1024xf32>,
                         %v: memref<?x?x?x1024xf32>, %o: memref<?x?x?x1024xf32>) {
  // expected-error @below {{block sizes Br=16, Bc=16 need 196608 bytes of on-chip memory for the Q, K and V tiles, but target sm_86 offers 101376}}
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>}
      : memref<?x?x?x1024xf32>, memref<?x?x?x1024xf32>,
        memref<?x?x?x1024xf32>, memref<?x?x?x1024xf32>
  return
}
