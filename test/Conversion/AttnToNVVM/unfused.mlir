// RUN: attn-opt %s -attn-tile-attention="block-q=64 block-kv=64" -convert-attn-to-nvvm -verify-diagnostics

// The kernel generator takes the fused form only.
func.func @naive(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                 %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{unsupported: the naive three-pass softmax; run attn-fuse-online-softmax first}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}
