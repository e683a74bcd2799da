// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop | FileCheck %s
// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=stages=3 | FileCheck %s --check-prefix=S3
// RUN: attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=stages=1 | FileCheck %s --check-prefix=S1
// RUN: not attn-opt %s -split-input-file -allow-unregistered-dialect -attn-pipeline-kv-loop=stages=9 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: pass option stages must be 0 (auto) or in [1, 8], got 9

// Laid-out tile programs as attn-assign-layouts leaves them (the online
// softmax is abridged: the pass only looks at the loads and their indices).

// One key/value loop: K and V each get a ring at the top of the grid body.
// The prologue starts block lb (S = 2) or blocks lb, lb + 1 (S = 3), each
// under its own guard with the commit outside it; iteration j waits with
// S − 2 groups pending, starts block j + S − 1 into slot (j + S − 1) mod S
// and reads block j from slot j mod S.

// CHECK-LABEL: func.func @one_loop
// CHECK-SAME:      (%[[QM:[^:]*]]: memref<?x?x?x128xbf16>, %[[KM:[^:]*]]: memref<?x?x?x128xbf16>, %[[VM:[^:]*]]: memref<?x?x?x128xbf16>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[NK:.*]] = memref.dim %[[KM]], %{{.*}}
// CHECK:         %[[KB:.*]] = arith.ceildivsi %[[NK]], %[[C32]]
// CHECK:         scf.forall (%[[B:.*]], %[[H:.*]], %[[QB:.*]]) in
// CHECK-NEXT:      %[[KR:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NEXT:      %[[VR:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NOT:       attn.alloc_ring : !attn.ring<2
// The Q load (outside the loop, read only inside it) becomes a one-slot
// copy in its own group, committed before the prologue's.
// CHECK:           %[[QR:.*]] = attn.alloc_ring : !attn.ring<1, tensor<
// CHECK-NEXT:      %[[QS:.*]] = arith.constant 0 : index
// CHECK-NEXT:      attn.async_load_tile %[[QM]]{{.*}}, %[[QR]][%[[QS]]]
// CHECK-NEXT:      attn.async_commit
// CHECK-NEXT:      %[[Q:.*]] = attn.ring_slot %[[QR]][%[[QS]]]
// CHECK-NEXT:      %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[IN0:.*]] = arith.cmpi slt, %[[C0]], %[[KB]] : index
// CHECK-NEXT:      scf.if %[[IN0]] {
// CHECK-NEXT:        %[[ROW0:.*]] = arith.muli %[[C0]], %[[C32]] : index
// CHECK-NEXT:        %[[LEFT0:.*]] = arith.subi %[[NK]], %[[ROW0]] : index
// CHECK-NEXT:        %[[N0:.*]] = arith.minsi %[[LEFT0]], %[[C32]] : index
// CHECK-NEXT:        %[[SL0:.*]] = arith.remui %[[C0]], %[[S]] : index
// CHECK-NEXT:        attn.async_load_tile %[[KM]][%[[B]], %[[H]], %[[ROW0]]] rows %[[N0]], %[[KR]][%[[SL0]]]
// CHECK-NEXT:        attn.async_load_tile %[[VM]][%[[B]], %[[H]], %[[ROW0]]] rows %[[N0]], %[[VR]][%[[SL0]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      attn.async_commit
// CHECK-NEXT:      %[[AHEAD:.*]] = arith.constant 1 : index
// CHECK-NEXT:      scf.for %[[J:.*]] = %[[C0]] to %[[KB]] step
// CHECK-NEXT:        attn.async_wait 0
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[J]], %[[AHEAD]] : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[KB]] : index
// CHECK-NEXT:        scf.if %[[IN]] {
// CHECK-NEXT:          %[[ROWN:.*]] = arith.muli %[[NEXT]], %[[C32]] : index
// CHECK-NEXT:          %[[LEFTN:.*]] = arith.subi %[[NK]], %[[ROWN]] : index
// CHECK-NEXT:          %[[NN:.*]] = arith.minsi %[[LEFTN]], %[[C32]] : index
// CHECK-NEXT:          %[[SLN:.*]] = arith.remui %[[NEXT]], %[[S]] : index
// CHECK-NEXT:          attn.async_load_tile %[[KM]][%[[B]], %[[H]], %[[ROWN]]] rows %[[NN]], %[[KR]][%[[SLN]]]
// CHECK-NEXT:          attn.async_load_tile %[[VM]][%[[B]], %[[H]], %[[ROWN]]] rows %[[NN]], %[[VR]][%[[SLN]]]
// CHECK-NEXT:        }
// CHECK-NEXT:        attn.async_commit
// CHECK-NEXT:        %[[SL:.*]] = arith.remui %[[J]], %[[S]] : index
// CHECK-NOT:         attn.load_tile
// CHECK:             %[[K:.*]] = attn.ring_slot %[[KR]][%[[SL]]] : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NEXT:        attn.dot %[[Q]], %[[K]]
// CHECK-NOT:         attn.load_tile
// CHECK:             %[[V:.*]] = attn.ring_slot %[[VR]][%[[SL]]]
// CHECK-NEXT:        attn.dot %{{.*}}, %[[V]], %{{.*}}
// CHECK-NEXT:        scf.yield

