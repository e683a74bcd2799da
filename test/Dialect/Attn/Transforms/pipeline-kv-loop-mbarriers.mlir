// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=mbarriers=1 -verify-diagnostics | FileCheck %s --check-prefix=MB --implicit-check-not=attn.async_commit --implicit-check-not=attn.async_wait
// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop | FileCheck %s --check-prefix=AUTO
// RUN: not attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=mbarriers=2 2>&1 | FileCheck %s --check-prefix=BADMB
// RUN: not attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop="mbarriers=1 stages=1" 2>&1 | FileCheck %s --check-prefix=ONESLOT
// BADMB: pass option mbarriers must be -1 (heuristic), 0 or 1, got 2
// ONESLOT: unsupported: mbarriers=1 with stages=1 (per-slot barriers serve rings of two or more slots)

// The program of pipeline-kv-loop.mlir's @one_loop (mma.sync layouts, 4
// warps): copy groups by default (per-slot barriers are for wgmma programs
// of several warpgroups); forced with mbarriers=1.
// AUTO-LABEL: func.func @one_loop
// AUTO:         attn.async_commit
// AUTO-NOT:     attn.ring_wait
// Per-slot barriers: no copy groups and no program-wide waits anywhere (the
// RUN line's implicit CHECK-NOTs). Every fill of block b is preceded by
// ring_acquire of fill (b − lb)/S and followed by async_arrive; iteration j
// waits for its slot's fill before each read and releases the slot after
// the dot that reads it. Q signs its only fill and is waited for before the
// loop (after the prologue).
// MB-LABEL: func.func @one_loop
// MB:         scf.forall
// MB-NEXT:      %[[KR:.*]] = attn.alloc_ring
// MB-NEXT:      %[[VR:.*]] = attn.alloc_ring
// MB:           %[[QR:.*]] = attn.alloc_ring : !attn.ring<1
// MB:           attn.async_load_tile %{{.*}}, %[[QR]][%[[QS:.*]]] :
// MB-NEXT:      attn.async_arrive %[[QR]][%[[QS]]]
// MB:           scf.if
// MB:             attn.ring_acquire %[[KR]][%[[SL0:.*]]] fill %{{.*}} :
// MB-NEXT:        attn.async_load_tile %{{.*}}, %[[KR]][%[[SL0]]]
// MB-NEXT:        attn.async_arrive %[[KR]][%[[SL0]]]
// MB:             attn.ring_acquire %[[VR]][%[[SL0]]] fill
// MB-NEXT:        attn.async_load_tile %{{.*}}, %[[VR]][%[[SL0]]]
// MB-NEXT:        attn.async_arrive %[[VR]][%[[SL0]]]
// MB:           attn.ring_wait %[[QR]][%[[QS]]] fill %[[QS]]
// MB-NEXT:      scf.for %[[J:.*]] = %[[LB:[^ ]*]] to
// MB:             %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : index
// Block b's position is p = b − lb: slot p mod S, fill p div S.
// MB:             scf.if
// MB:               %[[POS:.*]] = arith.subi %[[NEXT]], %[[LB]] : index
// MB-NEXT:          %[[SLN:.*]] = arith.remui %[[POS]], %[[S:.*]] : index
// MB-NEXT:          %[[OFF:.*]] = arith.subi %[[NEXT]], %[[LB]] : index
// MB-NEXT:          %[[FILL:.*]] = arith.divui %[[OFF]], %[[S]] : index
// MB-NEXT:          attn.ring_acquire %[[KR]][%[[SLN]]] fill %[[FILL]]
// MB:             %[[JP:.*]] = arith.subi %[[J]], %[[LB]] : index
// MB-NEXT:        %[[SL:.*]] = arith.remui %[[JP]], %[[S]] : index
// MB:             attn.ring_wait %[[KR]][%[[SL]]] fill
// MB-NEXT:        %[[K:.*]] = attn.ring_slot %[[KR]][%[[SL]]]
// MB-NEXT:        attn.dot %{{.*}}, %[[K]]
// MB-NEXT:        attn.ring_release %[[KR]][%[[SL]]]
// MB:             attn.ring_wait %[[VR]][%[[SL]]] fill
// MB-NEXT:        %[[V:.*]] = attn.ring_slot %[[VR]][%[[SL]]]
// MB-NEXT:        attn.dot %{{.*}}, %[[V]], %{{.*}}
// MB-NEXT:        attn.ring_release %[[VR]][%[[SL]]]
// MB-NEXT:        scf.yield
// After the loop, each ring's fill count for a persistent program:
// max(ub − lb, 0) blocks (Q's: 1, after its arrival above).
// MB:           %[[CNT:.*]] = arith.subi %{{.*}}, %[[LB]] : index
// MB:           %[[CNT0:.*]] = arith.maxsi %[[CNT]], %{{.*}} : index
// MB-NEXT:      attn.ring_fills %{{.*}} count %[[CNT0]]
// MB:           attn.ring_fills

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @one_loop(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
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

// Two loops on one ring that do not continue each other: fill numbers
// cannot count from one base, so forced per-slot barriers are unsupported.
#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @unrelated_loops(%k: memref<?x?x?x128xbf16>, %q: tensor<128x128xbf16, #smem>,
                           %h: index, %lb1: index, %ub1: index, %lb2: index,
                           %ub2: index) -> tensor<128x32xf32, #mma> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
  // expected-error @+1 {{unsupported: per-slot barriers (mbarriers=1) where a key/value loop does not continue the previous one on its rings}}
  %r1 = scf.for %j = %lb1 to %ub1 step %c1 iter_args(%acc = %zero) -> (tensor<128x32xf32, #mma>) {
    %row = arith.muli %j, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %s = attn.dot %q, %t, %acc {rhs_transposed}
        : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
    scf.yield %s : tensor<128x32xf32, #mma>
  }
  %r2 = scf.for %j = %lb2 to %ub2 step %c1 iter_args(%acc = %r1) -> (tensor<128x32xf32, #mma>) {
    %row = arith.muli %j, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %s = attn.dot %q, %t, %acc {rhs_transposed}
        : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
    scf.yield %s : tensor<128x32xf32, #mma>
  }
  return %r2 : tensor<128x32xf32, #mma>
}
