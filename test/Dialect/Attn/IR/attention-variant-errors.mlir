// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The verifier rules of attn.attention's variants (AttnOps.cpp): split_kv
// and attn.merge_splits, a KV cache (kv_lens, pages), a packed batch
// (varlen) and a score_mod region. Each input is valid but for the one rule
// it breaks.

//===----------------------------------------------------------------------===//
// attn.attention {split_kv} and attn.merge_splits
//===----------------------------------------------------------------------===//

func.func @split_kv_needs_lse(%q: memref<1x2x8x16xbf16>,
                              %po: memref<4x1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op split_kv needs an lse operand: the merge weighs each split by its log-sum-exp}}
  attn.attention %q, %q, %q into %po {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_output_rank(%q: memref<1x2x8x16xbf16>,
                                %o: memref<1x2x8x16xf32>,
                                %pl: memref<4x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op output must have rank 5 [splits, batch, heads, seq, head_dim], got rank 4}}
  attn.attention %q, %q, %q into %o lse(%pl : memref<4x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_output_f32(%q: memref<1x2x8x16xbf16>,
                               %po: memref<4x1x2x8x16xbf16>,
                               %pl: memref<4x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op split_kv output element type must be f32, got 'bf16'}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<4x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xbf16>
  return
}

// -----

func.func @split_kv_splits_agree(%q: memref<1x2x8x16xbf16>,
                                 %po: memref<4x1x2x8x16xf32>,
                                 %pl: memref<3x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op splits of lse (dim 0 = 3) must equal splits of output (dim 0 = 4)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<3x1x2x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x2x8x16xf32>
  return
}

// -----

func.func @split_kv_heads(%q: memref<1x2x8x16xbf16>,
                          %po: memref<4x1x3x8x16xf32>,
                          %pl: memref<4x1x3x8xf32>) {
  // expected-error @+1 {{'attn.attention' op heads of query (dim 1 = 2) must equal heads of output (dim 2 = 3)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<4x1x3x8xf32>) {split_kv}
      : memref<1x2x8x16xbf16>, memref<1x2x8x16xbf16>,
        memref<1x2x8x16xbf16>, memref<4x1x3x8x16xf32>
  return
}

// -----

func.func @merge_rank(%po: memref<1x2x8x16xf32>, %pl: memref<4x1x2x8xf32>,
                      %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op partial output must have rank 5, got rank 4}}
  attn.merge_splits %po, %pl into %o
      : memref<1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_partials_f32(%po: memref<4x1x2x8x16xf16>,
                              %pl: memref<4x1x2x8xf32>,
                              %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op partial output element type must be f32, got 'f16'}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf16>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_head_dim(%po: memref<4x1x2x8x32xf32>,
                          %pl: memref<4x1x2x8xf32>,
                          %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op head dim of the partial output (32) must equal head dim of the output (16)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x32xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_splits_agree(%po: memref<4x1x2x8x16xf32>,
                              %pl: memref<2x1x2x8xf32>,
                              %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op splits of partial output (dim 0 = 4) must equal splits of partial lse (dim 0 = 2)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf32>, memref<2x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_rows(%po: memref<4x1x2x8x16xf32>, %pl: memref<4x1x2x8xf32>,
                      %o: memref<1x2x9x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op sequence length of partial output (dim 3 = 8) must equal sequence length of output (dim 2 = 9)}}
  attn.merge_splits %po, %pl into %o
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x9x16xbf16>
  return
}

// -----