// S3-LABEL: func.func @one_loop
// S3:         scf.forall
// S3-NEXT:      %[[KR:.*]] = attn.alloc_ring : !attn.ring<3, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// S3-NEXT:      %[[VR:.*]] = attn.alloc_ring : !attn.ring<3, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// S3:           %[[S:.*]] = arith.constant 3 : index
// S3-NEXT:      %[[IN0:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : index
// S3-NEXT:      scf.if %[[IN0]] {
// S3:             %[[SL0:.*]] = arith.remui %[[LB]], %[[S]] : index
// S3-NEXT:        attn.async_load_tile %{{.*}}, %[[KR]][%[[SL0]]]
// S3-NEXT:        attn.async_load_tile %{{.*}}, %[[VR]][%[[SL0]]]
// S3-NEXT:      }
// S3-NEXT:      attn.async_commit
// S3-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// S3-NEXT:      %[[B1:.*]] = arith.addi %[[LB]], %[[C1]] : index
// S3-NEXT:      %[[IN1:.*]] = arith.cmpi slt, %[[B1]], %[[UB]] : index
// S3-NEXT:      scf.if %[[IN1]] {
// S3-NEXT:        %[[ROW1:.*]] = arith.muli %[[B1]], %{{.*}} : index
// S3:             %[[SL1:.*]] = arith.remui %[[B1]], %[[S]] : index
// S3-NEXT:        attn.async_load_tile %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW1]]] rows %{{.*}}, %[[KR]][%[[SL1]]]
// S3-NEXT:        attn.async_load_tile %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW1]]] rows %{{.*}}, %[[VR]][%[[SL1]]]
// S3-NEXT:      }
// S3-NEXT:      attn.async_commit
// S3-NEXT:      %[[AHEAD:.*]] = arith.constant 2 : index
// S3-NEXT:      scf.for %[[J:.*]] = %[[LB]] to %[[UB]] step
// S3-NEXT:        attn.async_wait 1
// S3-NEXT:        %[[NEXT:.*]] = arith.addi %[[J]], %[[AHEAD]] : index
// S3-NEXT:        %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : index
// S3-NEXT:        scf.if %[[IN]] {
// S3:               %[[SLN:.*]] = arith.remui %[[NEXT]], %[[S]] : index
// S3-NEXT:          attn.async_load_tile %{{.*}}, %[[KR]][%[[SLN]]]
// S3-NEXT:          attn.async_load_tile %{{.*}}, %[[VR]][%[[SLN]]]
// S3-NEXT:        }
// S3-NEXT:        attn.async_commit
// S3-NEXT:        %[[SL:.*]] = arith.remui %[[J]], %[[S]] : index
// S3:             attn.ring_slot %[[KR]][%[[SL]]] : !attn.ring<3,
// S3:             attn.ring_slot %[[VR]][%[[SL]]] : !attn.ring<3,
// S3:           scf.yield

