// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -convert-attn-to-nvvm -verify-diagnostics | FileCheck %s

// The fused tile-level program of a causal bf16 attention (D = 128) becomes
// one kernel: Br = 128 query rows (4 warps of two 16-row m-tiles), Bc = 32
// keys; Q, K, V through cp.async into shared memory, ldmatrix (.trans for V)
// into mma.sync m16n8k16 fragments (Q re-read from shared memory at each
// k-step to leave registers to the two m-tiles), quad shuffles for the row
// max, ex2 for the exponentials. The grid becomes a launch of
// (ceil(Nq/128), Hq, B) blocks of 128 threads with Q + K + V tiles of
// dynamic shared memory.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       func.func @causal
// CHECK:         %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128
// CHECK:         %[[HQ:.*]] = memref.dim %arg0, %c1
// CHECK:         %[[B:.*]] = memref.dim %arg0, %c0
// CHECK:         gpu.launch_func @attn_kernels::@attn_fwd_bf16_d128_m128n32w4qss2_causal blocks in (%[[GX]], %[[HQ]], %[[B]]) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c65536_i32 args(
// CHECK-NOT:     scf.forall
// CHECK:       gpu.module @attn_kernels
// CHECK:         llvm.mlir.global external @attn_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK:         gpu.func @attn_fwd_bf16_d128_m128n32w4qss2_causal(%{{.*}}: !llvm.ptr<1>, {{.*}}, %{{.*}}: f32) kernel attributes {attn.kernel = {block_m = 128 : i64, block_n = 32 : i64, causal = true, dtype = "bf16", head_dim = 128 : i64, smem_bytes = 65536 : i64, threads = 128 : i64}, known_block_size = array<i32: 128, 1, 1>}
// CHECK:           gpu.grid_dim x
// CHECK:           nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK:           nvvm.barrier0
// CHECK:           scf.for
// CHECK:             nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:             nvvm.shfl.sync  bfly
// CHECK:             llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:             nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// The masked segment compares key positions with the causal diagonal.
// CHECK:           scf.for
// CHECK:             arith.cmpi sgt
// CHECK:           llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// CHECK:           gpu.return
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                  %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// f16, D = 64: Bc = 64, the f16 operands are typed f16x2.
// CHECK-LABEL: func.func @f16
// CHECK:         gpu.launch_func @attn_kernels::@attn_fwd_f16_d64_m128n64w4qss2 blocks
// CHECK:       gpu.func @attn_fwd_f16_d64_m128n64w4qss2
// CHECK:         nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT:     nvvm.mma.sync {{.*}}bf16
func.func @f16(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>,
               %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
        memref<?x?x?x64xf16>
  return
}

// -----

func.func @f32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
               %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @+1 {{unsupported: element type 'f32' on the mma.sync path (tensor cores take f16 or bf16)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// D = 96: rows of 12 chunks cannot use the 8-chunk XOR swizzle; they are
// padded by one chunk (208-byte rows), and 128 threads copy 12-chunk rows
// chunk by chunk.
// CHECK-LABEL: func.func @d96
// CHECK:       gpu.func @attn_fwd_bf16_d96_m128n32w4qss2{{.*}}smem_bytes = 53248
func.func @d96(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>,
               %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>,
        memref<?x?x?x96xbf16>
  return
}

// -----

func.func @d40(%q: memref<?x?x?x40xbf16>, %k: memref<?x?x?x40xbf16>,
               %v: memref<?x?x?x40xbf16>, %o: memref<?x?x?x40xbf16>) {
  // expected-error @+1 {{unsupported: head dim 40 on the mma.sync path (supported: multiples of 16 in [32, 256])}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x40xbf16>, memref<?x?x?x40xbf16>, memref<?x?x?x40xbf16>,
        memref<?x?x?x40xbf16>
  return
}

// -----

func.func @dv(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
              %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @+1 {{unsupported: value head dim differs from query head dim on the mma.sync path}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>
  return
}

// -----

// Rows are read as 16-byte chunks: the head dimension must be contiguous.
func.func @strided_head_dim(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 2]>>,
                            %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>,
                            %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{unsupported: the GPU kernel needs the head dimension contiguous (innermost stride 1)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16, strided<[?, ?, ?, 2]>>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// The kernel writes a contiguous [B, Hq, Nq] LSE.
func.func @strided_lse(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                       %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                       %lse: memref<?x?x?xf32, strided<[?, ?, 2]>>) {
  // expected-error @+1 {{unsupported: the GPU kernel writes a contiguous [B, Hq, Nq] LSE}}
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32, strided<[?, ?, 2]>>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}

// -----

// The two-stage K/V ring needs (128 + 4·32)·128·2 = 65536 bytes; this target
// offers 49152 (enough for the tiling's one K and one V block).
func.func @ring_too_big(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                        %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @+1 {{unsupported: the kernel needs 65536 bytes of shared memory (Q block, 2-stage K and V rings), target sm_80 offers 49152; use kv-stages=1 or smaller blocks}}
  attn.attention %q, %k, %v into %o {block_q = 128 : i64, block_kv = 32 : i64,
      target = #attn.target<arch = "sm_80", smem_per_block = 49152, num_sms = 1>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