func.func @merge_lse_type(%po: memref<4x1x2x8x16xf32>,
                          %pl: memref<4x1x2x8xf32>,
                          %o: memref<1x2x8x16xbf16>,
                          %l: memref<1x2x8xf16>) {
  // expected-error @+1 {{'attn.merge_splits' op lse element type must be f32, got 'f16'}}
  attn.merge_splits %po, %pl into %o lse(%l : memref<1x2x8xf16>)
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

func.func @merge_block_q(%po: memref<4x1x2x8x16xf32>,
                         %pl: memref<4x1x2x8xf32>,
                         %o: memref<1x2x8x16xbf16>) {
  // expected-error @+1 {{'attn.merge_splits' op block_q must be a power of two or a multiple of 64 in [1, 1024], got 48}}
  attn.merge_splits %po, %pl into %o {block_q = 48 : i64}
      : memref<4x1x2x8x16xf32>, memref<4x1x2x8xf32>, memref<1x2x8x16xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention over a KV cache: kv_lens, pages
//===----------------------------------------------------------------------===//

func.func @pages_need_lens(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                           %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op pages(...) needs kv_lens(...): a paged cache has no key count of its own}}
  attn.attention %q, %k, %k into %q pages(%t : memref<2x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<9x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_i32(%q: memref<2x4x1x64xbf16>, %l: memref<2xi64>) {
  // expected-error @+1 {{'attn.attention' op kv_lens element type must be i32, got 'i64'}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<2xi64>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_rank(%q: memref<2x4x1x64xbf16>, %l: memref<2x1xi32>) {
  // expected-error @+1 {{'attn.attention' op kv_lens must have rank 1 [batch], got rank 2}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<2x1xi32>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @lens_batch(%q: memref<2x4x1x64xbf16>, %l: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 2) must equal batch of kv_lens (dim 0 = 3)}}
  attn.attention %q, %q, %q into %q kv_lens(%l : memref<3xi32>)
      : memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>,
        memref<2x4x1x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

// Paged K and V hold pages in dim 0: 9 pages for a batch of 2 is fine, but
// the table's batch must be the queries'.
func.func @table_batch(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                       %l: memref<2xi32>, %t: memref<3x8xi32>) {
  // expected-error @+1 {{'attn.attention' op batch of query (dim 0 = 2) must equal batch of page table (dim 0 = 3)}}
  attn.attention %q, %k, %k into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<3x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<9x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @pages_agree(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x16x64xbf16>,
                       %v: memref<8x4x16x64xbf16>, %l: memref<2xi32>,
                       %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op pages of key (dim 0 = 9) must equal pages of value (dim 0 = 8)}}
  attn.attention %q, %k, %v into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<2x8xi32>)
      : memref<2x4x1x64xbf16>, memref<9x4x16x64xbf16>,
        memref<8x4x16x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

func.func @page_block(%q: memref<2x4x1x64xbf16>, %k: memref<9x4x48x64xbf16>,
                      %l: memref<2xi32>, %t: memref<2x8xi32>) {
  // expected-error @+1 {{'attn.attention' op page size 48 must be a multiple or a divisor of block_kv (32): a key block is read from one page or from whole pages}}
  attn.attention %q, %k, %k into %q kv_lens(%l : memref<2xi32>)
      pages(%t : memref<2x8xi32>) {block_kv = 32 : i64}
      : memref<2x4x1x64xbf16>, memref<9x4x48x64xbf16>,
        memref<9x4x48x64xbf16>, memref<2x4x1x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention over a packed batch: varlen
//===----------------------------------------------------------------------===//

func.func @varlen_batch_one(%q: memref<2x4x9x64xbf16>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op varlen: dim 0 of query must be 1 (the sequences are packed along the rows), got 2}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<3xi32>, memref<3xi32>)
      : memref<2x4x9x64xbf16>, memref<2x4x9x64xbf16>,
        memref<2x4x9x64xbf16>, memref<2x4x9x64xbf16>
  return
}

// -----

func.func @varlen_i32(%q: memref<1x4x9x64xbf16>, %c: memref<3xi64>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q element type must be i32, got 'i64'}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<3xi64>, memref<3xi64>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_entries(%q: memref<1x4x9x64xbf16>, %c: memref<3xi32>,
                          %d: memref<4xi32>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q (3 entries) and cu_seqlens_k (4 entries) must have one entry per sequence plus one, alike}}
  attn.attention %q, %q, %q into %q varlen(%c, %d : memref<3xi32>, memref<4xi32>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_one_sequence(%q: memref<1x4x9x64xbf16>, %c: memref<1xi32>) {
  // expected-error @+1 {{'attn.attention' op cu_seqlens_q needs at least 2 entries (one sequence), got 1}}
  attn.attention %q, %q, %q into %q varlen(%c, %c : memref<1xi32>, memref<1xi32>)
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>
  return
}

// -----

func.func @varlen_split(%q: memref<1x4x9x64xbf16>, %po: memref<2x1x4x9x64xf32>,
                        %pl: memref<2x1x4x9xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: varlen with split_kv (the packed batch's sequences are tiled whole)}}
  attn.attention %q, %q, %q into %po lse(%pl : memref<2x1x4x9xf32>)
      varlen(%c, %c : memref<3xi32>, memref<3xi32>) {split_kv}
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>, memref<2x1x4x9x64xf32>
  return
}

// -----

// Both offsets or neither (the generic form can give one).
func.func @varlen_both(%q: memref<1x4x9x64xbf16>, %c: memref<3xi32>) {
  // expected-error @+1 {{'attn.attention' op varlen needs both cu_seqlens_q and cu_seqlens_k}}
  "attn.attention"(%q, %q, %q, %q, %c)
      <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> ({}, {})
      : (memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
         memref<1x4x9x64xbf16>, memref<3xi32>) -> ()
  return
}

// -----

// score_mod: (score) or (score, b, h, q_idx, kv_idx), nothing else.
func.func @score_mod_args(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op score_mod takes (%score: f32) or (%score: f32, %b: i32, %h: i32, %q_idx: i32, %kv_idx: i32)}}
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %i: index):
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: a per-score index is read only by loads (the backends keep
// per-score values as i32 tiles: compute in i32, then index_cast).
func.func @score_mod_index_use(%q: memref<1x4x9x64xbf16>,
                               %t: memref<9xf32>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %x = arith.index_cast %j : i32 to index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'arith.addi' op unsupported: in score_mod, a per-score index used other than as a memref.load index}}
    %x1 = arith.addi %x, %c1 : index
    %y = memref.load %t[%x1] : memref<9xf32>
    %r = arith.addf %s, %y : f32
    attn.yield %r : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: a per-score index made other than by index_cast of an i32.