// S = 1: one slot per load. K is read by S = Q·Kᵀ, V by O += P·V: two
// phases. The prologue starts K's block lb; the top of iteration j waits
// for it (with Q) and starts V's block j; after the last read of K (the
// dot) the second wait makes V's block j visible and lets K's slot take
// block j + 1. Every wait leaves no group pending.
// S1-LABEL: func.func @one_loop
// S1-SAME:      (%[[QM:[^:]*]]: memref<?x?x?x128xbf16>, %[[KM:[^:]*]]: memref<?x?x?x128xbf16>, %[[VM:[^:]*]]: memref<?x?x?x128xbf16>
// S1:           %[[NK:.*]] = memref.dim %[[KM]], %{{.*}}
// S1:           %[[KB:.*]] = arith.ceildivsi %[[NK]], %{{.*}}
// S1:           scf.forall
// S1-NEXT:        %[[KR:.*]] = attn.alloc_ring : !attn.ring<1, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// S1-NEXT:        %[[VR:.*]] = attn.alloc_ring : !attn.ring<1, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// S1:             attn.async_load_tile %[[QM]]
// S1-NEXT:        attn.async_commit
// S1-NEXT:        %[[Q:.*]] = attn.ring_slot
// S1-NEXT:        %[[IN0:.*]] = arith.cmpi slt, %[[LB:.*]], %[[KB]] : index
// S1-NEXT:        scf.if %[[IN0]] {
// S1:               attn.async_load_tile %[[KM]]{{.*}}, %[[KR]][%{{.*}}]
// S1-NEXT:        }
// S1-NEXT:        attn.async_commit
// S1-NEXT:        %[[C1:.*]] = arith.constant 1 : index
// S1-NEXT:        scf.for %[[J:.*]] = %[[LB]] to %[[KB]] step
// S1-NEXT:          attn.async_wait 0
// S1-NEXT:          %[[ROW:.*]] = arith.muli %[[J]], %{{.*}} : index
// S1-NEXT:          arith.subi
// S1-NEXT:          %[[N:.*]] = arith.minsi
// S1-NEXT:          %[[Z:.*]] = arith.constant 0 : index
// S1-NEXT:          attn.async_load_tile %[[VM]][%{{.*}}, %{{.*}}, %[[ROW]]] rows %[[N]], %[[VR]][%[[Z]]]
// S1-NEXT:          attn.async_commit
// S1-NEXT:          %[[Z1:.*]] = arith.constant 0 : index
// S1-NEXT:          %[[K:.*]] = attn.ring_slot %[[KR]][%[[Z1]]]
// S1-NOT:           attn.async_wait
// S1:               %[[S:.*]] = attn.dot %[[Q]], %[[K]]
// S1-NEXT:          attn.async_wait 0
// S1-NEXT:          %[[NEXT:.*]] = arith.addi %[[J]], %[[C1]] : index
// S1-NEXT:          %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[KB]] : index
// S1-NEXT:          scf.if %[[IN]] {
// S1-NEXT:            %[[ROWN:.*]] = arith.muli %[[NEXT]], %{{.*}} : index
// S1:                 attn.async_load_tile %[[KM]][%{{.*}}, %{{.*}}, %[[ROWN]]] rows %{{.*}}, %[[KR]][%{{.*}}]
// S1-NEXT:          }
// S1-NEXT:          attn.async_commit
// S1-NEXT:          %[[Z2:.*]] = arith.constant 0 : index
// S1-NEXT:          %[[V:.*]] = attn.ring_slot %[[VR]][%[[Z2]]]
// S1-NOT:           attn.async_wait
// S1-NOT:           attn.load_tile
// S1:               attn.dot %{{.*}}, %[[V]], %{{.*}}
// S1-NEXT:          scf.yield

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

// The causal form: an unmasked loop [0, mid) and a masked loop [mid, end)
// that continues from its results. Both use the same two rings. The masked
// loop's prologue fills slot mid mod S without a barrier (the only slot a
// thread may still read is (mid − 1) mod S) and its mask still uses the
// original row computation.

