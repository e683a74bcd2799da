// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The verifier rules of attn.block_lists (AttnOps.cpp, BlockListsOp::verify).
// Each input is valid but for the one rule it breaks.

func.func @counts_rank(%c: memref<1x1xi32>, %x: memref<1x1x?x?xi32>,
                       %n: index) {
  // expected-error @+1 {{block counts must have rank 3 [1|batch, 1|heads, query blocks], got rank 2}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<1x1xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @indices_type(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi64>,
                        %n: index) {
  // expected-error @+1 {{block indices element type must be i32, got 'i64'}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<1x1x?xi32>, memref<1x1x?x?xi64>
  return
}

// -----

func.func @full_disagree(%c: memref<1x1x8xi32>, %x: memref<1x1x8x?xi32>,
                         %fc: memref<1x2x8xi32>, %fx: memref<1x1x8x?xi32>,
                         %n: index) {
  // expected-error @+1 {{heads of block counts (dim 1 = 1) must equal heads of full block counts (dim 1 = 2)}}
  attn.block_lists %c, %x full(%fc, %fx : memref<1x2x8xi32>,
      memref<1x1x8x?xi32>) sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<1x1x8xi32>, memref<1x1x8x?xi32>
  return
}

// -----

func.func @mask_block(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                      %n: index) {
  // expected-error @+1 {{mask_block entries must be powers of two in [1, 1024], got 96}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } {mask_block = array<i64: 128, 96>} : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @causal_right(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                        %n: index) {
  // expected-error @+1 {{causal is window_right = 0: give one of causal and window_right}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } {causal, window_right = 4} : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @region_args(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                       %n: index) {
  // expected-error @+1 {{mask_mod takes (%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32)}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @yields_f32(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                      %n: index) {
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %f = arith.sitofp %i : i32 to f32
    // expected-error @+1 {{in mask_mod: must yield one i1 (whether the key is visible)}}
    attn.yield %f : f32
  } : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @reads_lists(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                       %n: index) {
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %z = arith.constant 0 : index
    // expected-error @+1 {{in mask_mod: reads the block lists, which it writes}}
    %v = memref.load %c[%z, %z, %z] : memref<1x1x?xi32>
    %t = arith.cmpi sle, %v, %i : i32
    attn.yield %t : i1
  } : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

func.func @no_region(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                     %n: index) {
  // expected-error @+1 {{expected '{' to begin a region}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod
      : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}
