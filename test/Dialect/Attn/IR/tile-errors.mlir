// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The tile-level ops' verifiers and parsers (AttnOps.cpp): attn.load_tile,
// attn.store_tile, attn.dot, attn.mask, attn.iota, attn.gather, attn.reduce
// and attn.broadcast. Each input is valid but for the one rule it breaks, and is
// refused where it is written. The GPU ops and layouts are in gpu-errors.mlir.

//===----------------------------------------------------------------------===//
// attn.load_tile / attn.store_tile
//===----------------------------------------------------------------------===//

func.func @tile_rank(%m: memref<1x2x8x16xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op tile must have rank 1 or 2, got 3}}
  %0 = attn.load_tile %m[%i, %i] rows %i
      : memref<1x2x8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @tile_static_shape(%t: tensor<?x16xf32>, %m: memref<1x2x8x16xf32>,
                             %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile must have a static shape, got 'tensor<?x16xf32>'}}
  attn.store_tile %t, %m[%i, %i, %i] rows %i
      : tensor<?x16xf32>, memref<1x2x8x16xf32>
  return
}

// -----

func.func @tile_memref_rank(%t: tensor<4x16xf32>, %m: memref<16xf32>,
                            %i: index) {
  // expected-error @+1 {{'attn.store_tile' op dest rank (1) must be at least the tile rank (2)}}
  attn.store_tile %t, %m[] rows %i : tensor<4x16xf32>, memref<16xf32>
  return
}

// -----

func.func @tile_num_indices(%m: memref<1x2x8x16xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op expected 3 indices for a source of rank 4 and a tile of rank 2, got 2}}
  %0 = attn.load_tile %m[%i, %i] rows %i
      : memref<1x2x8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @tile_dynamic_columns(%m: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op source's last dim must be static to match the tile columns (16)}}
  %0 = attn.load_tile %m[%i] rows %i : memref<?x?xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @tile_columns(%t: tensor<64x32xf32>, %m: memref<?x?x?x16xf32>,
                        %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile columns (32) must equal the dest's last dim (16)}}
  attn.store_tile %t, %m[%i, %i, %i] rows %i
      : tensor<64x32xf32>, memref<?x?x?x16xf32>
  return
}

// -----

func.func @tile_not_strided(
    %m: memref<8x16xf32, affine_map<(r, c) -> (c, r floordiv 2)>>,
    %i: index) {
  // expected-error @+1 {{'attn.load_tile' op source must have a strided layout}}
  %0 = attn.load_tile %m[%i] rows %i
      : memref<8x16xf32, affine_map<(r, c) -> (c, r floordiv 2)>> -> tensor<8x16xf32>
  return
}

// -----

func.func @load_tile_element_type(%m: memref<8x16xf16>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op tile element type 'f32' must match source element type 'f16'}}
  %0 = attn.load_tile %m[%i] rows %i : memref<8x16xf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @store_tile_element_type(%t: tensor<8x16xf16>, %m: memref<8x16xf32>,
                                   %i: index) {
  // expected-error @+1 {{'attn.store_tile' op tile element type 'f16' must match dest element type 'f32' or be f32 (rounded on store)}}
  attn.store_tile %t, %m[%i] rows %i : tensor<8x16xf16>, memref<8x16xf32>
  return
}

// -----

