// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=stages=0 | FileCheck %s

// stages=0: two slots, or eight where every ring tile is at most 4 KiB,
// three in a split_kv program whose tiles are at most 16 KiB.
// 16-row K and V blocks at D = 128 (bf16: 4 KiB, the key blocks of a
// paged cache with pages of 16 rows) keep too few bytes in flight with
// two slots: eight.
// CHECK-LABEL: func.func @small_tiles
// CHECK:         attn.alloc_ring : !attn.ring<8, tensor<16x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<8, tensor<16x128xbf16

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @small_tiles(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c16 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x16xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x16xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c16 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c16 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<16x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<16x128xbf16, #smem> -> tensor<128x16xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x16xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x16xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x16xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x16xf32, #mma>
      %p = math.exp2 %x : tensor<128x16xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x16xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x16xf32, #mma> to tensor<128x16xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<16x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x16xbf16, #mma>, tensor<16x128xbf16, #smem> -> tensor<128x128xf32, #mma>
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

// 32-row blocks (8 KiB): two.
// CHECK-LABEL: func.func @large_tiles
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @large_tiles(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
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
      %row = arith.muli %j, %c32 : index
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

// A split_kv program on wgmma (decoding: it streams K and V, and its time
// is the bytes in flight) with 64-row blocks (16 KiB): three slots.
// CHECK-LABEL: func.func @split_tiles
// CHECK:         attn.alloc_ring : !attn.ring<3, tensor<64x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<3, tensor<64x128xbf16

#mma = #attn.mma<warps = 8, version = 3>
#row = #attn.slice<#attn.mma<warps = 8, version = 3>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @split_tiles(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c64 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x64xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c64 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c64 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<64x128xbf16, #smem> -> tensor<128x64xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x64xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x64xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x64xf32, #mma>
      %p = math.exp2 %x : tensor<128x64xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x64xbf16, #mma>, tensor<64x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %ln, %an
          : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    }
    %lb = attn.broadcast %r#1 : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
    %out = arith.divf %r#2, %lb : tensor<128x128xf32, #mma>
    attn.store_tile %out, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  } {attn.program = "split_kv"}
  return
}


// -----

// The same split_kv program on mma.sync (sm_80: the third slot's addresses
// spill): two.
// CHECK-LABEL: func.func @split_mma_sync
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @split_mma_sync(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c64 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x64xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c64 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c64 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<64x128xbf16, #smem> -> tensor<128x64xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x64xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x64xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x64xf32, #mma>
      %p = math.exp2 %x : tensor<128x64xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x64xbf16, #mma>, tensor<64x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %ln, %an
          : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    }
    %lb = attn.broadcast %r#1 : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
    %out = arith.divf %r#2, %lb : tensor<128x128xf32, #mma>
    attn.store_tile %out, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  } {attn.program = "split_kv"}
  return
}


// -----

// The same tiles on wgmma in a forward program: two.
// CHECK-LABEL: func.func @forward_tiles
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16

#mma = #attn.mma<warps = 8, version = 3>
#row = #attn.slice<#attn.mma<warps = 8, version = 3>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @forward_tiles(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c64 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x64xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c64 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c64 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<64x128xbf16, #smem> -> tensor<128x64xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x64xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x64xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x64xf32, #mma>
      %p = math.exp2 %x : tensor<128x64xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x64xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<64x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x64xbf16, #mma>, tensor<64x128xbf16, #smem> -> tensor<128x128xf32, #mma>
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

// A split_kv program's 128-row blocks (32 KiB): two.
// CHECK-LABEL: func.func @split_large_tiles
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<128x128xbf16
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<128x128xbf16

#mma = #attn.mma<warps = 8, version = 3>
#row = #attn.slice<#attn.mma<warps = 8, version = 3>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @split_large_tiles(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                    %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %batch = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  %qblocks = arith.ceildivsi %nq, %c128 : index
  %kblocks = arith.ceildivsi %nk, %c128 : index
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c = arith.constant dense<0.127517432> : tensor<128x128xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    %r:3 = scf.for %j = %c0 to %kblocks step %c1
        iter_args(%m = %ninf, %l = %zero, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c128 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c128 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<128x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x128xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %mb = attn.broadcast %mn : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
      %d = arith.subf %s, %mb : tensor<128x128xf32, #mma>
      %x = arith.mulf %d, %c : tensor<128x128xf32, #mma>
      %p = math.exp2 %x : tensor<128x128xf32, #mma>
      %rs = attn.reduce sum %p : tensor<128x128xf32, #mma> -> tensor<128xf32, #row>
      %ln = arith.addf %l, %rs : tensor<128xf32, #row>
      %pb = arith.truncf %p : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x128xbf16, #mma>, tensor<128x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %ln, %an
          : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    }
    %lb = attn.broadcast %r#1 : tensor<128xf32, #row> -> tensor<128x128xf32, #mma>
    %out = arith.divf %r#2, %lb : tensor<128x128xf32, #mma>
    attn.store_tile %out, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  } {attn.program = "split_kv"}
  return
}

