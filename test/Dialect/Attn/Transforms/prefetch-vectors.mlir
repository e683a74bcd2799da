// RUN: attn-opt %s -split-input-file --attn-prefetch-vectors | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-prefetch-vectors=max-loads=2 | FileCheck %s --check-prefix=TWO
// RUN: attn-opt %s -split-input-file --attn-prefetch-vectors=max-loads=0 | FileCheck %s --check-prefix=NONE
// RUN: not attn-opt %s -split-input-file --attn-prefetch-vectors=max-loads=-1 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: attn-opt %s -split-input-file --attn-prefetch-vectors=masked-loops=1 | FileCheck %s --check-prefix=MASKED
// RUN: attn-opt %s -split-input-file --attn-prefetch-vectors=windows=1 | FileCheck %s --check-prefix=WIN

// ERR: pass option max-loads must be >= 0, got -1

// A key-major step's LSE and Δ (per-column vectors of a two-warpgroup
// program): the first (max-loads = 1) is loaded a step ahead. Before the
// loop, step lb's under lb < ub (zeros otherwise); first thing in step j,
// step j + 1's under j + 1 < ub (else the carried value stays), its index
// math cloned for j + 1; the step reads the carried value.
#col = #attn.slice<#attn.mma<warps = 8, version = 3>, dim = 1>
// CHECK-LABEL: func.func @lse_delta
// CHECK:         scf.forall
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = scf.if %[[IN]] -> (tensor<64xf32, #attn.slice<#attn.mma<warps = 8, version = 3>, dim = 1>>) {
// CHECK-NEXT:        %[[R0:.*]] = arith.muli %[[LB]], %c64 : index
// CHECK-NEXT:        %[[N0:.*]] = arith.subi %{{.*}}, %[[R0]] : index
// CHECK-NEXT:        %[[V0:.*]] = arith.minsi %[[N0]], %c64 : index
// CHECK-NEXT:        %[[L0:.*]] = attn.load_tile %arg0[%{{.*}}, %[[R0]]] rows %[[V0]]
// CHECK-NEXT:        scf.yield %[[L0]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %cst
// CHECK:           scf.for %[[J:.*]] = %[[LB]] to %[[UB]] step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[J]], %[[STEP]] : index
// CHECK-NEXT:        %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : index
// CHECK-NEXT:        %[[PRE:.*]] = scf.if %[[MORE]]
// CHECK-NEXT:          %[[R1:.*]] = arith.muli %[[NEXT]], %c64 : index
// CHECK:               attn.load_tile %arg0[%{{.*}}, %[[R1]]]
// CHECK:             } else {
// CHECK-NEXT:          scf.yield %[[CUR]]
// CHECK:             %[[D:.*]] = attn.load_tile %arg1
// CHECK:             arith.addf %[[CUR]], %[[D]]
// CHECK:             scf.yield %{{.*}}, %[[PRE]]
// TWO-LABEL: func.func @lse_delta
// TWO-COUNT-2:   scf.if %{{.*}} -> (tensor<64xf32, #attn.slice<#attn.mma<warps = 8, version = 3>, dim = 1>>)
// TWO:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[D:.*]] = %{{.*}})
// TWO:             scf.if
// TWO:             scf.if
// TWO:             arith.addf %[[L]], %[[D]]
// NONE-LABEL: func.func @lse_delta
// NONE-NOT:      scf.if
func.func @lse_delta(%lse: memref<?x?xf32>, %delta: memref<?x?xf32>, %n: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant dense<0.0> : tensor<64xf32, #col>
  scf.forall (%h) in (%c1) {
    %r = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<64xf32, #col>) {
      %row = arith.muli %j, %c64 : index
      %left = arith.subi %n, %row : index
      %rows = arith.minsi %left, %c64 : index
      %l = attn.load_tile %lse[%h, %row] rows %rows : memref<?x?xf32> -> tensor<64xf32, #col>
      %d = attn.load_tile %delta[%h, %row] rows %rows : memref<?x?xf32> -> tensor<64xf32, #col>
      %s = arith.addf %l, %d : tensor<64xf32, #col>
      %a = arith.addf %acc, %s : tensor<64xf32, #col>
      scf.yield %a : tensor<64xf32, #col>
    }
    attn.store_tile %r, %lse[%h, %c0] rows %n : tensor<64xf32, #col>, memref<?x?xf32>
  }
  return
}

// -----

