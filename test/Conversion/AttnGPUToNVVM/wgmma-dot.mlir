// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize -verify-diagnostics | FileCheck %s

// attn.dot on Hopper's warpgroup MMA, one warpgroup (64-row tiles).
// Shared tiles in 128-byte slabs sit at 1024-byte aligned offsets (Q at 0,
// K at 8192, V at 16384) and the kernel's dynamic shared memory is aligned
// to 1024. Every cp.async group is fenced into the async proxy before the
// barrier that publishes it.
//
// S = Q·Kᵀ (K = 64: 4 k-steps of m64n64k16, both operands by descriptor;
// the zero accumulator is not read: scale-d = 0 in the first step). Each
// operand's descriptor is built once per dot from the tile's address; a
// k-step adds its byte offset >> 4 to the low word (Q and K: 32 bytes
// further, + 2). The high word is fixed: swizzle 128 B (1 << 62) | stride
// 1024 >> 4 at bit 32 = 4611686293305294848; V (N-major) has the leading
// offset 64 rows · 128 B = 8192 >> 4 at bit 16 of the low word: 33554432.
// O = P·V: P (the truncated scores, in the accumulator layout) from
// registers, one wgmma per k-step as inline PTX (MLIR's nvvm op takes
// descriptors only), imm-trans-b = 1 (V is N-major).
// CHECK-LABEL: gpu.module @attn_kernels
// CHECK:         llvm.mlir.global external @attn_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @qk_pv_kernel
// CHECK-SAME:    threads = 128, smem_bytes = 32768
// CHECK-DAG:     %[[VLEAD:.*]] = arith.constant 33554432 : i32
// CHECK-DAG:     %[[HI:.*]] = llvm.mlir.constant(4611686293305294848 : i64) : i64
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    nvvm.barrier0
// The warpgroup (Q's rows) is tid / 128 broadcast from lane 0: ptxas then
// knows it warp-uniform and keeps Q's descriptors in uniform registers.
// CHECK:         %[[TID:.*]] = arith.divui %{{.*}}, %c128_i32 : i32
// CHECK-NEXT:    nvvm.shfl.sync  idx %c-1_i32, %[[TID]], %c0_i32, %c31_i32 : i32 -> i32
// Every register a wgmma reads is defined above its fence: the values pass
// through an empty side-effecting inline asm first (the 32 accumulators of
// S, zeros included; then O's 64 and P's 16 packed registers).
// CHECK:         llvm.inline_asm has_side_effects "", "{{(=f,)+([0-9]+,)+}}31" {{.*}} -> !llvm.struct<({{(f32, )+}}f32)>
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         %[[KLO:.*]] = llvm.lshr %{{.*}}, %c4_i32 : i32
// CHECK:         %[[KW:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[K0:.*]] = llvm.or %[[KW]], %[[HI]] : i64
// CHECK:         nvvm.wgmma.mma_async %{{.*}}, %[[K0]], %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:         llvm.add %{{.*}}, %c2_i32 : i32
// CHECK-NOT:     llvm.ptrtoint
// CHECK:         nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-2: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         arith.truncf %{{.*}} : vector<32xf32> to vector<32xbf16>
// CHECK:         llvm.inline_asm has_side_effects "", "{{(=f,)+(=r,)+([0-9]+,)+}}79" {{.*}} -> !llvm.struct<({{(f32, )+(i32, )+}}i32)>
// CHECK-NOT:     llvm.bitcast
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         llvm.or %{{.*}}, %[[VLEAD]] : i32
// CHECK:         llvm.or %{{.*}}, %[[HI]] : i64
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, {$128, $129, $130, $131}, $132, $133, 1, 1, 1;", "{{(=f,)+}}{{([0-9]+,)+}}r,r,r,r,l,b"
// CHECK-COUNT-3: llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT:     llvm.inline_asm
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:     nvvm.mma.sync
#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @qk_pv(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %v: memref<?x128xbf16>, %o: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xbf16> -> tensor<64x64xbf16, #sl>
    %kt = attn.load_tile %k[%c0] rows %c64 : memref<?x64xbf16> -> tensor<64x64xbf16, #sl>
    %vt = attn.load_tile %v[%c0] rows %c64 : memref<?x128xbf16> -> tensor<64x128xbf16, #sl>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<64x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<64x64xf32, #acc>
    %p = arith.truncf %s : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
    %a = arith.constant dense<1.0> : tensor<64x128xf32, #acc>
    %r = attn.dot %p, %vt, %a : tensor<64x64xbf16, #acc>, tensor<64x128xbf16, #sl> -> tensor<64x128xf32, #acc>
    attn.store_tile %r, %o[%c0] rows %n : tensor<64x128xf32, #acc>, memref<?x128xf32>
  }
  return
}

// -----

