// RUN: attn-opt %s -split-input-file --attn-chain-grids | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-chain-grids="programs=attention" | FileCheck %s --check-prefix=FWD

// A decode step's two programs on sm_90a: each waits for the grid before it
// and lets the next one start, first in its grid's body; a forward grid (no
// attn.program) is left alone unless named.
// CHECK-LABEL: func.func @decode_step
// CHECK:         scf.forall
// CHECK-NEXT:      attn.wait_prior_grids
// CHECK-NEXT:      attn.launch_dependents
// CHECK-NEXT:      memref.load
// CHECK:         } {attn.program = "split_kv"
// CHECK:         scf.forall
// CHECK-NEXT:      attn.wait_prior_grids
// CHECK-NEXT:      attn.launch_dependents
// CHECK-NEXT:      memref.store
// CHECK:         } {attn.program = "merge_splits"
// CHECK:         scf.forall
// CHECK-NOT:       attn.wait_prior_grids
// CHECK:         } {attn.target
// FWD-LABEL:   func.func @decode_step
// FWD-NOT:       attn.wait_prior_grids
// FWD:           } {attn.program = "split_kv"
// FWD-NOT:       attn.wait_prior_grids
// FWD:           } {attn.program = "merge_splits"
// FWD:           scf.forall
// FWD-NEXT:        attn.wait_prior_grids
// FWD-NEXT:        attn.launch_dependents
#sm90 = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>
func.func @decode_step(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    %x = memref.load %m[%i] : memref<?xf32>
  } {attn.program = "split_kv", attn.target = #sm90}
  scf.forall (%i) in (%n) {
    memref.store %f, %m[%i] : memref<?xf32>
  } {attn.program = "merge_splits", attn.target = #sm90}
  scf.forall (%i) in (%n) {
    memref.store %f, %m[%c0] : memref<?xf32>
  } {attn.target = #sm90}
  return
}

// -----

// sm_80 has no grid dependency control (griddepcontrol is sm_90's), and a
// grid without a target is not a GPU program the pass knows.
// CHECK-LABEL: func.func @ampere
// CHECK-NOT:     attn.wait_prior_grids
// CHECK-NOT:     attn.launch_dependents
// CHECK:         return
#sm80 = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>
func.func @ampere(%m: memref<?xf32>, %n: index) {
  %f = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    memref.store %f, %m[%i] : memref<?xf32>
  } {attn.program = "merge_splits", attn.target = #sm80}
  scf.forall (%i) in (%n) {
    memref.store %f, %m[%i] : memref<?xf32>
  } {attn.program = "merge_splits"}
  return
}

// -----

// A grid chained already is left as it is (the pass runs twice: one wait).
// CHECK-LABEL: func.func @twice
// CHECK:         attn.wait_prior_grids
// CHECK-NOT:     attn.wait_prior_grids
// CHECK:         return
#sm90 = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>
func.func @twice(%m: memref<?xf32>, %n: index) {
  %f = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    attn.wait_prior_grids
    memref.store %f, %m[%i] : memref<?xf32>
  } {attn.program = "merge_splits", attn.target = #sm90}
  return
}
