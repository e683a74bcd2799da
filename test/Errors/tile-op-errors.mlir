// RUN: attn-opt %s -split-input-file -verify-diagnostics

// Malformed tile-level ops are rejected by their verifiers with a located
// diagnostic.

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

func.func @dot_i8(%a: tensor<4x8xi8>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{lhs and rhs must share an f32, f16 or bf16 element type, got 'i8' and 'i8'}}
  %r = attn.dot %a, %a, %c {rhs_transposed} : tensor<4x8xi8>, tensor<4x8xi8> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @broadcast_element_type(%a: tensor<4xf32>) -> tensor<4x8xf16> {
  // expected-error @below {{'attn.broadcast' op result must be a static 2-d tile with 4 rows of 'f32', got 'tensor<4x8xf16>'}}
  %r = attn.broadcast %a : tensor<4xf32> -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// Zero-sized tiles hold nothing and would lower to out-of-bounds slices
// (see also bug-load-tile-zero-rows.mlir).

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

func.func @dot_zero_contraction(%a: tensor<4x0xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{'attn.dot' op lhs must have non-zero dims, got 'tensor<4x0xf32>'}}
  %r = attn.dot %a, %a, %c {rhs_transposed} : tensor<4x0xf32>, tensor<4x0xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
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