func.func @load_rank0_source(%m: memref<f32>, %n: index) -> tensor<4xf32> {
  // expected-error @below {{'attn.load_tile' op source rank (0) must be at least the tile rank (1)}}
  %t = attn.load_tile %m[] rows %n : memref<f32> -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

func.func @load_dynamic_tile(%m: memref<?x8xf32>, %i: index, %n: index) -> tensor<?x8xf32> {
  // expected-error @below {{tile must have a static shape, got 'tensor<?x8xf32>'}}
  %t = attn.load_tile %m[%i] rows %n : memref<?x8xf32> -> tensor<?x8xf32>
  return %t : tensor<?x8xf32>
}

// -----

func.func @load_columns(%m: memref<?x16xf32>, %i: index, %n: index) -> tensor<4x8xf32> {
  // expected-error @below {{tile columns (8) must equal the source's last dim (16)}}
  %t = attn.load_tile %m[%i] rows %n : memref<?x16xf32> -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// Zero-sized tiles hold nothing and would lower to out-of-bounds slices:
// every tile op refuses them.

func.func @load_zero_rows(%m: memref<?x8xf32>, %i: index, %n: index) -> tensor<0x8xf32> {
  // expected-error @below {{'attn.load_tile' op tile must have non-zero dims, got 'tensor<0x8xf32>'}}
  %t = attn.load_tile %m[%i] rows %n : memref<?x8xf32> -> tensor<0x8xf32>
  return %t : tensor<0x8xf32>
}

// -----

func.func @load_zero_columns(%m: memref<?x0xf32>, %i: index, %n: index) -> tensor<4x0xf32> {
  // expected-error @below {{'attn.load_tile' op tile must have non-zero dims, got 'tensor<4x0xf32>'}}
  %t = attn.load_tile %m[%i] rows %n : memref<?x0xf32> -> tensor<4x0xf32>
  return %t : tensor<4x0xf32>
}

// -----

func.func @store_zero_rows(%t: tensor<0xf32>, %m: memref<?xf32>, %i: index, %n: index) {
  // expected-error @below {{'attn.store_tile' op tile must have non-zero dims, got 'tensor<0xf32>'}}
  attn.store_tile %t, %m[%i] rows %n : tensor<0xf32>, memref<?xf32>
  return
}

// -----

// An f32 tile is rounded on store to f16 or bf16, never to another type.

func.func @store_f32_to_f64(%t: tensor<4x8xf32>, %m: memref<?x8xf64>, %i: index, %n: index) {
  // expected-error @below {{'attn.store_tile' op dest element type must be f32, f16 or bf16 for an f32 tile, got 'f64'}}
  attn.store_tile %t, %m[%i] rows %n : tensor<4x8xf32>, memref<?x8xf64>
  return
}

// -----

func.func @store_f16_to_bf16(%t: tensor<4x8xf16>, %m: memref<?x8xbf16>, %i: index, %n: index) {
  // expected-error @below {{'attn.store_tile' op tile element type 'f16' must match dest element type 'bf16' or be f32 (rounded on store)}}
  attn.store_tile %t, %m[%i] rows %n : tensor<4x8xf16>, memref<?x8xbf16>
  return
}

// -----

// A column window (`cols`) takes one index per source dim, the last the
// first column, into a static 2-d tile (without one, the source's last dim
// must be the tile's columns: @tile_dynamic_columns above).

func.func @window_indices(%bias: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op with cols, expected one index per source dim (4), got 3}}
  %t = attn.load_tile %bias[%i, %i, %i] rows %i cols %i
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @window_rank(%bias: memref<?x?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op with cols, the tile must be a static 2-d tile, got 'tensor<64xf32>'}}
  %t = attn.load_tile %bias[%i, %i, %i] rows %i cols %i
      : memref<?x?x?xf32> -> tensor<64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.dot
//===----------------------------------------------------------------------===//

