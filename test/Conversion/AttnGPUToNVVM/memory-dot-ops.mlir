// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Shared-memory tiles and attn.dot on mma.sync, one warp (16-row tiles).

#mma = #attn.mma<warps = 1>
#sh = #attn.shared<swizzle = 8, pad = 0>

// load_tile into #attn.shared: a barrier (earlier readers done), 16-byte
// cp.async chunks zero-filled past `rows` (Q: a run-time count; K's constant
// count covers the tile, so its copies have no source size), commit, wait
// 0, barrier. The allocation puts Q at 0 and K at 16·64·2 = 2048 bytes.
// S = Q·Kᵀ over K = 64 columns: 4 k-steps; per k-step one ldmatrix.x4 of A
// and, per pair of n-tiles, one ldmatrix.x4 of B and 2 mma.sync.
// CHECK-LABEL: gpu.func @qk_kernel
// CHECK-SAME:    attn.kernel = #attn.kernel_info<block_m = 16, block_n = 16, threads = 32, smem_bytes = 4096, head_dim = 64, head_dim_v = 0, dtype = "bf16", causal = false>
// CHECK:         nvvm.barrier0
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} :
// CHECK:         nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 0
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         nvvm.barrier0
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK:         nvvm.cp.async.commit.group
// CHECK-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-NOT:     nvvm.mma.sync
func.func @qk(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %s: memref<?x16xf32>, %nq: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %nq : memref<?x64xbf16> -> tensor<16x64xbf16, #sh>
    %kt = attn.load_tile %k[%c0] rows %c16 : memref<?x64xbf16> -> tensor<16x64xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %st = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<16x64xbf16, #sh>, tensor<16x64xbf16, #sh> -> tensor<16x16xf32, #mma>
    attn.store_tile %st, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#sh = #attn.shared<swizzle = 8, pad = 0>

// O += P·V: P is an f32 accumulator truncated to bf16 in registers (the
// mma layout is the A operand layout: packed pairs, no ldmatrix); V is read
// with ldmatrix.trans. P: 16x16 -> 1 k-step; V: 16x64 -> 8 n-tiles.
// CHECK-LABEL: gpu.func @pv_kernel
// CHECK:         arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK:         llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT:     nvvm.mma.sync
// f32 -> bf16 stores of pairs (4 bytes).
// CHECK:         arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK:         llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
func.func @pv(%p: memref<?x16xf32>, %v: memref<?x64xbf16>, %o: memref<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %pf = attn.load_tile %p[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %pt = arith.truncf %pf : tensor<16x16xf32, #mma> to tensor<16x16xbf16, #mma>
    %vt = attn.load_tile %v[%c0] rows %c16 : memref<?x64xbf16> -> tensor<16x64xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
    %ot = attn.dot %pt, %vt, %z : tensor<16x16xbf16, #mma>, tensor<16x64xbf16, #sh> -> tensor<16x64xf32, #mma>
    attn.store_tile %ot, %o[%c0] rows %c16 : tensor<16x64xf32, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
#sh = #attn.shared<swizzle = 0, pad = 16>

// convert_layout #shared -> #mma: ldmatrix.x4 (row) per (m-tile, k-step):
// 16x32 -> 2 k-steps; the padded layout (rows of 64 + 16 bytes) addresses
// with one lane base.
// CHECK-LABEL: gpu.func @to_registers_kernel
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK-NOT:     nvvm.ldmatrix
func.func @to_registers(%q: memref<?x32xf16>, %o: memref<?x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %c16 : memref<?x32xf16> -> tensor<16x32xf16, #sh>
    %qr = attn.convert_layout %qt : tensor<16x32xf16, #sh> -> tensor<16x32xf16, #mma>
    attn.store_tile %qr, %o[%c0] rows %c16 : tensor<16x32xf16, #mma>, memref<?x32xf16>
  }
  return
}

// -----

#sh = #attn.shared<swizzle = 8, pad = 0>
#mma = #attn.mma<warps = 1>

// The ring: alloc_ring is an offset in shared memory, ring_slot adds
// slot · slot bytes (16·64·2 = 2048), async_load_tile issues cp.async with
// no wait, async_commit/async_wait are commit_group / wait_group N + barrier.
// CHECK-LABEL: gpu.func @ring_kernel
// CHECK-SAME:    smem_bytes = 4096
// CHECK:         nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.wait.group 1
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         arith.muli %{{.*}}, %c2048_i32
func.func @ring(%k: memref<?x64xbf16>, %o: memref<?x64xbf16>, %slot: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_load_tile %k[%c0] rows %c16, %r[%slot] : memref<?x64xbf16>, !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_commit
    attn.async_wait 1
    %t = attn.ring_slot %r[%slot] : !attn.ring<2, tensor<16x64xbf16, #sh>>
    %tr = attn.convert_layout %t : tensor<16x64xbf16, #sh> -> tensor<16x64xbf16, #mma>
    attn.store_tile %tr, %o[%c0] rows %c16 : tensor<16x64xbf16, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#sh = #attn.shared<swizzle = 8, pad = 0>
#mma = #attn.mma<warps = 4>

// 64 rows of 256 bf16 (32 chunks of 16 bytes) over 128 threads: 4 rows per
// pass, so pass p's swizzle term is (r0 + 4p) mod 8, one of two values. The
// copy addresses from two lane bases, rows r0 and r0 + 4, plus an
// immediate (p - p mod 2) * 4 rows * 512 bytes, instead of 16 swizzled
// addresses kept live.
// CHECK-LABEL: gpu.func @ring_lane_bases_kernel
// CHECK:         %[[B0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:         nvvm.cp.async.shared.global %[[B0]], %{{.*}}, 16
// CHECK:         %[[B1:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:         nvvm.cp.async.shared.global %[[B1]], %{{.*}}, 16
// CHECK:         %[[P2:.*]] = llvm.getelementptr %[[B0]][4096]
// CHECK:         nvvm.cp.async.shared.global %[[P2]],
// CHECK:         %[[P3:.*]] = llvm.getelementptr %[[B1]][4096]
// CHECK:         nvvm.cp.async.shared.global %[[P3]],
// CHECK-COUNT-10: nvvm.cp.async.shared.global
// CHECK:         %[[P14:.*]] = llvm.getelementptr %[[B0]][28672]
// CHECK:         nvvm.cp.async.shared.global %[[P14]],
// CHECK:         %[[P15:.*]] = llvm.getelementptr %[[B1]][28672]
// CHECK:         nvvm.cp.async.shared.global %[[P15]],
// CHECK-NOT:     nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.commit.group
func.func @ring_lane_bases(%k: memref<?x256xbf16>, %o: memref<?x256xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<1, tensor<64x256xbf16, #sh>>
    attn.async_load_tile %k[%c0] rows %c64, %r[%c0] : memref<?x256xbf16>, !attn.ring<1, tensor<64x256xbf16, #sh>>
    attn.async_commit
    attn.async_wait 0
    %t = attn.ring_slot %r[%c0] : !attn.ring<1, tensor<64x256xbf16, #sh>>
    %tr = attn.convert_layout %t : tensor<64x256xbf16, #sh> -> tensor<64x256xbf16, #mma>
    attn.store_tile %tr, %o[%c0] rows %c64 : tensor<64x256xbf16, #mma>, memref<?x256xbf16>
  }
  return
}

// -----

// A row stride known only at run time (the runtime's memrefs) is recorded in
// attn.kernel for attn-gpu-module-to-binary.
// CHECK-LABEL: gpu.func @strided_kernel
// CHECK-SAME:    dynamic_row_stride = true
#sh = #attn.shared<swizzle = 8, pad = 0>
#mma = #attn.mma<warps = 1>
func.func @strided(%k: memref<?x64xbf16, strided<[?, 1], offset: ?>>, %s: memref<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %kt = attn.load_tile %k[%c0] rows %c16 : memref<?x64xbf16, strided<[?, 1], offset: ?>> -> tensor<16x64xbf16, #sh>
    %r = attn.convert_layout %kt : tensor<16x64xbf16, #sh> -> tensor<16x64xbf16, #mma>
    attn.store_tile %r, %s[%c0] rows %c16 : tensor<16x64xbf16, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#sh = #attn.shared<swizzle = 8, pad = 0>
#mma = #attn.mma<warps = 1>

// Rows gathered from pages (`pages`): 16 rows of 64 bf16 (8 chunks a row)
// over 32 threads, 4 rows a pass: each pass looks its row's page up in the
// block table, table[b, (pos + r) / P] with P the source's dim 2 (16), and
// copies from that page's row (pos + r) mod P; rows past `rows` read row
// 0's page and copy 0 bytes (zero-fill).
// CHECK-LABEL: gpu.func @ring_pages_kernel
// CHECK:         %[[SLOT:.*]] = arith.divui %{{.*}}, %c16_i64 : i64
// CHECK:         %[[ROW:.*]] = arith.remui %{{.*}}, %c16_i64 : i64
// CHECK:         %[[PAGE:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK:         %[[SIZE:.*]] = arith.select %{{.*}}, %c16_i32, %c0_i32 : i32
// CHECK-NEXT:    nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{.*}}cg, %[[SIZE]]
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK-NOT:     llvm.load
// CHECK:         nvvm.cp.async.commit.group
func.func @ring_pages(%k: memref<?x4x16x64xbf16>, %t: memref<?x?xi32>,
                      %o: memref<?x64xbf16>, %slot: index, %pos: index,
                      %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_load_tile %k[%b, %h, %pos] rows %n pages(%t : memref<?x?xi32>), %r[%slot] : memref<?x4x16x64xbf16>, !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_commit
    attn.async_wait 0
    %s = attn.ring_slot %r[%slot] : !attn.ring<2, tensor<16x64xbf16, #sh>>
    %sr = attn.convert_layout %s : tensor<16x64xbf16, #sh> -> tensor<16x64xbf16, #mma>
    attn.store_tile %sr, %o[%c0] rows %n : tensor<16x64xbf16, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#sh = #attn.shared<swizzle = 8, pad = 0>
#mma = #attn.mma<warps = 1>

// Packed (position, head) rows (`group`): the base is row p / G of head h,
// and tile row r, k = p + r, is (k / G − p / G) rows and k mod G heads on
// from it; rows past `rows` copy 0 bytes from the base.
// CHECK-LABEL: gpu.func @ring_group_kernel
// CHECK:         %[[G:.*]] = arith.index_cast %arg5 : index to i32
// CHECK:         %[[HS:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK:         %[[P:.*]] = arith.index_cast %arg3 : index to i32
// CHECK:         %[[P0:.*]] = arith.divui %[[P]], %[[G]] : i32
// CHECK:         %[[K:.*]] = arith.addi %[[P]], %{{.*}} : i32
// CHECK:         %[[POS:.*]] = arith.divui %[[K]], %[[G]] : i32
// CHECK:         arith.subi %[[POS]], %[[P0]] : i32
// CHECK:         %[[HEAD:.*]] = arith.remui %[[K]], %[[G]] : i32
// CHECK:         arith.muli %[[HEAD]], %[[HS]] : i32
// CHECK:         nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.commit.group
func.func @ring_group(%q: memref<?x?x?x64xbf16>, %o: memref<?x64xbf16>,
                      %slot: index, %p: index, %n: index, %g: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_load_tile %q[%b, %h, %p] rows %n group(%g), %r[%slot] : memref<?x?x?x64xbf16>, !attn.ring<2, tensor<16x64xbf16, #sh>>
    attn.async_commit
    attn.async_wait 0
    %s = attn.ring_slot %r[%slot] : !attn.ring<2, tensor<16x64xbf16, #sh>>
    %sr = attn.convert_layout %s : tensor<16x64xbf16, #sh> -> tensor<16x64xbf16, #mma>
    attn.store_tile %sr, %o[%c0] rows %n : tensor<16x64xbf16, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#mma = #attn.mma<warps = 8, version = 3>
#sh = #attn.shared<swizzle = 8, pad = 0, slab = 128>

// convert_layout from a slab tile to the warpgroup accumulator layout (a
// score bias's [128, 64] window, staged in a ring): each warp's 16 rows by
// ldmatrix.x4, one per 16 columns (a 128-byte slab row is 8 chunks, chunk c
// of row r at c ^ (r % 8): four lane bases, chunk pairs 0, 2, 4, 6 XORed
// into the lane's own), from slot 1 at 128·64·2 = 16384 bytes.
// CHECK-LABEL: gpu.func @window_to_registers_kernel
// CHECK:         %[[SLOT:.+]] = llvm.getelementptr %{{.*}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         %[[Y:.+]] = arith.xori
// CHECK-COUNT-3: arith.xori %[[Y]], %c{{[246]}}_i32 : i32
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
func.func @window_to_registers(%o: memref<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<2, tensor<128x64xbf16, #sh>>
    %t = attn.ring_slot %r[%c1] : !attn.ring<2, tensor<128x64xbf16, #sh>>
    %w = attn.convert_layout %t : tensor<128x64xbf16, #sh> -> tensor<128x64xbf16, #mma>
    attn.store_tile %w, %o[%c0] rows %c128 : tensor<128x64xbf16, #mma>, memref<?x64xbf16>
  }
  return
}

// -----

#mma = #attn.mma<warps = 8, version = 3>
#sh = #attn.shared<swizzle = 8, pad = 0, slab = 128>

// An f32 window (a score bias's [128, 64] block: two 128-byte slabs of 32
// columns) into the accumulator layout: no ldmatrix (16-bit only), one
// 8-byte load per n-tile and row half (8 n-tiles x 2 = 16), each of chunk
// ((2n mod 8) + q / 2) ^ g of slab n / 4 (four swizzled chunk offsets), the
// second slab 128·128 = 16384 bytes on.
// CHECK-LABEL: gpu.func @f32_window_to_registers_kernel
// CHECK-NOT:     nvvm.ldmatrix
// CHECK-COUNT-4: arith.xori
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<3>
func.func @f32_window_to_registers(%o: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !attn.ring<2, tensor<128x64xf32, #sh>>
    %t = attn.ring_slot %r[%c0] : !attn.ring<2, tensor<128x64xf32, #sh>>
    %w = attn.convert_layout %t : tensor<128x64xf32, #sh> -> tensor<128x64xf32, #mma>
    attn.store_tile %w, %o[%c0] rows %c128 : tensor<128x64xf32, #mma>, memref<?x64xf32>
  }
  return
}
