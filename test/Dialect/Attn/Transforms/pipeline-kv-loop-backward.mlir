// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_90a" | attn-opt -split-input-file --attn-assign-layouts --attn-pipeline-kv-loop | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-tile-pipeline="target=sm_80" | attn-opt -split-input-file --attn-assign-layouts --attn-pipeline-kv-loop | FileCheck %s --check-prefix=SM80

// Which loops of the backward's key-block grid (grad_kv) copy their Q and
// dO tiles ahead (attn.async_load_tile) is a measured rule: every loop but
// the masked (diagonal) one of a causal grid where a warpgroup both
// copies and computes, except at D <= 64 on mma.sync, where none (-5%,
// -17% causal); on wgmma at D = 128 every loop. The query-block grid (grad_q)
// always pipelines its K and V tiles. A grid's attributes print after its
// body.

!t = memref<?x?x?x64xbf16>
!r = memref<?x?x?xf32>
// CHECK-LABEL: func.func @d64
// CHECK:       attn.async_load_tile
// CHECK:       attn.program = "grad_q"
// CHECK:       attn.async_load_tile
// CHECK:       attn.program = "grad_kv"
// SM80-LABEL:  func.func @d64
// SM80:        attn.async_load_tile
// SM80:        attn.program = "grad_q"
// SM80-NOT:    attn.async_load_tile
// SM80:        attn.program = "grad_kv"
func.func @d64(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r, %dq: !t,
               %dk: !t, %dv: !t, %delta: !r, %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%s) : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

!t = memref<?x?x?x64xbf16>
!r = memref<?x?x?xf32>
// CHECK-LABEL: func.func @d64_causal
// CHECK:       attn.program = "grad_q"
// CHECK-NOT:   attn.async_load_tile
// CHECK:       attn.mask {{.*}} {causal, transposed}
// CHECK:       attn.async_load_tile %arg1
// CHECK:       attn.program = "grad_kv"
// SM80-LABEL:  func.func @d64_causal
// SM80:        attn.program = "grad_q"
// SM80-NOT:    attn.async_load_tile
// SM80:        attn.program = "grad_kv"
func.func @d64_causal(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                      %dq: !t, %dk: !t, %dv: !t, %delta: !r, %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%s) {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// D = 128, causal. On wgmma grad_kv's two loops (masked, then unmasked)
// run over (query head, query block) pairs, the second counting on from
// the first's bound, so both copy Q and dO ahead on per-slot barriers (a
// producer warpgroup takes the copies later). On mma.sync the masked
// (diagonal) loop loads Q and dO where it uses them and the unmasked loop
// after it copies them ahead.
!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
// CHECK-LABEL: func.func @d128_causal
// CHECK:       attn.program = "grad_q"
// CHECK:       scf.for %{{.*}} = %c0 to %[[MID:[^ ]*]] step
// CHECK-NOT:     attn.load_tile %arg1
// CHECK:         attn.ring_wait
// CHECK:         attn.mask {{.*}} {causal, transposed}
// CHECK:         attn.ring_release
// CHECK:       attn.async_load_tile %arg1
// CHECK-NEXT:  attn.async_arrive
// CHECK:       scf.for %{{.*}} = %[[MID]] to
// CHECK:         attn.async_load_tile %arg1
// CHECK:         attn.ring_wait
// CHECK-NOT:     attn.mask
// CHECK-NOT:   attn.async_commit
// CHECK:       attn.program = "grad_kv"
// SM80-LABEL:  func.func @d128_causal
// SM80:        attn.program = "grad_q"
// SM80-NOT:    attn.async_load_tile
// SM80:        attn.load_tile %arg1
// SM80-NEXT:   attn.load_tile %arg0
// SM80-NOT:    attn.async_load_tile
// SM80:        attn.mask {{.*}} {causal, transposed}
// SM80:        attn.async_load_tile %arg1
// SM80-NEXT:   attn.async_load_tile %arg0
// SM80:        scf.for
// SM80:        attn.async_load_tile %arg1
// SM80:        attn.program = "grad_kv"
func.func @d128_causal(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                       %dq: !t, %dk: !t, %dv: !t, %delta: !r, %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%s) {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// D = 128 without the mask on wgmma: grad_kv is one loop over (query head,
// query block) pairs, so its rings continue from one head to the next and
// take per-slot barriers (its two warpgroups); grad_q's 128 queries (two
// warpgroups) take them as well: its K and V rings on per-slot barriers,
// Q and dO (the loop's copy; Δ reads its own) one-slot rings filled once.
// K and V of grad_kv become one-slot rings filled once.
!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
// CHECK-LABEL: func.func @d128
// CHECK:       scf.forall
// CHECK:       attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16
// CHECK:       attn.alloc_ring : !attn.ring<1, tensor<128x128xbf16
// CHECK:       attn.async_load_tile %arg1
// CHECK-NEXT:  attn.async_arrive
// CHECK:       attn.alloc_ring : !attn.ring<1, tensor<128x128xbf16
// CHECK:       attn.async_load_tile %arg0
// CHECK-NEXT:  attn.async_arrive
// CHECK:       attn.ring_acquire
// CHECK:       attn.ring_wait
// CHECK:       scf.for
// CHECK:         attn.ring_wait
// CHECK:         attn.ring_release
// CHECK-NOT:   attn.async_commit
// CHECK:       attn.program = "grad_q"
// CHECK:       attn.alloc_ring : !attn.ring<1, tensor<128x128xbf16
// CHECK:       attn.async_load_tile %arg2
// CHECK-NEXT:  attn.async_arrive
// CHECK-NOT:   attn.async_commit
// CHECK:       scf.for %[[T:.*]] = %c0 to
// CHECK:         arith.divui %[[T]]
// CHECK:         arith.remui %[[T]]
// CHECK:         attn.ring_wait
// CHECK-NOT:     scf.for
// CHECK:         attn.ring_release
// CHECK-NOT:   attn.async_commit
// CHECK:       attn.program = "grad_kv"
// SM80-LABEL:  func.func @d128
// SM80-NOT:    attn.ring_wait
// SM80:        return
func.func @d128(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                %dq: !t, %dk: !t, %dv: !t, %delta: !r, %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%s)
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
