// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The verifier rules of attn.attention's block_mask(...) (AttnOps.cpp,
// AttentionOp::verifyBlockMask). Each input is valid but for the one rule
// it breaks.

func.func @counts_rank(%q: memref<?x?x?x64xbf16>, %c: memref<1x1xi32>,
                       %x: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{block counts must have rank 3 [1|batch, 1|heads, query blocks], got rank 2}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1xi32>, memref<1x1x?x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @indices_type(%q: memref<?x?x?x64xbf16>, %c: memref<1x1x?xi32>,
                        %x: memref<1x1x?x?xi64>) {
  // expected-error @+1 {{block indices element type must be i32, got 'i64'}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi64>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @disagree(%q: memref<?x?x?x64xbf16>, %c: memref<1x1x8xi32>,
                    %x: memref<1x1x4x?xi32>) {
  // expected-error @+1 {{query blocks of block counts (dim 2 = 8) must equal query blocks of block indices (dim 2 = 4)}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x8xi32>, memref<1x1x4x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @heads(%q: memref<?x8x?x64xbf16>, %c: memref<1x4x?xi32>,
                 %x: memref<1x4x?x?xi32>) {
  // expected-error @+1 {{block_mask heads (4) must be 1 or the query's (8)}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x4x?xi32>, memref<1x4x?x?xi32>)
      : memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>,
        memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>
  return
}

// -----

func.func @query_blocks(%q: memref<?x?x1000x64xbf16>, %c: memref<1x1x15xi32>,
                        %x: memref<1x1x15x?xi32>) {
  // expected-error @+1 {{block_mask has 15 query blocks; 1000 query rows in blocks of 64 need 16}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x15xi32>, memref<1x1x15x?xi32>)
      {mask_block = array<i64: 64, 64>}
      : memref<?x?x1000x64xbf16>, memref<?x?x1000x64xbf16>,
        memref<?x?x1000x64xbf16>, memref<?x?x1000x64xbf16>
  return
}

// -----

func.func @not_pow2(%q: memref<?x?x?x64xbf16>, %c: memref<1x1x?xi32>,
                    %x: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{mask_block entries must be powers of two in [1, 1024], got 96}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      {mask_block = array<i64: 128, 96>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @mask_block_alone(%q: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{mask_block sizes the blocks of a block_mask operand, which this op has not}}
  attn.attention %q, %q, %q into %q {mask_block = array<i64: 128, 128>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @split(%q: memref<?x?x?x64xbf16>, %po: memref<?x?x?x?x64xf32>,
                 %pl: memref<?x?x?x?xf32>, %c: memref<1x1x?xi32>,
                 %x: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{unsupported: block_mask with split_kv (not implemented yet)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<?x?x?x?xf32>)
      block_mask(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>) {split_kv}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x?x64xf32>
  return
}

// -----

func.func @full_without_lists(%q: memref<?x?x?x64xbf16>, %c: memref<1x1x?xi32>,
                              %x: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{full_blocks needs block_mask (the partial blocks' lists)}}
  attn.attention %q, %q, %q into %q
      full_blocks(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @full_without_mask_mod(%q: memref<?x?x?x64xbf16>,
                                 %c: memref<1x1x?xi32>,
                                 %x: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{full_blocks lists the blocks where mask_mod is not evaluated; without a mask_mod give them in block_mask}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      full_blocks(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @full_disagree(%q: memref<?x?x?x64xbf16>, %c: memref<1x1x?xi32>,
                         %x: memref<1x1x?x?xi32>, %fc: memref<1x8x?xi32>,
                         %fx: memref<1x8x?x?xi32>) {
  // expected-error @+1 {{heads of block counts (dim 1 = 1) must equal heads of full block counts (dim 1 = 8)}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      full_blocks(%fc, %fx : memref<1x8x?xi32>, memref<1x8x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @mask_mod_args(%q: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{mask_mod takes (%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32)}}
  attn.attention %q, %q, %q into %q mask_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @mask_mod_yield(%q: memref<?x?x?x64xbf16>) {
  attn.attention %q, %q, %q into %q mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %j, %i : i32
    // expected-error @+1 {{'attn.yield' op in mask_mod: must yield one i1 (whether the key is visible)}}
    attn.yield %d : i32
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

func.func @mask_mod_op(%q: memref<?x?x?x64xbf16>) {
  attn.attention %q, %q, %q into %q mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %f = arith.sitofp %b : i32 to f32
    // expected-error @+1 {{'math.erf' op in mask_mod: unsupported op}}
    %e = math.erf %f : f32
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
