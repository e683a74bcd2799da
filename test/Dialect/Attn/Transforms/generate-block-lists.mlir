// RUN: attn-opt %s -split-input-file --attn-generate-block-lists -verify-diagnostics | FileCheck %s

// attn-generate-block-lists writes an attn.block_lists before each
// attn.attention that has block_mask(...) and a mask_mod: the same lists,
// region, causal mask, window and mask blocks, sized by Q's B, Hq, Nq and
// K's Nk.

// CHECK-LABEL: func.func @documents
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x?x128xbf16>, %[[K:[^:]*]]: memref<?x?x?x128xbf16>
// CHECK-DAG: %[[B:.*]] = memref.dim %[[Q]], %c0
// CHECK-DAG: %[[H:.*]] = memref.dim %[[Q]], %c1
// CHECK-DAG: %[[NQ:.*]] = memref.dim %[[Q]], %c2
// CHECK-DAG: %[[NK:.*]] = memref.dim %[[K]], %c2
// CHECK: attn.block_lists %arg4, %arg5 full(%arg6, %arg7 : memref<?x1x?xi32>, memref<?x1x?x?xi32>) sizes(%[[B]], %[[H]], %[[NQ]], %[[NK]]) mask_mod {
// CHECK: memref.load %arg8
// CHECK: attn.yield %{{.*}} : i1
// CHECK: } {causal, mask_block = array<i64: 128, 128>, window_left = 1024 : i64}
// CHECK-NEXT: attn.attention
// CHECK-SAME: block_mask(%arg4, %arg5
// CHECK-SAME: full_blocks(%arg6, %arg7
func.func @documents(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %c: memref<?x1x?xi32>, %x: memref<?x1x?x?xi32>,
                     %fc: memref<?x1x?xi32>, %fx: memref<?x1x?x?xi32>,
                     %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%c, %x : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%fc, %fx : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, window_left = 1024, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Lists without a mask_mod are the caller's: left alone.

// CHECK-LABEL: func.func @given
// CHECK-NOT: attn.block_lists
// CHECK: attn.attention
func.func @given(%q: memref<?x8x2048x64xbf16>, %c: memref<1x1x16xi32>,
                 %x: memref<1x1x16x16xi32>) {
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x16xi32>, memref<1x1x16x16xi32>)
      : memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>,
        memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>
  return
}

// -----

// Lists of 8 entries cannot hold 2048 keys in blocks of 128.

func.func @short_lists(%q: memref<?x8x2048x64xbf16>, %c: memref<1x1x16xi32>,
                       %x: memref<1x1x16x8xi32>) {
  // expected-error @+1 {{block lists of 8 entries cannot hold the 16 key blocks of 2048 keys in blocks of 128 (attn-generate-block-lists lists every visible block)}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x16xi32>, memref<1x1x16x8xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>,
      memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>
  return
}

// -----

// A mask_mod that reads the lists cannot build them.

func.func @reads_lists(%q: memref<?x8x2048x64xbf16>, %c: memref<1x1x16xi32>,
                       %x: memref<1x1x16x16xi32>) {
  // expected-error @+1 {{unsupported: its mask_mod reads the block lists, which attn-generate-block-lists writes from it}}
  attn.attention %q, %q, %q into %q
      block_mask(%c, %x : memref<1x1x16xi32>, memref<1x1x16x16xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %z = arith.constant 0 : index
    %n = memref.load %c[%z, %z, %z] : memref<1x1x16xi32>
    %t = arith.cmpi slt, %j, %n : i32
    attn.yield %t : i1
  } : memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>,
      memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>
  return
}
