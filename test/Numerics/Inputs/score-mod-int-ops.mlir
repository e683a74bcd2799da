// Every integer op, cast and comparison a score_mod body may hold, on the
// positions, the batch and head indices and a captured i32 table
// (cpu-score-mod-positions.mlir): the values stay small and the result is a
// bounded bias, so any op lowered wrongly moves the output. (fptoui takes
// |S|: a negative operand is undefined.)
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %t: memref<3x5xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %bi = arith.index_cast %b : i32 to index
    %hi = arith.index_cast %h : i32 to index
    %tv = memref.load %t[%bi, %hi] : memref<3x5xi32>
    %c3 = arith.constant 3 : i32
    %c7 = arith.constant 7 : i32
    %cm5 = arith.constant -5 : i32
    %c1 = arith.constant 1 : i32
    %d = arith.subi %i, %j : i32
    %e = arith.addi %d, %tv : i32
    %f = arith.muli %e, %c3 : i32
    %g = arith.divsi %f, %c7 : i32
    %r = arith.remsi %f, %c7 : i32
    %fl = arith.floordivsi %d, %c7 : i32
    %ce = arith.ceildivsi %d, %c7 : i32
    %u = arith.divui %i, %c3 : i32
    %ur = arith.remui %j, %c3 : i32
    %mx = arith.maxsi %g, %cm5 : i32
    %mn = arith.minsi %mx, %c7 : i32
    %mxu = arith.maxui %u, %ur : i32
    %mnu = arith.minui %mxu, %c7 : i32
    %an = arith.andi %i, %c7 : i32
    %or = arith.ori %j, %c1 : i32
    %xo = arith.xori %an, %or : i32
    %sh = arith.shli %c1, %c3 : i32
    %sr = arith.shrsi %d, %c3 : i32
    %su = arith.shrui %j, %c3 : i32
    %ab = math.absi %d : i32
    %w = arith.extsi %mn : i32 to i64
    %n = arith.trunci %w : i64 to i32
    %p = arith.extui %c3 : i32 to i64
    %z = arith.index_cast %p : i64 to index
    %zi = arith.index_cast %z : index to i32
    %sum1 = arith.addi %n, %r : i32
    %sum2 = arith.addi %sum1, %fl : i32
    %sum3 = arith.subi %sum2, %ce : i32
    %sum4 = arith.addi %sum3, %mnu : i32
    %sum5 = arith.addi %sum4, %xo : i32
    %sum6 = arith.addi %sum5, %sh : i32
    %sum7 = arith.addi %sum6, %sr : i32
    %sum8 = arith.subi %sum7, %su : i32
    %sum9 = arith.addi %sum8, %zi : i32
    %lt = arith.cmpi slt, %ab, %c7 : i32
    %uge = arith.cmpi uge, %j, %i : i32
    %both = arith.andi %lt, %uge : i1
    %fs = arith.sitofp %sum9 : i32 to f32
    %fu = arith.uitofp %mnu : i32 to f32
    %tenth = arith.constant 0.01 : f32
    %bias = arith.mulf %fs, %tenth : f32
    %bias2 = arith.mulf %fu, %tenth : f32
    %x = arith.addf %s, %bias : f32
    %y = arith.subf %x, %bias2 : f32
    %back = arith.fptosi %y : f32 to i32
    %sabs = math.absf %s : f32
    %backu = arith.fptoui %sabs : f32 to i32
    %bf = arith.sitofp %back : i32 to f32
    %buf = arith.uitofp %backu : i32 to f32
    // A score truncated to an integer jumps where f32 and the float64
    // reference round differently: kept a thousandth, so that one such
    // element stays far inside the tolerance.
    %milli = arith.constant 0.001 : f32
    %small = arith.mulf %bf, %milli : f32
    %small2 = arith.mulf %buf, %milli : f32
    %z1 = arith.addf %y, %small : f32
    %z2 = arith.addf %z1, %small2 : f32
    %half = arith.constant 0.5 : f32
    %gt = arith.cmpf ogt, %z2, %half : f32
    %sel = arith.select %gt, %z2, %y : f32
    %fin = arith.select %both, %sel, %x : f32
    %wide = arith.extf %fin : f32 to f64
    %narrow = arith.truncf %wide : f64 to f32
    attn.yield %narrow : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