func.func @dot_operand_rank(%a: tensor<16x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'attn.dot' op rhs must be a static 2-d tile, got 'tensor<16xf32>'}}
  %0 = attn.dot %a, %b, %a : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_element_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>,
                             %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'attn.dot' op lhs and rhs must share an f32, f16, bf16 or f8E4M3FN element type, got 'f16' and 'bf16'}}
  %0 = attn.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_element_type(%a: tensor<16x16xf16>) {
  // expected-error @+1 {{'attn.dot' op acc must be f32, got 'f16'}}
  %0 = attn.dot %a, %a, %a : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

// With rhs_transposed the contraction runs over the rhs's columns (32 here);
// without it these shapes would be valid.
func.func @dot_contraction(%a: tensor<32x64xf32>, %b: tensor<64x32xf32>,
                           %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'attn.dot' op contraction dims differ: lhs has 64, rhs has 32}}
  %0 = attn.dot %a, %b, %c {rhs_transposed}
      : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>,
                         %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.dot' op acc must be 64x16, got 'tensor<64x32xf32>'}}
  %0 = attn.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @dot_i8(%a: tensor<4x8xi8>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{lhs and rhs must share an f32, f16, bf16 or f8E4M3FN element type, got 'i8' and 'i8'}}
  %r = attn.dot %a, %a, %c {rhs_transposed} : tensor<4x8xi8>, tensor<4x8xi8> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @dot_zero_contraction(%a: tensor<4x0xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{'attn.dot' op lhs must have non-zero dims, got 'tensor<4x0xf32>'}}
  %r = attn.dot %a, %a, %c {rhs_transposed} : tensor<4x0xf32>, tensor<4x0xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// attn.mask / attn.reduce / attn.broadcast
//===----------------------------------------------------------------------===//

func.func @iota_type(%i: index) {
  // expected-error @+1 {{'attn.iota' op result must be a static 1-d or 2-d i32 tile, got 'tensor<64x64xi64>'}}
  %0 = attn.iota %i dim 0 : tensor<64x64xi64>
  return
}

// -----

func.func @iota_dim(%i: index) {
  // expected-error @+1 {{'attn.iota' op dim must be 0 (rows) or 1 (columns), got 2}}
  %0 = attn.iota %i dim 2 : tensor<64x64xi32>
  return
}

// -----

func.func @iota_rank(%i: index) {
  // expected-error @+1 {{'attn.iota' op result must be a static 1-d or 2-d i32 tile, got 'tensor<4x64x64xi32>'}}
  %0 = attn.iota %i dim 0 : tensor<4x64x64xi32>
  return
}

// -----

func.func @iota_dim_1d(%i: index) {
  // expected-error @+1 {{'attn.iota' op dim must be 0 for a 1-d tile, got 1}}
  %0 = attn.iota %i dim 1 : tensor<64xi32>
  return
}

// -----

func.func @gather_rank(%m: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.gather' op takes 2 indices (the source's rank), got 1}}
  %0 = attn.gather %m[%i] : memref<?x?xf32>, index -> tensor<64x64xf32>
  return
}

// -----

func.func @gather_index_shape(%m: memref<?xf32>, %t: tensor<64x32xi32>) {
  // expected-error @+1 {{'attn.gather' op an index must be an index scalar or an i32 tile of the result's shape, got 'tensor<64x32xi32>'}}
  %0 = attn.gather %m[%t] : memref<?xf32>, tensor<64x32xi32> -> tensor<64x64xf32>
  return
}

// -----

func.func @gather_element(%m: memref<?xi32>, %t: tensor<64x64xi32>) {
  // expected-error @+1 {{'attn.gather' op result element type 'f32' differs from the source's 'i32'}}
  %0 = attn.gather %m[%t] : memref<?xi32>, tensor<64x64xi32> -> tensor<64x64xf32>
  return
}

// -----

func.func @mask_scores(%s: tensor<64x64xf16>, %i: index) {
  // expected-error @+1 {{'attn.mask' op scores must be a static 2-d f32 tile, got 'tensor<64x64xf16>'}}
  %0 = attn.mask %s q(%i, %i) kv(%i, %i) : tensor<64x64xf16>
  return
}

// -----

func.func @mask_window_negative(%s: tensor<64x64xf32>, %i: index) {
  // expected-error @+1 {{'attn.mask' op window_left must be in [0, 2^31), got -3 (leave it out for no bound)}}
  %0 = attn.mask %s q(%i, %i) kv(%i, %i) {window_left = -3} : tensor<64x64xf32>
  return
}

// -----

