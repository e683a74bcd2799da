// RUN: attn-opt %s -split-input-file -attn-fuse-online-softmax -verify-diagnostics
// RUN: not attn-opt %s -attn-fuse-online-softmax="rescale-threshold=16" 2>&1 | FileCheck %s --check-prefix=TAU16
// RUN: not attn-opt %s -attn-fuse-online-softmax="rescale-threshold=-1" 2>&1 | FileCheck %s --check-prefix=TAUNEG

// attn-fuse-online-softmax fuses the naive three-pass softmax (loops tagged
// attn.softmax_pass) into online loops; a tagged loop that is not the tiling
// pass's naive form gets an error at the loop saying why, and the pass fails
// (never crashes).

// A bad option is an error before any IR is touched (no location).
// TAU16: <unknown>:0: error: pass option rescale-threshold must be in [0, 15], got 16
// TAUNEG: <unknown>:0: error: pass option rescale-threshold must be in [0, 15], got -1

// A max pass with no sum and pv passes is not the naive form.
func.func @missing_passes(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{cannot fuse the softmax: expected as many 'max', 'sum' and 'pv' loops, got 1, 0 and 0}}
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  return %m : tensor<16xf32>
}

// -----

// The passes must cover the same key/value blocks.
func.func @different_bounds(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index, %n2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  // expected-error @+1 {{cannot fuse the softmax: segment 0 of the passes has different bounds}}
  %l = scf.for %kb = %c0 to %n2 step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    scf.yield %li : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    scf.yield %ai : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return
}

// -----

// The pv pass must accumulate P·V with attn.dot into its carried value.
func.func @pv_without_dot(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    scf.yield %li : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'pv' loop must yield attn.dot(P, V, carried)}}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %b = arith.addf %ai, %ai : tensor<16x16xf32>
    scf.yield %b : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return
}

// -----

// The max pass must be max(carried, attn.reduce max S).
func.func @max_without_reduce(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{cannot fuse the softmax: 'max' loop must yield arith.maximumf}}
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    scf.yield %mi : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    scf.yield %li : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    scf.yield %ai : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return
}

// -----

// A run-time scale (no attn.softmax_scale) must be one value in every pass.
func.func @runtime_scales_differ(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index, %s: f32, %t: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s0 = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s0 : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max"}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %sp = tensor.splat %s : tensor<16x16xf32>
    %x = arith.mulf %z, %sp : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum"}
  // expected-error @+1 {{cannot fuse the softmax: passes disagree on the scale (this loop's run-time scale is another value)}}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %sp = tensor.splat %t : tensor<16x16xf32>
    %x = arith.mulf %sp, %z : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %e, %k, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv"}
  return
}

// -----

// Loops without attn.softmax_scale (run-time scale) and loops with one do not mix.
func.func @runtime_and_constant_scale(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s0 = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s0 : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max"}
  // expected-error @+1 {{cannot fuse the softmax: passes disagree on the scale (this loop has 'attn.softmax_scale', the first loop has none)}}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %sp = tensor.splat %s : tensor<16x16xf32>
    %x = arith.mulf %z, %sp : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %sp = tensor.splat %s : tensor<16x16xf32>
    %x = arith.mulf %sp, %z : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %e, %k, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv"}
  return
}

// -----

// c = s·log2(e) goes before the fused loops, where the max pass started: s
// must be defined there.
func.func @runtime_scale_after_max(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{cannot fuse the softmax: the run-time scale is defined after the max pass}}
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s0 = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s0 : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max"}
  %s2 = arith.addf %s, %s : f32
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %sp = tensor.splat %s2 : tensor<16x16xf32>
    %x = arith.mulf %z, %sp : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum"}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %sp = tensor.splat %s2 : tensor<16x16xf32>
    %x = arith.mulf %sp, %z : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %e, %k, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv"}
  return
}

// -----

// Every sum and pv pass must scale its exponent by the run-time scale.
func.func @runtime_scale_missing_in_pv(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %s0 = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s0 : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max"}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %sp = tensor.splat %s : tensor<16x16xf32>
    %x = arith.mulf %z, %sp : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum"}
  // expected-error @+1 {{cannot fuse the softmax: passes disagree on the scale (this loop has no run-time scale}}
  %a = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %x = arith.mulf %z, %z : tensor<16x16xf32>
    %e = math.exp %x : tensor<16x16xf32>
    %k = attn.load_tile %key[%kb] rows %c1 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %e, %k, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv"}
  return
}

// -----

