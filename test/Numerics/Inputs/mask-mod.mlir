// A mask_mod without block lists (cpu-block-mask.mlir): a band of 40 keys
// each side whose width depends on the query head (40 + 8·h), from a mask
// region alone, not causal.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %i, %j : i32
    %a = math.absi %d : i32
    %c8 = arith.constant 8 : i32
    %c40 = arith.constant 40 : i32
    %h8 = arith.muli %h, %c8 : i32
    %w = arith.addi %h8, %c40 : i32
    %in = arith.cmpi sle, %a, %w : i32
    attn.yield %in : i1
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
