// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The attn dialect's attributes (AttnDialect.cpp): #attn.target's
// parameters, and the discardable attn.* attributes the passes put on ops
// (AttnDialect::verifyOperationAttribute), each refused where it is
// written.

//===----------------------------------------------------------------------===//
// #attn.target
//===----------------------------------------------------------------------===//

func.func @target_arch() attributes {
    // expected-error @+1 {{unknown target architecture 'sm_70' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)}}
    attn.target = #attn.target<arch = "sm_70", smem_per_block = 98304, num_sms = 80>} {
  return
}

// -----

func.func @target_smem_per_block() attributes {
    // expected-error @+1 {{smem_per_block must be in [4096, 2^30] bytes, got 4095}}
    attn.target = #attn.target<arch = "cpu", smem_per_block = 4095, num_sms = 1>} {
  return
}

// -----

func.func @target_num_sms() attributes {
    // expected-error @+1 {{num_sms must be in [1, 65536], got 0}}
    attn.target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 0>} {
  return
}

// -----

func.func @smem_negative(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{smem_per_block must be in [4096, 2^30] bytes, got -5}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "sm_90", smem_per_block = -5, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @smem_absurd(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                       %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{smem_per_block must be in [4096, 2^30] bytes, got 99999999999999}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "sm_80", smem_per_block = 99999999999999, num_sms = 108>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @smem_overflows_i64(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                              %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{integer value too large}}
  // expected-error @below {{failed to parse Attn_TargetAttr parameter 'smem_per_block' which is to be a `int64_t`}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "cpu", smem_per_block = 99999999999999999999999, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable attributes (AttnDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'attn.target' must be an #attn.target attribute}}
module attributes {attn.target = "sm_90"} {
}

// -----

func.func @softmax_pass_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.softmax_pass' must be "max", "sum" or "pv" on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "qk"}
  return
}

// -----

// expected-error @+1 {{'attn.softmax_pass' must be "max", "sum" or "pv" on an scf.for}}
func.func @softmax_pass_placement() attributes {attn.softmax_pass = "max"} {
  return
}

// -----

func.func @softmax_scale_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.softmax_scale' must be a positive finite f32 on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "max", attn.softmax_scale = -0.125 : f32}
  return
}

// -----

// expected-error @+1 {{'attn.softmax_scale' must be a positive finite f32 on an scf.for}}
func.func @softmax_scale_placement() attributes {attn.softmax_scale = 0.125 : f32} {
  return
}

// -----

func.func @online_softmax_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.online_softmax' must be a unit attribute on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.online_softmax = true}
  return
}

// -----

// expected-error @+1 {{'attn.online_softmax' must be a unit attribute on an scf.for}}
func.func @online_softmax_placement() attributes {attn.online_softmax} {
  return
}

// -----

// expected-error @+1 {{'attn.score_grad_tile' must be a unit attribute on an scf.for}}
func.func @score_grad_tile_placement() attributes {attn.score_grad_tile} {
  return
}

// -----

func.func @skip_unit_factors_placement(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.skip_unit_factors' must be a unit attribute on an arith.mulf}}
  %y = arith.addf %x, %x {attn.skip_unit_factors} : f32
  return %y : f32
}

// -----

func.func @skip_unit_factors_value(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.skip_unit_factors' must be a unit attribute on an arith.mulf}}
  %y = arith.mulf %x, %x {attn.skip_unit_factors = 1 : i32} : f32
  return %y : f32
}

// -----

// expected-error @+1 {{'attn.register_estimate' must be a positive integer on an scf.forall}}
func.func @register_estimate_placement() attributes {attn.register_estimate = 255 : i64} {
  return
}

// -----

func.func @register_estimate_value() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.register_estimate' must be a positive integer on an scf.forall}}
  scf.forall (%i) in (%c1) {
  } {attn.register_estimate = 0 : i64}
  return
}

// -----