func.func @score_mod_index_arith(%q: memref<1x4x9x64xbf16>,
                                 %t: memref<9xf32>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i32
    %p = arith.cmpi sgt, %j, %z : i32
    // expected-error @+1 {{'arith.select' op unsupported: in score_mod, index arithmetic on the score or the positions; compute in i32 and arith.index_cast the result for memref.load}}
    %x = arith.select %p, %c1, %c0 : index
    %y = memref.load %t[%x] : memref<9xf32>
    %r = arith.addf %s, %y : f32
    attn.yield %r : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: loads of the element types the backends gather.
func.func @score_mod_load_type(%q: memref<1x4x9x64xbf16>,
                               %t: memref<9xi8>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %x = arith.index_cast %h : i32 to index
    // expected-error @+1 {{'memref.load' op in score_mod: loads f32, f16, bf16, i32 or i64 elements, not 'i8'}}
    %y = memref.load %t[%x] : memref<9xi8>
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: reading the output the attention writes would race with it.
func.func @score_mod_reads_output(%q: memref<1x4x9x64xbf16>,
                                  %o: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.load' op in score_mod: reads the attention's output (O or LSE), which it writes}}
    %y = memref.load %o[%c0, %c0, %c0, %c0] : memref<1x4x9x64xbf16>
    %r = arith.extf %y : bf16 to f32
    attn.yield %r : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: a captured memref is read by memref.load and memref.dim only.
func.func @score_mod_memref_operand(%q: memref<1x4x9x64xbf16>,
                                    %t: memref<9xf32>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'memref.rank' op in score_mod: unsupported op}}
    %n = memref.rank %t : memref<9xf32>
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: every value is a scalar (the lowering makes the tiles).
func.func @score_mod_tensor_constant(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'arith.constant' op in score_mod: results must be scalars, got 'tensor<2xf32>'}}
    %c = arith.constant dense<1.0> : tensor<2xf32>
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// attn.yield gives back one f32 score in a score_mod.
func.func @score_mod_yield(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'attn.yield' op in score_mod: must yield one f32 (the modified score)}}
    attn.yield %s, %s : f32, f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