// fp8: P = truncf(S) converts each pair of elements (one row's two columns
// of an n-tile) into one 16-bit value; the A fragment of O = P·Vᵀ takes
// two such pairs as a word (no byte moves), two shuffles within the quad
// per row and k-step (an even lane sends U = A | C << 16 first, an odd one
// V = B | D << 16), and one byte permute per register whose selector is
// the lane's: low halves 0x5410 (21520) on lanes 0, 1 and 0x1054 (4180) on
// lanes 2, 3; high halves 0x7632 (30258) and 0x3276 (12918).
// CHECK-LABEL: gpu.func @fp8_pv_kernel
// CHECK-DAG:     %[[HH0:.*]] = arith.constant 30258 : i32
// CHECK-DAG:     %[[HH1:.*]] = arith.constant 12918 : i32
// CHECK-DAG:     %[[LH0:.*]] = arith.constant 21520 : i32
// CHECK-DAG:     %[[LH1:.*]] = arith.constant 4180 : i32
// CHECK:         %[[C:.*]] = nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK-NEXT:    llvm.bitcast %[[C]] : vector<2xi8> to i16
// CHECK:         %[[PAIRS:.*]] = vector.from_elements %{{.*}} : vector<32xi16>
// CHECK:         %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK-NEXT:    %[[LOW:.*]] = arith.cmpi ult, %{{.*}}, %c2_i32 : i32
// CHECK:         %[[LSEL:.*]] = arith.select %[[LOW]], %[[LH0]], %[[LH1]] : i32
// CHECK-NEXT:    %[[HSEL:.*]] = arith.select %[[LOW]], %[[HH0]], %[[HH1]] : i32
// CHECK-NEXT:    %[[AC:.*]] = vector.shuffle %[[PAIRS]], %[[PAIRS]] [0, 4] : vector<32xi16>, vector<32xi16>
// CHECK-NEXT:    %[[U:.*]] = llvm.bitcast %[[AC]] : vector<2xi16> to i32
// CHECK-NEXT:    %[[BD:.*]] = vector.shuffle %[[PAIRS]], %[[PAIRS]] [2, 6] : vector<32xi16>, vector<32xi16>
// CHECK-NEXT:    %[[V:.*]] = llvm.bitcast %[[BD]] : vector<2xi16> to i32
// CHECK-NEXT:    %[[S1:.*]] = arith.select %[[EVEN]], %[[U]], %[[V]] : i32
// CHECK-NEXT:    %[[R1:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[S1]], %{{.*}}, %c31_i32 : i32 -> i32
// CHECK-NEXT:    %[[S2:.*]] = arith.select %[[EVEN]], %[[V]], %[[U]] : i32
// CHECK-NEXT:    %[[R2:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[S2]], %{{.*}}, %c31_i32 : i32 -> i32
// CHECK-NEXT:    nvvm.prmt <default> %[[LSEL]], %[[R1]], %[[R2]] : i32
// CHECK-NEXT:    nvvm.prmt <default> %[[HSEL]], %[[R1]], %[[R2]] : i32
// Row g + 8: pairs 1, 5 and 3, 7.
// CHECK-NEXT:    vector.shuffle %[[PAIRS]], %[[PAIRS]] [1, 5] : vector<32xi16>, vector<32xi16>
// CHECK:         vector.shuffle %[[PAIRS]], %[[PAIRS]] [3, 7] : vector<32xi16>, vector<32xi16>
// CHECK-NOT:     {{c65535_i32|c-65536_i32}}
// CHECK:         llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
#acc = #attn.mma<warps = 4, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @fp8_pv(%q: memref<?x128xf8E4M3FN>, %k: memref<?x128xf8E4M3FN>, %vt: memref<?x128xf8E4M3FN>, %o: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN, #sl>
    %kt = attn.load_tile %k[%c0] rows %c128 : memref<?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #sl>
    %vtt = attn.load_tile %vt[%c0] rows %c128 : memref<?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #sl>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<64x128xf8E4M3FN, #sl>, tensor<128x128xf8E4M3FN, #sl> -> tensor<64x128xf32, #acc>
    %p = arith.truncf %s : tensor<64x128xf32, #acc> to tensor<64x128xf8E4M3FN, #acc>
    %a = arith.constant dense<1.0> : tensor<64x128xf32, #acc>
    %r = attn.dot %p, %vtt, %a {rhs_transposed} : tensor<64x128xf8E4M3FN, #acc>, tensor<128x128xf8E4M3FN, #sl> -> tensor<64x128xf32, #acc>
    attn.store_tile %r, %o[%c0] rows %n : tensor<64x128xf32, #acc>, memref<?x128xf32>
  }
  return
}

// -----

#acc = #attn.mma<warps = 4, version = 3>
#sh = #attn.shared<swizzle = 8, pad = 0>

// wgmma reads slab tiles only: a whole-row swizzled tile is reported.
func.func @not_slab(%q: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xbf16> -> tensor<64x64xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @+1 {{unsupported: attn.dot on wgmma needs f16/bf16/f8E4M3FN operands, the rhs in #attn.shared slabs, the lhs there or in the accumulator's layout, and f32 accumulators}}
    %s = attn.dot %qt, %qt, %z {rhs_transposed} : tensor<64x64xbf16, #sh>, tensor<64x64xbf16, #sh> -> tensor<64x64xf32, #acc>
    attn.store_tile %s, %o[%c0] rows %n : tensor<64x64xf32, #acc>, memref<?x64xf32>
  }
  return
}