// Left alone: a one-warpgroup program (measured not to pay), a masked loop
// (the causal diagonal: it spilled), a load whose row comes from a
// loop-carried value, a per-row vector, a loop that writes the loaded
// memref.
#col4 = #attn.slice<#attn.mma<warps = 4, version = 3>, dim = 1>
#col = #attn.slice<#attn.mma<warps = 8, version = 3>, dim = 1>
#row = #attn.slice<#attn.mma<warps = 8, version = 3>>
#acc = #attn.mma<warps = 8, version = 3>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     scf.if
// TWO-LABEL: func.func @left_alone
// TWO-NOT:       scf.if
// With masked-loops, the masked loop's load goes a step ahead (only it).
// MASKED-LABEL: func.func @left_alone
// MASKED:         scf.if
// MASKED:         scf.if
// MASKED:         attn.mask
// MASKED-NOT:     scf.if
func.func @left_alone(%lse: memref<?x?xf32>, %out: memref<?x?xf32>, %n: index,
                      %steps: index, %s: tensor<128x64xf32, #acc>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%h) in (%c1) {
    scf.for %j = %c0 to %steps step %c1 {
      %row = arith.muli %j, %c64 : index
      %l = attn.load_tile %lse[%h, %row] rows %n : memref<?x?xf32> -> tensor<64xf32, #col4>
      attn.store_tile %l, %out[%h, %row] rows %n : tensor<64xf32, #col4>, memref<?x?xf32>
    }
  }
  scf.forall (%h) in (%c1) {
    scf.for %j = %c0 to %steps step %c1 {
      %row = arith.muli %j, %c64 : index
      %l = attn.load_tile %lse[%h, %row] rows %n : memref<?x?xf32> -> tensor<64xf32, #col>
      attn.store_tile %l, %out[%h, %row] rows %n : tensor<64xf32, #col>, memref<?x?xf32>
      %m = attn.mask %s q(%row, %n) kv(%row, %n) {causal, transposed} : tensor<128x64xf32, #acc>
    }
  }
  scf.forall (%h) in (%c1) {
    %e = scf.for %j = %c0 to %steps step %c1 iter_args(%row = %c0) -> (index) {
      %l = attn.load_tile %lse[%h, %row] rows %n : memref<?x?xf32> -> tensor<64xf32, #col>
      attn.store_tile %l, %out[%h, %row] rows %n : tensor<64xf32, #col>, memref<?x?xf32>
      %next = arith.addi %row, %c64 : index
      scf.yield %next : index
    }
  }
  scf.forall (%h) in (%c1) {
    scf.for %j = %c0 to %steps step %c1 {
      %row = arith.muli %j, %c64 : index
      %l = attn.load_tile %lse[%h, %row] rows %n : memref<?x?xf32> -> tensor<128xf32, #row>
      attn.store_tile %l, %out[%h, %row] rows %n : tensor<128xf32, #row>, memref<?x?xf32>
    }
  }
  scf.forall (%h) in (%c1) {
    scf.for %j = %c0 to %steps step %c1 {
      %row = arith.muli %j, %c64 : index
      %l = attn.load_tile %lse[%h, %row] rows %n : memref<?x?xf32> -> tensor<64xf32, #col>
      attn.store_tile %l, %lse[%h, %c0] rows %n : tensor<64xf32, #col>, memref<?x?xf32>
    }
  }
  return
}

// -----

// A score bias's [Br, Bc] window (a 2-d register tile read with cols beside
// the scores): a step ahead with windows = 1 only, the same way as a
// vector; by default it stays where it is read.
#acc = #attn.mma<warps = 8, version = 3>
// WIN-LABEL: func.func @bias_window
// WIN:         %[[FIRST:.*]] = scf.if %{{.*}} -> (tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>)
// WIN:           attn.load_tile %arg0[%c0, %{{.*}}, %c0, %{{.*}}] rows %c128 cols
// WIN:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// WIN-NEXT:      arith.addi
// WIN-NEXT:      arith.cmpi slt
// WIN-NEXT:      scf.if
// WIN:           arith.extf %[[CUR]]
// CHECK-LABEL: func.func @bias_window
// CHECK:         scf.for %
// CHECK-NEXT:      arith.muli
// CHECK:           attn.load_tile %arg0
// CHECK-NOT:     scf.if
func.func @bias_window(%bias: memref<?x?x?x?xbf16>, %n: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
  scf.forall (%h) in (%c1) {
    %r = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #acc>) {
      %col = arith.muli %j, %c64 : index
      %left = arith.subi %n, %col : index
      %cols = arith.minsi %left, %c64 : index
      %w = attn.load_tile %bias[%c0, %h, %c0, %col] rows %c128 cols %cols : memref<?x?x?x?xbf16> -> tensor<128x64xbf16, #acc>
      %f = arith.extf %w : tensor<128x64xbf16, #acc> to tensor<128x64xf32, #acc>
      %a = arith.addf %acc, %f : tensor<128x64xf32, #acc>
      scf.yield %a : tensor<128x64xf32, #acc>
    }
  }
  return
}

// -----

// An f32 window holds twice the registers: it stays where it is read.
#acc = #attn.mma<warps = 8, version = 3>
// WIN-LABEL: func.func @bias_window_f32
// WIN:         scf.for %
// WIN-NOT:       scf.if
// WIN:           attn.load_tile %arg0
func.func @bias_window_f32(%bias: memref<?x?x?x?xf32>, %n: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
  scf.forall (%h) in (%c1) {
    %r = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32, #acc>) {
      %col = arith.muli %j, %c64 : index
      %left = arith.subi %n, %col : index
      %cols = arith.minsi %left, %c64 : index
      %w = attn.load_tile %bias[%c0, %h, %c0, %col] rows %c128 cols %cols : memref<?x?x?x?xf32> -> tensor<128x64xf32, #acc>
      %a = arith.addf %acc, %w : tensor<128x64xf32, #acc>
      scf.yield %a : tensor<128x64xf32, #acc>
    }
  }
  return
}