func.func @score_mod_yield_type(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    %t = arith.constant true
    // expected-error @+1 {{'attn.yield' op in score_mod: must yield one f32 (the modified score)}}
    attn.yield %t : i1
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// attn.yield only ends a score_mod or mask_mod region.
func.func @yield_outside(%s: f32) {
  // expected-error @+1 {{'attn.yield' op expects parent op to be one of 'attn.attention, attn.attention_grad, attn.block_lists'}}
  attn.yield %s : f32
}

// -----

// score_mod: an elementwise op no backend's list has (erf).
func.func @score_mod_erf(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'math.erf' op in score_mod: unsupported op}}
    %e = math.erf %s : f32
    attn.yield %e : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod ends with attn.yield (another terminator would leave the
// modified score undefined).
func.func @score_mod_terminator(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op score_mod must end with attn.yield}}
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    llvm.unreachable
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: the yielded score comes from the region too.
func.func @score_mod_yield_capture(%q: memref<1x4x9x64xbf16>, %x: f32) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'attn.yield' op in score_mod: must yield a value computed in the region}}
    attn.yield %x : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// attn.attention with a sliding window: window_left, window_right
//===----------------------------------------------------------------------===//

// -----

func.func @window_negative(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op window_left must be in [0, 2^31), got -1 (leave it out for no bound)}}
  attn.attention %q, %q, %q into %q {window_left = -1}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @window_too_wide(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op window_right must be in [0, 2^31), got 2147483648 (leave it out for no bound)}}
  attn.attention %q, %q, %q into %q {window_right = 2147483648}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @window_right_with_causal(%q: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op causal is window_right = 0: give one of causal and window_right}}
  attn.attention %q, %q, %q into %q {causal, window_right = 0}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @window_split_kv(%q: memref<1x2x8x16xf32>, %os: memref<4x1x2x8x16xf32>,
                           %ls: memref<4x1x2x8xf32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: a sliding window with split_kv (not implemented yet)}}
  attn.attention %q, %q, %q into %os lse(%ls : memref<4x1x2x8xf32>)
      {split_kv, window_left = 4}
      : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
        memref<1x2x8x16xf32>, memref<4x1x2x8x16xf32>
  return
}

// -----

func.func @window_varlen(%q: memref<1x2x?x16xbf16>, %cu: memref<?xi32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: a sliding window with varlen (not implemented yet)}}
  attn.attention %q, %q, %q into %q varlen(%cu, %cu : memref<?xi32>, memref<?xi32>)
      {window_left = 16}
      : memref<1x2x?x16xbf16>, memref<1x2x?x16xbf16>,
        memref<1x2x?x16xbf16>, memref<1x2x?x16xbf16>
  return
}

// -----

// softcap: a positive finite cap.
func.func @softcap_zero(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op softcap must be a positive, finite, normal f32 (its reciprocal finite), got 0}}
  attn.attention %q, %q, %q into %q {softcap = 0.0 : f32}
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>
  return
}

// -----

// softcap and a score_mod region: one modifier, written one way.
func.func @softcap_and_score_mod(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op softcap and a score_mod region are exclusive (write the cap in the region)}}
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    attn.yield %s : f32
  } {softcap = 30.0 : f32}
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>
  return
}

// -----

