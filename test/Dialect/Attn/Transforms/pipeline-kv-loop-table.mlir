// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop | FileCheck %s

// A block's rows from a table (a paged KV cache's block table): the scalar
// load of a memref nothing writes is replayed for the block the ring
// prefetches, so the loop is pipelined like any other.
// CHECK-LABEL: func.func @table
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16
// CHECK:         scf.for
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK:           attn.async_load_tile

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @table(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                 %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                 %t: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c32 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x32xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %e = memref.load %t[%j] : memref<?xi32>
      %pg = arith.index_cast %e : i32 to index
      %row = arith.muli %pg, %c32 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c32 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x32xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x32xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x32xf32, #mma>
      %p = math.exp2 %x : tensor<128x32xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x32xf32, #mma> to tensor<128x32xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x32xbf16, #mma>, tensor<32x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %ln, %an
          : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    }
    %lb = attn.broadcast %r#1 : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
    %out = arith.divf %r#2, %lb : tensor<128x128xf32, #mma>
    attn.store_tile %out, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  }
  return
}


// -----

// The same table written by the program: a later block's entry may not be
// the value read now, so the loop is left alone (no ring).
// CHECK-LABEL: func.func @written_table
// CHECK-NOT:     attn.alloc_ring
// CHECK:         attn.load_tile
// CHECK-NOT:     attn.async_load_tile

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @written_table(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                 %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                 %t: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c32 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x32xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %c0i = arith.constant 0 : i32
    memref.store %c0i, %t[%c0] : memref<?xi32>
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %e = memref.load %t[%j] : memref<?xi32>
      %pg = arith.index_cast %e : i32 to index
      %row = arith.muli %pg, %c32 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c32 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x32xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x32xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x32xf32, #mma>
      %p = math.exp2 %x : tensor<128x32xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x32xf32, #mma> to tensor<128x32xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x32xbf16, #mma>, tensor<32x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %ln, %an
          : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    }
    %lb = attn.broadcast %r#1 : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
    %out = arith.divf %r#2, %lb : tensor<128x128xf32, #mma>
    attn.store_tile %out, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  }
  return
}

