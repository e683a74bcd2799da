// RUN: attn-opt %s -split-input-file -attn-tile-attention -attn-fuse-online-softmax -cse \
// RUN:   | FileCheck %s --implicit-check-not=attn.softmax_pass

// A hand-written naive form, one segment: the three tagged passes become one
// loop carrying (m, l, A); the scale folds into exp2 with
// c = 0.25 · log2(e) = 0.360673755; the normalisation O = A / l happens once
// after the loop; LSE keeps using the final (m, l). No naive pass is left
// anywhere (the RUN line's implicit CHECK-NOT).

// CHECK-LABEL: func.func @one_segment
// CHECK-DAG:     %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<16xf32>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-DAG:     %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK:         %[[R:.*]]:3 = scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %[[NINF]], %[[L:.*]] = %[[ZERO]], %[[A:.*]] = %[[ACC0]])
// CHECK:           %[[K:.*]] = attn.load_tile %arg1
// CHECK:           %[[S:.*]] = attn.dot %arg0, %[[K]], %{{.*}} {rhs_transposed}
// CHECK:           %[[RM:.*]] = attn.reduce max %[[S]]
// CHECK:           %[[MN:.*]] = arith.maximumf %[[M]], %[[RM]]
// CHECK:           %[[NOKEY:.*]] = arith.cmpf oeq, %[[MN]], %[[NINF]]
// CHECK:           %[[MS:.*]] = arith.select %[[NOKEY]], %[[ZERO]], %[[MN]]
// P = exp2((S - m')·c) and α = exp2((m - m')·c): subtract first, then scale
// (S·c alone overflows f32 for a large scale).
// CHECK:           %[[MSB:.*]] = attn.broadcast %[[MS]]
// CHECK:           %[[SD:.*]] = arith.subf %[[S]], %[[MSB]]
// CHECK:           %[[CS:.*]] = arith.constant dense<0.360673755> : tensor<16x16xf32>
// CHECK:           %[[X:.*]] = arith.mulf %[[SD]], %[[CS]]
// CHECK:           %[[P:.*]] = math.exp2 %[[X]]
// CHECK:           %[[MD:.*]] = arith.subf %[[M]], %[[MS]]
// CHECK:           %[[C:.*]] = arith.constant dense<0.360673755> : tensor<16xf32>
// CHECK:           %[[AX:.*]] = arith.mulf %[[MD]], %[[C]]
// CHECK:           %[[ALPHA:.*]] = math.exp2 %[[AX]]
// CHECK:           %[[RS:.*]] = attn.reduce sum %[[P]]
// CHECK:           %[[LA:.*]] = arith.mulf %[[ALPHA]], %[[L]]
// CHECK:           %[[LN:.*]] = arith.addf %[[LA]], %[[RS]]
// CHECK:           %[[AB:.*]] = attn.broadcast %[[ALPHA]]
// CHECK:           %[[AS:.*]] = arith.mulf %[[AB]], %[[A]]
// CHECK:           %[[PT:.*]] = arith.truncf %[[P]] : tensor<16x16xf32> to tensor<16x16xbf16>
// CHECK:           %[[V:.*]] = attn.load_tile %arg2
// CHECK:           %[[AN:.*]] = attn.dot %[[PT]], %[[V]], %[[AS]]
// CHECK:           scf.yield %[[MN]], %[[LN]], %[[AN]]
// CHECK:         } {attn.online_softmax, attn.softmax_scale = 2.500000e-01 : f32}
// CHECK:         %[[LZ:.*]] = arith.cmpf oeq, %[[R]]#1, %[[ZERO]]
// CHECK:         %[[LS:.*]] = arith.select %[[LZ]], %{{.*}}, %[[R]]#1
// CHECK:         %[[LB:.*]] = attn.broadcast %[[LS]] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK:         %[[O:.*]] = arith.divf %[[R]]#2, %[[LB]]
// CHECK:         attn.store_tile %[[O]], %arg3
// CHECK:         math.log %[[R]]#1
func.func @one_segment(%q: tensor<16x16xbf16>, %key: memref<?x16xbf16>,
                       %value: memref<?x16xbf16>, %out: memref<?x16xbf16>,
                       %lse: memref<?xf32>, %nk: index, %nblocks: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zero_s = arith.constant dense<0.0> : tensor<16x16xf32>
  %scale = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %nblocks step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xbf16> -> tensor<16x16xbf16>
    %s = attn.dot %q, %k, %zero_s {rhs_transposed} : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %l = scf.for %kb = %c0 to %nblocks step %c1 iter_args(%li = %zero) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xbf16> -> tensor<16x16xbf16>
    %s = attn.dot %q, %k, %zero_s {rhs_transposed} : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %scale : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %acc = scf.for %kb = %c0 to %nblocks step %c1 iter_args(%ai = %acc0) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xbf16> -> tensor<16x16xbf16>
    %s = attn.dot %q, %k, %zero_s {rhs_transposed} : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %scale : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %pt = arith.truncf %p : tensor<16x16xf32> to tensor<16x16xbf16>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xbf16> -> tensor<16x16xbf16>
    %an = attn.dot %pt, %v, %ai : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  %c = arith.constant 16 : index
  attn.store_tile %acc, %out[%c0] rows %c : tensor<16x16xf32>, memref<?x16xbf16>
  %log = math.log %l : tensor<16xf32>
  attn.store_tile %log, %lse[%c0] rows %c : tensor<16xf32>, memref<?xf32>
  return
}

// -----

// The tiling pass's output (two segments per pass) fuses into two chained
// online loops: the masked tail continues from the unmasked head's (m, l, A).

// CHECK-LABEL: func.func @from_tiling
// CHECK:         scf.forall
// CHECK:           %[[H:.*]]:3 = scf.for {{.*}} iter_args
// CHECK-NOT:         attn.mask
// CHECK:           } {attn.online_softmax
// CHECK:           %[[T:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[H]]#0, %{{.*}} = %[[H]]#1, %{{.*}} = %[[H]]#2)
// CHECK:             attn.mask {{.*}} {causal}
// CHECK:           } {attn.online_softmax
// CHECK:           arith.divf %[[T]]#2
// CHECK-NOT:       scf.for
// CHECK:         }
func.func @from_tiling(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>,
                       %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
  attn.attention %q, %k, %v into %o {causal, block_q = 32 : i64, block_kv = 32 : i64}
      : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
        memref<?x?x?x64xf16>
  return
}

// -----

// Loops without the tags are left alone.

// CHECK-LABEL: func.func @untagged
// CHECK:         scf.for
// CHECK-NOT:     attn.online_softmax
func.func @untagged(%n: index, %x: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<16xf32> {
    %b = arith.addf %a, %a : tensor<16xf32>
    scf.yield %b : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
