// The built-in ALiBi with dynamic sequence lengths: attn-run's CPU path
// wants them static (or --alibi from flags).
func.func @attention(%q: memref<1x4x?x64xf32>, %k: memref<1x4x?x64xf32>,
                     %v: memref<1x4x?x64xf32>, %o: memref<1x4x?x64xf32>,
                     %slopes: memref<4xf32>) {
  attn.attention %q, %k, %v into %o alibi(%slopes : memref<4xf32>)
      : memref<1x4x?x64xf32>, memref<1x4x?x64xf32>, memref<1x4x?x64xf32>,
        memref<1x4x?x64xf32>
  return
}