// CHECK-LABEL: func.func @chained_loops
// CHECK:         scf.forall
// CHECK-NEXT:      %[[KR:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NEXT:      %[[VR:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NOT:       attn.alloc_ring : !attn.ring<2
// CHECK-NOT:       attn.async_wait
// CHECK:           %[[END:.*]] = arith.ceildivsi
// CHECK:           %[[MID:.*]] = arith.minsi %{{.*}}, %[[END]] : index
// CHECK-NOT:       attn.async_wait
// CHECK:           arith.cmpi slt, %[[C0:.*]], %[[MID]] : index
// CHECK:           attn.async_load_tile %{{.*}}, %[[KR]]
// CHECK:           attn.async_load_tile %{{.*}}, %[[VR]]
// CHECK:           attn.async_commit
// CHECK:           %[[R1:.*]]:2 = scf.for %[[J1:.*]] = %[[C0]] to %[[MID]]
// CHECK-NEXT:        attn.async_wait 0
// CHECK:             %[[SL1:.*]] = arith.remui %[[J1]], %{{.*}} : index
// CHECK:             attn.ring_slot %[[KR]][%[[SL1]]]
// CHECK:             attn.ring_slot %[[VR]][%[[SL1]]]
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[MID]], %[[END]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK:             %[[SL0:.*]] = arith.remui %[[MID]], %[[S]] : index
// CHECK-NEXT:        attn.async_load_tile %{{.*}}, %[[KR]][%[[SL0]]]
// CHECK-NEXT:        attn.async_load_tile %{{.*}}, %[[VR]][%[[SL0]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      attn.async_commit
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      scf.for %[[J2:.*]] = %[[MID]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1)
// CHECK-NEXT:        attn.async_wait 0
// CHECK:             attn.async_commit
// CHECK-NEXT:        %[[SL2:.*]] = arith.remui %[[J2]], %[[S]] : index
// CHECK-NEXT:        %[[ROW2:.*]] = arith.muli %[[J2]], %{{.*}} : index
// CHECK-NEXT:        arith.subi
// CHECK-NEXT:        arith.minsi
// CHECK-NEXT:        %[[K2:.*]] = attn.ring_slot %[[KR]][%[[SL2]]]
// CHECK-NEXT:        %[[S2:.*]] = attn.dot %{{.*}}, %[[K2]]
// CHECK-NEXT:        attn.mask %[[S2]] q(%{{.*}}, %{{.*}}) kv(%[[ROW2]], %{{.*}}) {causal}
// CHECK:             attn.ring_slot %[[VR]][%[[SL2]]]
// CHECK-NOT:       attn.load_tile
// CHECK:           attn.store_tile

// S3-LABEL: func.func @chained_loops
// S3:           scf.for
// S3:             attn.async_wait 1
// S3:           scf.yield
// S3-NOT:       attn.async_wait
// S3:           %[[S:.*]] = arith.constant 3 : index
// S3-NEXT:      arith.cmpi slt, %[[MID:.*]], %[[END:.*]] : index
// S3-NEXT:      scf.if
// S3:             arith.remui %[[MID]], %[[S]] : index
// S3:           attn.async_commit
// S3-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// S3-NEXT:      %[[B1:.*]] = arith.addi %[[MID]], %[[C1]] : index
// S3-NEXT:      arith.cmpi slt, %[[B1]], %[[END]] : index
// S3-NEXT:      scf.if
// S3:             arith.remui %[[B1]], %[[S]] : index
// S3:           attn.async_commit
// S3-NEXT:      arith.constant 2 : index
// S3-NEXT:      scf.for %{{.*}} = %[[MID]] to %[[END]]
// S3-NEXT:        attn.async_wait 1

// S = 1: when the unmasked loop ends, only V's slot (its last phase) may
// still be read, so the masked loop's prologue refills K's slot with no
// wait before it.
// S1-LABEL: func.func @chained_loops
// S1:           scf.forall
// S1-NEXT:        %[[KR:.*]] = attn.alloc_ring : !attn.ring<1,
// S1-NEXT:        %[[VR:.*]] = attn.alloc_ring : !attn.ring<1,
// S1:             scf.for
// S1-NEXT:          attn.async_wait 0
// S1:               attn.async_load_tile %{{.*}}, %[[VR]]
// S1:               attn.async_wait 0
// S1:               attn.async_load_tile %{{.*}}, %[[KR]]
// S1:               scf.yield
// S1-NEXT:        }
// S1-NOT:         attn.async_wait
// S1:             scf.if
// S1-NEXT:          arith.muli
// S1:               attn.async_load_tile %{{.*}}, %[[KR]]
// S1-NEXT:        }
// S1-NEXT:        attn.async_commit
// S1-NEXT:        arith.constant 1 : index
// S1-NEXT:        scf.for
// S1-NEXT:          attn.async_wait 0
// S1:               attn.async_load_tile %{{.*}}, %[[VR]]
// S1:               attn.ring_slot %[[KR]]
// S1:               attn.async_wait 0
// S1:               attn.ring_slot %[[VR]]
// S1-NEXT:          attn.mask
// S1-NOT:         attn.load_tile
// S1:             attn.store_tile

#mma = #attn.mma<warps = 4>
#row = #attn.slice<#attn.mma<warps = 4>>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @chained_loops(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
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
  scf.forall (%b, %h, %qb) in (%batch, %heads, %qblocks) {
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %s0 = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
    %qrow = arith.muli %qb, %c128 : index
    %qleft = arith.subi %nq, %qrow : index
    %qn = arith.minsi %qleft, %c128 : index
    %qt = attn.load_tile %q[%b, %h, %qrow] rows %qn
        : memref<?x?x?x128xbf16> -> tensor<128x128xbf16, #smem>
    // Keys up to the diagonal: end = ceil(min(nk, qrow + qn) / 32); the
    // blocks entirely below the diagonal: mid = min(floor((qrow + 1) / 32), end).
    %qend = arith.addi %qrow, %qn : index
    %kend = arith.minsi %nk, %qend : index
    %end = arith.ceildivsi %kend, %c32 : index
    %q1 = arith.addi %qrow, %c1 : index
    %full = arith.floordivsi %q1, %c32 : index
    %mid = arith.minsi %full, %end : index
    %r1:2 = scf.for %j = %c0 to %mid step %c1 iter_args(%m = %ninf, %acc = %acc0)
        -> (tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c32 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c32 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
      %rm = attn.reduce max %s : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %pb = arith.truncf %s : tensor<128x32xf32, #mma> to tensor<128x32xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x32xbf16, #mma>, tensor<32x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %an : tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    } {attn.online_softmax}
    %r2:2 = scf.for %j = %mid to %end step %c1 iter_args(%m = %r1#0, %acc = %r1#1)
        -> (tensor<128xf32, #row>, tensor<128x128xf32, #mma>) {
      %row = arith.muli %j, %c32 : index
      %left = arith.subi %nk, %row : index
      %n = arith.minsi %left, %c32 : index
      %kt = attn.load_tile %k[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %s = attn.dot %qt, %kt, %s0 {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
      %sm = attn.mask %s q(%qrow, %nq) kv(%row, %nk) {causal} : tensor<128x32xf32, #mma>
      %rm = attn.reduce max %sm : tensor<128x32xf32, #mma> -> tensor<128xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<128xf32, #row>
      %pb = arith.truncf %sm : tensor<128x32xf32, #mma> to tensor<128x32xbf16, #mma>
      %vt = attn.load_tile %v[%b, %h, %row] rows %n
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %an = attn.dot %pb, %vt, %acc
          : tensor<128x32xbf16, #mma>, tensor<32x128xbf16, #smem> -> tensor<128x128xf32, #mma>
      scf.yield %mn, %an : tensor<128xf32, #row>, tensor<128x128xf32, #mma>
    } {attn.online_softmax}
    attn.store_tile %r2#1, %o[%b, %h, %qrow] rows %qn
        : tensor<128x128xf32, #mma>, memref<?x?x?x128xbf16>
  }
  return
}

// -----

// No shared-memory load in the loop (a register-tile load and a load without
// a layout): unchanged.

// CHECK-LABEL: func.func @no_shared_loads
// CHECK-NOT:     attn.alloc_ring
// CHECK:         scf.for
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      attn.load_tile %arg0{{.*}} -> tensor<128x32xf32, #attn.mma<warps = 4>>
// CHECK-NEXT:      attn.load_tile %arg1{{.*}} -> tensor<32x128xbf16>
// CHECK-NOT:     attn.async
// CHECK-NOT:     attn.ring_slot

// S3-LABEL: func.func @no_shared_loads
// S3-NOT:      attn.alloc_ring
// S3-NOT:      attn.async

#mma = #attn.mma<warps = 4>
func.func @no_shared_loads(%bias: memref<?x?x32xf32>, %k: memref<?x?x128xbf16>,
                           %nb: index) -> tensor<128x32xf32, #mma> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
  %r = scf.for %j = %c0 to %nb step %c1 iter_args(%acc = %zero) -> (tensor<128x32xf32, #mma>) {
    %row = arith.muli %j, %c128 : index
    %t = attn.load_tile %bias[%c0, %row] rows %c128
        : memref<?x?x32xf32> -> tensor<128x32xf32, #mma>
    %u = attn.load_tile %k[%c0, %row] rows %c32
        : memref<?x?x128xbf16> -> tensor<32x128xbf16>
    %a = arith.addf %acc, %t : tensor<128x32xf32, #mma>
    scf.yield %a : tensor<128x32xf32, #mma>
  }
  return %r : tensor<128x32xf32, #mma>
}

// -----

// A shared-memory load whose indices do not depend on the induction
// variable is not a stream of blocks: unchanged.

// CHECK-LABEL: func.func @invariant_load
// CHECK-NOT:     attn.alloc_ring
// CHECK:         scf.for
// CHECK-NEXT:      %[[T:.*]] = attn.load_tile %arg0[%arg2, %arg3, %arg4] rows %arg4 : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
// CHECK-NEXT:      attn.dot %arg1, %[[T]]
// CHECK-NOT:     attn.async
// CHECK-NOT:     attn.ring_slot

// S3-LABEL: func.func @invariant_load
// S3-NOT:      attn.alloc_ring
// S3-NOT:      attn.async

#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @invariant_load(%k: memref<?x?x?x128xbf16>, %q: tensor<128x128xbf16, #smem>,
                          %b: index, %h: index, %row: index, %nb: index)
    -> tensor<128x32xf32, #mma> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
  %r = scf.for %j = %c0 to %nb step %c1 iter_args(%acc = %zero) -> (tensor<128x32xf32, #mma>) {
    %t = attn.load_tile %k[%b, %h, %row] rows %row
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %s = attn.dot %q, %t, %acc {rhs_transposed}
        : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
    scf.yield %s : tensor<128x32xf32, #mma>
  }
  return %r : tensor<128x32xf32, #mma>
}

// -----

// Without a grid the rings go to the top of the function. The second loop
// does not start where the first ended, so a slot it fills first may be the
// one the first loop's last iteration still reads: its prologue waits for
// every thread first. The first loop needs no such wait.

// CHECK-LABEL: func.func @unrelated_loops
// CHECK-NEXT:    %[[KR:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NOT:     attn.async_wait
// CHECK:         scf.for %{{.*}} = %arg3 to %arg4
// CHECK-NEXT:      attn.async_wait 0
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:    attn.async_wait 0
// CHECK-NEXT:    arith.cmpi slt, %arg5, %arg6 : index
// CHECK-NEXT:    scf.if
// CHECK:           attn.async_load_tile %arg0{{.*}}, %[[KR]]
// CHECK:         attn.async_commit
// CHECK:         scf.for %{{.*}} = %arg5 to %arg6
// CHECK-NEXT:      attn.async_wait 0
// CHECK:           attn.ring_slot %[[KR]]

// S3-LABEL: func.func @unrelated_loops
// S3:         scf.yield
// S3:         arith.constant 3 : index
// S3-NEXT:    attn.async_wait 0
// S3-NEXT:    arith.cmpi slt, %arg5, %arg6 : index

// S = 1: one load per iteration is one phase, which could only be refilled
// after another barrier at the end of the body: both loops are left alone.
// S1-LABEL: func.func @unrelated_loops
// S1-NOT:       attn.alloc_ring
// S1-NOT:       attn.async_
// S1-COUNT-2:   attn.load_tile
// S1:           return

#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @unrelated_loops(%k: memref<?x?x?x128xbf16>, %q: tensor<128x128xbf16, #smem>,
                           %h: index, %lb1: index, %ub1: index, %lb2: index,
                           %ub2: index) -> tensor<128x32xf32, #mma> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
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