// softcap: a subnormal cap's reciprocal is not a finite f32.
func.func @softcap_subnormal(%q: memref<1x4x9x64xbf16>) {
  // expected-error @+1 {{'attn.attention' op softcap must be a positive, finite, normal f32}}
  attn.attention %q, %q, %q into %q {softcap = 1.0e-39 : f32}
      : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
        memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: integers of at most 64 bits (the reference computes in int64).
func.func @score_mod_wide_int(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    // expected-error @+1 {{'arith.extsi' op in score_mod: integers of at most 64 bits and f16, bf16, f32 or f64 only, got 'i128'}}
    %w = arith.extsi %i : i32 to i128
    attn.yield %s : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

// -----

// score_mod: straight-line scalar code only (the lowering maps each op to
// one tile op).
func.func @score_mod_region_op(%q: memref<1x4x9x64xbf16>) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %c = arith.cmpi slt, %i, %j : i32
    // expected-error @+1 {{'scf.if' op in score_mod: ops with regions are not supported}}
    %r = scf.if %c -> (f32) {
      scf.yield %s : f32
    } else {
      scf.yield %s : f32
    }
    attn.yield %r : f32
  } : memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>, memref<1x4x9x64xbf16>,
      memref<1x4x9x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// alibi(...): one f32 slope per query head
//===----------------------------------------------------------------------===//

// -----

func.func @alibi_not_f32(%q: memref<1x4x8x16xbf16>, %s: memref<4xbf16>) {
  // expected-error @+1 {{'attn.attention' op alibi slopes must be a 1-d f32 memref (one slope per query head), got 'memref<4xbf16>'}}
  attn.attention %q, %q, %q into %q alibi(%s : memref<4xbf16>)
      : memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>,
        memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>
  return
}

// -----

func.func @alibi_rank(%q: memref<1x4x8x16xbf16>, %s: memref<1x4xf32>) {
  // expected-error @+1 {{'attn.attention' op alibi slopes must be a 1-d f32 memref}}
  attn.attention %q, %q, %q into %q alibi(%s : memref<1x4xf32>)
      : memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>,
        memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>
  return
}

// -----

func.func @alibi_heads(%q: memref<1x4x8x16xbf16>, %s: memref<2xf32>) {
  // expected-error @+1 {{'attn.attention' op alibi slopes have 2 entries for 4 query heads}}
  attn.attention %q, %q, %q into %q alibi(%s : memref<2xf32>)
      : memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>,
        memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>
  return
}

// -----

// A score_mod may read sizes of captured memrefs at constant dims only.
func.func @score_mod_dim_not_constant(%q: memref<1x4x8x16xbf16>, %d: index) {
  attn.attention %q, %q, %q into %q score_mod {
  ^bb0(%s: f32):
    // expected-error @+1 {{'memref.dim' op in score_mod: memref.dim of a memref defined outside the region, at a constant dim, only}}
    %n = memref.dim %q, %d : memref<1x4x8x16xbf16>
    %i = arith.index_cast %n : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = arith.addf %s, %f : f32
    attn.yield %r : f32
  } : memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>,
      memref<1x4x8x16xbf16>, memref<1x4x8x16xbf16>
  return
}

// -----

// Packed rows are (position, head) pairs: nothing that reads a row's own
// position or head per element.
func.func @pack_window(%q: memref<1x8x4x16xbf16>, %k: memref<1x2x64x16xbf16>) {
  // expected-error @+1 {{'attn.attention' op unsupported: pack_query_heads with a sliding window (packed rows are (position, head) pairs)}}
  attn.attention %q, %k, %k into %q {causal, pack_query_heads, window_left = 16}
      : memref<1x8x4x16xbf16>, memref<1x2x64x16xbf16>,
        memref<1x2x64x16xbf16>, memref<1x8x4x16xbf16>
  return
}

// -----

func.func @pack_alibi(%q: memref<1x8x4x16xbf16>, %k: memref<1x2x64x16xbf16>,
                      %s: memref<8xf32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: pack_query_heads with ALiBi (packed rows are (position, head) pairs)}}
  attn.attention %q, %k, %k into %q alibi(%s : memref<8xf32>)
      {pack_query_heads}
      : memref<1x8x4x16xbf16>, memref<1x2x64x16xbf16>,
        memref<1x2x64x16xbf16>, memref<1x8x4x16xbf16>
  return
}

// -----

func.func @pack_varlen(%q: memref<1x8x?x16xbf16>, %k: memref<1x2x?x16xbf16>,
                       %cu: memref<?xi32>) {
  // expected-error @+1 {{'attn.attention' op unsupported: pack_query_heads with varlen (packed rows are (position, head) pairs)}}
  attn.attention %q, %k, %k into %q varlen(%cu, %cu : memref<?xi32>, memref<?xi32>)
      {pack_query_heads}
      : memref<1x8x?x16xbf16>, memref<1x2x?x16xbf16>,
        memref<1x2x?x16xbf16>, memref<1x8x?x16xbf16>
  return
}
