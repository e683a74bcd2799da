// Static B = 2, Hq = 8, Nq = 64; dynamic Hkv and Nk; f16, D = 32.
func.func @attention(%q: memref<2x8x64x32xf16>, %k: memref<2x?x?x32xf16>, %v: memref<2x?x?x32xf16>, %o: memref<2x8x64x32xf16>) {
  attn.attention %q, %k, %v into %o : memref<2x8x64x32xf16>, memref<2x?x?x32xf16>, memref<2x?x?x32xf16>, memref<2x8x64x32xf16>
  return
}