// Each pass body must compute what the fused loop computes; the tags alone
// are not trusted. The programs below differ from a valid naive form in one
// place each.
// The issue's first example: a 'sum' pass computing l + l, not l + rowsum(P).
func.func @sum_adds_carried_twice(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'sum' loop must yield carried + attn.reduce sum P}}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %li : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The issue's second example: a 'pv' pass multiplying S, not P, by V.
func.func @pv_uses_scores(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'pv' loop must use P = exp((S - m)·scale) / broadcast(l) with l the sum pass's result}}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %s, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The 'sum' pass loads other key rows (row = kb·1): its S is not the max pass's S.
func.func @sum_other_scores(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'sum' loop must compute exp((S - m)·scale) with S computed as in the 'max' loop}}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c1 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The 'sum' pass subtracts a value that is not the max pass's m.
func.func @sum_other_max(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'sum' loop must compute exp((S - m)·scale) with m the max pass's result}}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %other : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The 'sum' pass scales by another constant than the loops' attn.softmax_scale.
func.func @sum_other_scale(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'sum' loop must compute exp((S - m)·scale) with the passes' scale}}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %z : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The 'pv' pass divides by a value that is not the sum pass's l.
func.func @pv_other_sum(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'pv' loop must use P = exp((S - m)·scale) / broadcast(l) with l the sum pass's result}}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %other : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// l starts at 1: the fused loop (whose first α is 0) would drop it.
func.func @sum_starts_at_one(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{cannot fuse the softmax: the passes must start from m = -inf, l = 0 and A = 0 (constant splats)}}
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %one) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// A store in a pass body: the fused loop keeps only what the passes yield.
func.func @store_in_sum(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %other: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    %f = arith.constant 1.0 : f32
    // expected-error @+1 {{cannot fuse the softmax: 'memref.store' in a 'sum' pass may write memory; the fused loop would drop it}}
    memref.store %f, %key[%kb, %c0] : memref<?x16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %p, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %l, %acc : tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The pass checks the loops' structure before their bodies: a pass missing,
// no scale, nothing carried, passes out of order.

func.func @pv_only(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot fuse the softmax: expected as many 'max', 'sum' and 'pv' loops, got 0, 0 and 1}}
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return %m : f32
}

// -----

func.func @no_scale(%n: index, %x: f32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot fuse the softmax: loop has no 'attn.softmax_scale'}}
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "max"}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "sum"}
  %o = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "pv"}
  return %m, %l, %o : f32, f32, f32
}

// -----

func.func @no_carried_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot fuse the softmax: each pass loop carries one value}}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  scf.for %i = %c0 to %n step %c1 {
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return
}

// -----

func.func @scales_disagree(%n: index, %x: f32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  // expected-error @below {{cannot fuse the softmax: passes disagree on the scale}}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "sum", attn.softmax_scale = 2.0 : f32}
  %o = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return %m, %l, %o : f32, f32, f32
}

// -----

func.func @wrong_order(%n: index, %x: f32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %o = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  // expected-error @below {{cannot fuse the softmax: passes must run max, sum, pv in order}}
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  return %m, %l, %o : f32, f32, f32
}

// -----

func.func @max_body(%n: index, %x: tensor<4xf32>, %a0: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot fuse the softmax: 'max' loop must yield max(carried, attn.reduce max S)}}
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %r = arith.maximumf %a, %x : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    scf.yield %a : tensor<4xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  %o = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0) -> (tensor<4x8xf32>) {
    scf.yield %a : tensor<4x8xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return %m, %l, %o : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Scalars instead of the row vectors and tiles the fused loop carries (this
// aborted on a failed cast in an assertion build).
func.func @scalar_carried(%n: index, %x: f32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot fuse the softmax: the 'max' and 'sum' passes must carry the same f32 row vector tensor<Br x f32> and the 'pv' pass an f32 tile tensor<Br x D x f32>}}
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    %r = arith.maximumf %a, %x : f32
    scf.yield %r : f32
  } {attn.softmax_pass = "max", attn.softmax_scale = 1.0 : f32}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "sum", attn.softmax_scale = 1.0 : f32}
  %o = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    scf.yield %a : f32
  } {attn.softmax_pass = "pv", attn.softmax_scale = 1.0 : f32}
  return %m, %l, %o : f32, f32, f32
}

// -----

// Between the normalisation and the P·V product only ops linear in P may
// stand (dropout's select(c, P·f, 0)): they commute with the deferred
// division by l. A select whose other value is not 0 does not (f(P / l) ≠
// f(P) / l), and is refused.
func.func @pv_select_not_zero(%q: tensor<16x16xf32>, %key: memref<?x16xf32>, %value: memref<?x16xf32>, %n: index, %keep: tensor<16x16xi1>) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zr = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %half = arith.constant dense<0.5> : tensor<16x16xf32>
  %sc = arith.constant dense<0.25> : tensor<16x16xf32>
  %m = scf.for %kb = %c0 to %n step %c1 iter_args(%mi = %ninf) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %r = attn.reduce max %s : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %mi, %r : tensor<16xf32>
    scf.yield %mn : tensor<16xf32>
  } {attn.softmax_pass = "max", attn.softmax_scale = 0.25 : f32}
  %l = scf.for %kb = %c0 to %n step %c1 iter_args(%li = %zr) -> tensor<16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %r = attn.reduce sum %e : tensor<16x16xf32> -> tensor<16xf32>
    %ln = arith.addf %li, %r : tensor<16xf32>
    scf.yield %ln : tensor<16xf32>
  } {attn.softmax_pass = "sum", attn.softmax_scale = 0.25 : f32}
  // expected-error @+1 {{cannot fuse the softmax: 'pv' loop must use P = exp((S - m)·scale) / broadcast(l) with l the sum pass's result}}
  %acc = scf.for %kb = %c0 to %n step %c1 iter_args(%ai = %z) -> tensor<16x16xf32> {
    %row = arith.muli %kb, %c16 : index
    %k = attn.load_tile %key[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %s = attn.dot %q, %k, %z {rhs_transposed} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %mb = attn.broadcast %m : tensor<16xf32> -> tensor<16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16xf32>
    %ds = arith.mulf %d, %sc : tensor<16x16xf32>
    %e = math.exp %ds : tensor<16x16xf32>
    %lb = attn.broadcast %l : tensor<16xf32> -> tensor<16x16xf32>
    %p = arith.divf %e, %lb : tensor<16x16xf32>
    %pd = arith.select %keep, %p, %half : tensor<16x16xi1>, tensor<16x16xf32>
    %v = attn.load_tile %value[%row] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32>
    %an = attn.dot %pd, %v, %ai : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %an : tensor<16x16xf32>
  } {attn.softmax_pass = "pv", attn.softmax_scale = 0.25 : f32}
  return %acc : tensor<16x16xf32>
}