func.func @mask_window_causal(%s: tensor<64x64xf32>, %i: index) {
  // expected-error @+1 {{'attn.mask' op causal is window_right = 0: give one of causal and window_right}}
  %0 = attn.mask %s q(%i, %i) kv(%i, %i) {causal, window_right = 4} : tensor<64x64xf32>
  return
}

// -----

func.func @reduce_input(%s: tensor<64xf32>) {
  // expected-error @+1 {{'attn.reduce' op input must be a static 2-d f32 tile, got 'tensor<64xf32>'}}
  %0 = attn.reduce max %s : tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

// One value per row (64), not per column (32).
func.func @reduce_result(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<32xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<32xf32>
  return
}

// -----

// Column groups must divide the columns.
func.func @reduce_groups(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<64x12xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<64x12xf32>
  return
}

// -----

func.func @reduce_group_rows(%s: tensor<64x32xf32>) {
  // expected-error @+1 {{'attn.reduce' op result must be tensor<64xf32> (one value per row) or tensor<64xWxf32> with W dividing the input's 32 columns, got 'tensor<32x8xf32>'}}
  %0 = attn.reduce sum %s : tensor<64x32xf32> -> tensor<32x8xf32>
  return
}

// -----

func.func @broadcast_input(%m: tensor<4x4xf32>) {
  // expected-error @+1 {{'attn.broadcast' op input must be a static 1-d tile, got 'tensor<4x4xf32>'}}
  %0 = attn.broadcast %m : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_result(%m: tensor<64xf32>) {
  // expected-error @+1 {{'attn.broadcast' op result must be a static 2-d tile with 64 rows of 'f32', got 'tensor<32x64xf32>'}}
  %0 = attn.broadcast %m : tensor<64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<4xf32>) -> tensor<4x8xf16> {
  // expected-error @below {{'attn.broadcast' op result must be a static 2-d tile with 4 rows of 'f32', got 'tensor<4x8xf16>'}}
  %r = attn.broadcast %a : tensor<4xf32> -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

func.func @mask_zero(%s: tensor<0x4xf32>, %i: index) -> tensor<0x4xf32> {
  // expected-error @below {{'attn.mask' op scores must have non-zero dims, got 'tensor<0x4xf32>'}}
  %r = attn.mask %s q(%i, %i) kv(%i, %i) : tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// -----

func.func @reduce_zero_columns(%s: tensor<4x0xf32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.reduce' op input must have non-zero dims, got 'tensor<4x0xf32>'}}
  %r = attn.reduce max %s : tensor<4x0xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @broadcast_zero_columns(%a: tensor<4xf32>) -> tensor<4x0xf32> {
  // expected-error @below {{'attn.broadcast' op result must have non-zero dims, got 'tensor<4x0xf32>'}}
  %r = attn.broadcast %a : tensor<4xf32> -> tensor<4x0xf32>
  return %r : tensor<4x0xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Constraints ODS generates
//===----------------------------------------------------------------------===//

func.func @dot_acc_result_type(%a: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'attn.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "attn.dot"(%a, %a, %c)
      : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf16>) -> tensor<16x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Parser failures
//===----------------------------------------------------------------------===//

func.func @parse_missing_rows(%m: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected 'rows'}}
  %0 = attn.load_tile %m[%i] %i : memref<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @parse_reduce_kind(%s: tensor<4x4xf32>) {
  // expected-error @+2 {{expected ::mlir::attn::ReduceKind to be one of: max, sum}}
  // expected-error @+1 {{failed to parse Attn_ReduceKindAttr parameter 'value'}}
  %0 = attn.reduce min %s : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_per_column(%m: tensor<64xf32>) {
  // expected-error @+1 {{'attn.broadcast' op result must be a static 2-d tile with 64 columns of 'f32', got 'tensor<64x32xf32>'}}
  %0 = attn.broadcast %m {per_column} : tensor<64xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @accumulate_not_f32(%t: tensor<64x128xbf16>, %m: memref<?x?x?x128xbf16>,
                              %i: index) {
  // expected-error @+1 {{'attn.accumulate_tile' op tile and dest must be f32, got 'bf16' and 'bf16'}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i
      : tensor<64x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

func.func @accumulate_transposed_columns(%t: tensor<64x128xf32>,
                                         %m: memref<?x?x?x128xf32>,
                                         %i: index) {
  // Transposed, the tile's rows are dest's columns: 64 != 128.
  // expected-error @+1 {{'attn.accumulate_tile' op tile columns (64) must equal the dest's last dim (128)}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i {transposed}
      : tensor<64x128xf32>, memref<?x?x?x128xf32>
  return
}

// -----

func.func @dot_lhs_transposed_shape(%a: tensor<64x128xbf16>,
                                    %b: tensor<128x64xbf16>,
                                    %c: tensor<64x64xf32>) {
  // lhsᵀ is 128x64: its contraction (64) is not the rhs's (128).
  // expected-error @+1 {{'attn.dot' op contraction dims differ: lhs has 64, rhs has 128}}
  %r = attn.dot %a, %b, %c {lhs_transposed}
      : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  return
}

// -----

// A paged block gathers whole rows of a [pages, heads, page rows, cols]
// source.
func.func @pages_cols(%m: memref<?x?x?x?xf32>, %t: memref<?x?xi32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op pages and cols do not combine (a paged block gathers whole rows)}}
  %0 = attn.load_tile %m[%i, %i, %i, %i] rows %i cols %i pages(%t : memref<?x?xi32>)
      : memref<?x?x?x?xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @pages_rank(%m: memref<?x?x16xbf16>, %t: memref<?x?xi32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op with pages, expected a [num_pages, heads, page rows, cols] source and a 2-d tile, got 'memref<?x?x16xbf16>' and 'tensor<16x16xbf16>'}}
  %0 = attn.load_tile %m[%i, %i] rows %i pages(%t : memref<?x?xi32>)
      : memref<?x?x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @pages_table(%m: memref<?x?x16x16xbf16>, %t: memref<?xi32>, %i: index) {
  // expected-error @+1 {{operand #5 must be 2D memref of 32-bit signless integer values, but got 'memref<?xi32>'}}
  %0 = attn.load_tile %m[%i, %i, %i] rows %i pages(%t : memref<?xi32>)
      : memref<?x?x16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

// Packed (position, head) rows are whole rows of one source.
func.func @group_pages(%m: memref<?x?x16x16xbf16>, %t: memref<?x?xi32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op group does not combine with pages (packed rows are (position, head) pairs of whole rows)}}
  %0 = attn.load_tile %m[%i, %i, %i] rows %i pages(%t : memref<?x?xi32>) group(%i)
      : memref<?x?x16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @group_cols(%m: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @+1 {{'attn.load_tile' op group does not combine with cols (packed rows are (position, head) pairs of whole rows)}}
  %0 = attn.load_tile %m[%i, %i, %i, %i] rows %i cols %i group(%i)
      : memref<?x?x?x?xf32> -> tensor<16x16xf32>
  return
}

// -----

// A head index comes before the row index.
func.func @group_one_index(%m: memref<?x16xbf16>, %t: tensor<16x16xbf16>, %i: index) {
  // expected-error @+1 {{'attn.store_tile' op with group, expected a head index and a row index last, got 1 indices}}
  attn.store_tile %t, %m[%i] rows %i group(%i) : tensor<16x16xbf16>, memref<?x16xbf16>
  return
}

// -----

// Packed query rows are the rows of a query-major tile.
func.func @group_mask_transposed(%s: tensor<64x64xf32>, %i: index) {
  // expected-error @+1 {{'attn.mask' op group and transposed do not combine (packed query rows are the rows of a query-major tile)}}
  %0 = attn.mask %s q(%i, %i) kv(%i, %i) group(%i) {causal, transposed} : tensor<64x64xf32>
  return
}