// -----

// A key/value loop inside another loop: the earlier trips of the outer loop
// used the ring, so the prologue waits for every thread first.

// CHECK-LABEL: func.func @nested_in_loop
// CHECK:         attn.alloc_ring
// CHECK:         scf.for
// CHECK:           attn.async_wait 0
// CHECK-NEXT:      arith.cmpi slt
// CHECK-NEXT:      scf.if
// CHECK:           scf.for
// CHECK-NEXT:        attn.async_wait 0

#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @nested_in_loop(%k: memref<?x?x?x128xbf16>, %q: tensor<128x128xbf16, #smem>,
                          %h: index, %n: index, %nb: index) -> tensor<128x32xf32, #mma> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x32xf32, #mma>) {
    %r1 = scf.for %j = %c0 to %nb step %c1 iter_args(%acc = %acc0) -> (tensor<128x32xf32, #mma>) {
      %row = arith.muli %j, %c32 : index
      %t = attn.load_tile %k[%i, %h, %row] rows %c32
          : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
      %s = attn.dot %q, %t, %acc {rhs_transposed}
          : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
      scf.yield %s : tensor<128x32xf32, #mma>
    }
    scf.yield %r1 : tensor<128x32xf32, #mma>
  }
  return %r : tensor<128x32xf32, #mma>
}

