// Mistral-style local attention: causal, each query sees the 4096 keys
// before it and itself (FlashAttention's window_size=(4096, 0)), head dim
// 128, bf16, with the LSE. Key blocks wholly outside the window are never
// visited, so the cost grows with N·4096 instead of N²/2. Written as the
// runtime launches kernels (KernelABI.h: tensors with run-time strides, the
// scale the last argument), so attn-bundle can put it in a bundle (the
// build's does) and the runtime serves it to problems of this window.
// Compile and run it on the CPU with the check:
//   build/bin/attn-run examples/attention-sliding-window.mlir --batch 1 \
//       --heads 8 --kv-heads 2 --seq-q 5000 --check
func.func @attn_fwd_bf16_d128_causal_w4096(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
    %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) {causal, window_left = 4096}
      : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>,
        memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>
  return
}