// expected-error @+1 {{'attn.lsr' must be a bool}}
func.func @lsr_value() attributes {attn.lsr = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{unknown attn dialect attribute 'attn.block_q'}}
func.func @unknown_dialect_attribute() attributes {attn.block_q = 64 : i64} {
  return
}

// -----

func.func @fused_exponent_placement(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.fused_exponent' must be a unit attribute on an arith.mulf}}
  %y = arith.subf %x, %x {attn.fused_exponent} : f32
  return %y : f32
}

// -----

// expected-error @+1 {{'attn.program' must be split_kv, merge_splits, grad_q, grad_kv, grad_prep, grad_q_out or block_lists on an scf.forall}}
func.func @program_attr() attributes {attn.program = "split_kv"} {
  return
}

// -----

// expected-error @+1 {{'attn.softcap' must be a positive, finite, normal f32 on an scf.forall}}
func.func @softcap_attr() attributes {attn.softcap = 50.0 : f32} {
  return
}

// -----

// expected-error @+1 {{'attn.grid' must be three products of batch, heads_q, heads_kv, q_blocks, splits, kv_blocks and constants in [1, 65535] (e.g. "q_blocks*splits") on an scf.forall}}
func.func @grid_attr() attributes {attn.grid = ["batch", "heads_q", "rows"]} {
  return
}

// -----

// A constant factor is a positive count (a merge's column blocks).
func.func @grid_zero_constant(%n: index) {
  // expected-error @+1 {{'attn.grid' must be three products of batch, heads_q, heads_kv, q_blocks, splits, kv_blocks and constants in [1, 65535] (e.g. "q_blocks*splits") on an scf.forall}}
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
  } {attn.grid = ["batch", "heads_q", "q_blocks*0"]}
  return
}

// -----

// A persistent grid is one-dimensional (programs) and names its tiles.
func.func @persistent_3d(%n: index) {
  // expected-error @+1 {{'attn.persistent' must be a unit attribute on a one-dimensional scf.forall of programs with its tiles' grid ('attn.grid')}}
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
  } {attn.persistent, attn.grid = ["batch", "heads_q", "q_blocks"]}
  return
}

// -----

func.func @persistent_no_grid(%n: index) {
  // expected-error @+1 {{'attn.persistent' must be a unit attribute on a one-dimensional scf.forall of programs with its tiles' grid ('attn.grid')}}
  scf.forall (%p) in (%n) {
  } {attn.persistent}
  return
}

// -----

//===----------------------------------------------------------------------===//
// Parser failures
//===----------------------------------------------------------------------===//

func.func @parse_target_missing_parameter() attributes {
    // expected-error @+1 {{expected ','}}
    attn.target = #attn.target<arch = "cpu", smem_per_block = 4096>} {
  return
}

// -----

func.func @polynomial_exp2_placement(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.polynomial_exp2' must be an i64 >= 1 on a math.exp2}}
  %y = math.exp %x {attn.polynomial_exp2 = 4 : i64} : f32
  return %y : f32
}

// -----

func.func @polynomial_exp2_value(%x: f32) -> f32 {
  // expected-error @+1 {{'attn.polynomial_exp2' must be an i64 >= 1 on a math.exp2}}
  %y = math.exp2 %x {attn.polynomial_exp2 = 0 : i64} : f32
  return %y : f32
}

// -----

// attn.cpu_only marks attn.block_lists' loop program (a grid).
func.func @cpu_only_on_for(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'attn.cpu_only' must be a unit attribute on an scf.forall}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.cpu_only}
  return
}

// -----

// attn.mask_block gives a block_lists grid's [BQ, BK].
func.func @mask_block_sizes(%n: index) {
  // expected-error @+1 {{'attn.mask_block' must be two positive sizes (array<i64: BQ, BK>) on an scf.forall}}
  scf.forall (%i) in (%n) {
  } {attn.mask_block = array<i64: 128, 0>}
  return
}