// -----

// Loops left alone: a step other than 1; rows that follow an iter_arg (the
// next block's address is not known ahead); a tile carried to the next
// iteration (its slot would be refilled under it).

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     attn.alloc_ring
// CHECK-COUNT-3: attn.load_tile
// CHECK-NOT:     attn.async
// CHECK-NOT:     attn.ring_slot

// S3-LABEL: func.func @left_alone
// S3-NOT:      attn.alloc_ring
// S3-NOT:      attn.async

#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @left_alone(%k: memref<?x?x?x128xbf16>, %q: tensor<128x128xbf16, #smem>,
                      %h: index, %nb: index, %t0: tensor<32x128xbf16, #smem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %nb step %c2 {
    %row = arith.muli %j, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    "test.use"(%t) : (tensor<32x128xbf16, #smem>) -> ()
  }
  %e = scf.for %j = %c0 to %nb step %c1 iter_args(%row = %c0) -> (index) {
    %t = attn.load_tile %k[%h, %j, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    "test.use"(%t) : (tensor<32x128xbf16, #smem>) -> ()
    %next = arith.addi %row, %c32 : index
    scf.yield %next : index
  }
  %last = scf.for %j = %c0 to %nb step %c1 iter_args(%prev = %t0) -> (tensor<32x128xbf16, #smem>) {
    %row = arith.muli %j, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    "test.use"(%prev) : (tensor<32x128xbf16, #smem>) -> ()
    scf.yield %t : tensor<32x128xbf16, #smem>
  }
  return
}

// -----

// Two blocks of the same memref per iteration: each load gets its own ring
// (sharing one would put both blocks in the same slot).

// CHECK-LABEL: func.func @two_blocks_per_iteration
// CHECK-NEXT:    %[[R0:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK-NEXT:    %[[R1:.*]] = attn.alloc_ring : !attn.ring<2, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK:         scf.if
// CHECK:           %[[A0:.*]] = arith.muli %{{.*}}, %c64
// CHECK-NEXT:      %[[B0:.*]] = arith.addi %[[A0]], %c32
// CHECK-NEXT:      %[[SL0:.*]] = arith.remui
// CHECK-NEXT:      attn.async_load_tile %arg0[%arg2, %arg2, %[[A0]]] rows %c32, %[[R0]][%[[SL0]]]
// CHECK-NEXT:      attn.async_load_tile %arg0[%arg2, %arg2, %[[B0]]] rows %c32, %[[R1]][%[[SL0]]]
// CHECK:         scf.for
// CHECK:           attn.async_commit
// CHECK-NEXT:      %[[SL:.*]] = arith.remui
// CHECK:           attn.ring_slot %[[R0]][%[[SL]]]
// CHECK:           attn.ring_slot %[[R1]][%[[SL]]]

// S3-LABEL: func.func @two_blocks_per_iteration
// S3-COUNT-2:  attn.alloc_ring : !attn.ring<3,

// S = 1: the two blocks are read by consecutive dots, so they are two
// phases: the second block travels while the first is multiplied.
// S1-LABEL: func.func @two_blocks_per_iteration
// S1:           %[[R0:.*]] = attn.alloc_ring : !attn.ring<1,
// S1-NEXT:      %[[R1:.*]] = attn.alloc_ring : !attn.ring<1,
// S1:           scf.if
// S1:             attn.async_load_tile %{{.*}}, %[[R0]]
// S1-NEXT:      }
// S1-NEXT:      attn.async_commit
// S1:           scf.for
// S1-NEXT:        attn.async_wait 0
// S1:             attn.async_load_tile %{{.*}}, %[[R1]]
// S1:             %[[T:.*]] = attn.ring_slot %[[R0]]
// S1:             attn.dot %{{.*}}, %[[T]]
// S1-NEXT:        attn.async_wait 0
// S1:             scf.if
// S1:               attn.async_load_tile %{{.*}}, %[[R0]]
// S1:             %[[U:.*]] = attn.ring_slot %[[R1]]
// S1-NEXT:        attn.dot %{{.*}}, %[[U]]

#mma = #attn.mma<warps = 4>
#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @two_blocks_per_iteration(%k: memref<?x?x?x128xbf16>,
                                    %q: tensor<128x128xbf16, #smem>, %h: index,
                                    %nb: index) -> tensor<128x32xf32, #mma> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
  %r = scf.for %j = %c0 to %nb step %c1 iter_args(%acc = %zero) -> (tensor<128x32xf32, #mma>) {
    %row = arith.muli %j, %c64 : index
    %row2 = arith.addi %row, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %u = attn.load_tile %k[%h, %h, %row2] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %s = attn.dot %q, %t, %acc {rhs_transposed}
        : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
    %s2 = attn.dot %q, %u, %s {rhs_transposed}
        : tensor<128x128xbf16, #smem>, tensor<32x128xbf16, #smem> -> tensor<128x32xf32, #mma>
    scf.yield %s2 : tensor<128x32xf32, #mma>
  }
  return %r : tensor<128x32xf32, #mma>
}

// -----

// S = 1: K and V read by one op form one phase (their reads interleave), so
// the loop is left alone; with S = 2 it is pipelined as usual.
// CHECK-LABEL: func.func @one_phase
// CHECK:         attn.alloc_ring : !attn.ring<2,
// CHECK-NOT:     attn.load_tile
// S1-LABEL: func.func @one_phase
// S1-NOT:       attn.alloc_ring
// S1-COUNT-2:   attn.load_tile
// S1-NOT:       attn.async_wait

#smem = #attn.shared<swizzle = 8, pad = 0>
func.func @one_phase(%k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>,
                     %h: index, %nb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %nb step %c1 {
    %row = arith.muli %j, %c32 : index
    %t = attn.load_tile %k[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    %u = attn.load_tile %v[%h, %h, %row] rows %c32
        : memref<?x?x?x128xbf16> -> tensor<32x128xbf16, #smem>
    "test.use"(%t, %u) : (tensor<32x128xbf16, #smem>, tensor<32x128xbf16, #smem>) -> ()
  }
  return
}
