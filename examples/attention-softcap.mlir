// Gemma 2's attention: every scaled score passes through a soft-cap of 50,
// S' = 50·tanh(S / 50), before the causal mask and the softmax; head dim
// 256, bf16, with the LSE. On the GPU the cap is tanh.approx.f32, one
// special-function instruction a score. Written as the runtime launches
// kernels (KernelABI.h: tensors with run-time strides, the scale the last
// argument), so attn-bundle can put it in a bundle (the build's does) and
// the runtime serves it to problems with softcap = 50
// (ForwardProblem::softcap, attn_forward_variant). Compile and run it on
// the CPU with the check:
//   build/bin/attn-run examples/attention-softcap.mlir --batch 1 \
//       --heads 8 --kv-heads 4 --seq-q 1000 --check
func.func @attn_fwd_bf16_d256_causal_sc50(
    %q: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) {causal, softcap = 50.0 : f32}
      : memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x256xbf16, strided<[?, ?, ?, 1]>>
  return
}
