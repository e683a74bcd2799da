// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-fuse-online-softmax

// Loops tagged attn.softmax_pass that are not the tiling pass's naive form:
// the fusion pass says why at the loop and fails, never crashes. (More
// cases in test/Dialect/Attn/Transforms/fuse-online-softmax-errors.mlir.)

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
