// The bundle attn-bundle writes for the runtime: per (dtype, head dim,
// causal), a kernel with and one without the LSE, both in the memref kernel
// ABI (runtime/include/attn/runtime/KernelABI.h), named after their
// configuration.
// RUN: rm -rf %t && attn-bundle --out-dir %t --chips sm_80 --dtypes bf16 --head-dims 64
// RUN: FileCheck %s --implicit-check-not=sass= < %t/manifest.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/attn_fwd_bf16_d64_nolse_kernel.sm_80.ptx
// Without --ptxas the bundle is PTX only: no sass= keys (the implicit
// CHECK-NOT scans the whole manifest).
// CHECK: # PTX only: the driver JIT-compiles each kernel on first use.
// CHECK: kernel name=attn_fwd_bf16_d64_kernel ptx=attn_fwd_bf16_d64_kernel.sm_80.ptx chip=sm_80 dtype=bf16 head_dim=64 head_dim_v=64 causal=0 block_m=128 block_n=64 threads=128 smem={{[0-9]+}} abi=memref lse=1
// CHECK: kernel name=attn_fwd_bf16_d64_nolse_kernel {{.*}} causal=0 {{.*}} abi=memref lse=0
// CHECK: kernel name=attn_fwd_bf16_d64_causal_kernel {{.*}} causal=1 {{.*}} abi=memref lse=1
// CHECK: kernel name=attn_fwd_bf16_d64_causal_nolse_kernel {{.*}} causal=1 {{.*}} abi=memref lse=0 grid=q_blocks,heads_q,batch{{$}}
// The split-KV pair says what it is and the grid it is launched on.
// CHECK: kernel name=attn_split_bf16_d64_kernel {{.*}} lse=1 program=split_kv grid=q_blocks*splits,heads_q,batch{{$}}
// CHECK: kernel name=attn_split_bf16_d64_causal_kernel {{.*}} causal=1 {{.*}} program=split_kv grid=q_blocks*splits,heads_q,batch{{$}}
// The merge counts its column blocks (16 columns of O each) in x.
// CHECK: kernel name=attn_merge_bf16_d64_kernel {{.*}} lse=1 program=merge_splits grid=q_blocks*4,heads_q,batch{{$}}
// CHECK: kernel name=attn_merge_bf16_d64_nolse_kernel {{.*}} lse=0 program=merge_splits grid=q_blocks*4,heads_q,batch{{$}}
// On sm_90a the D = 128 kernels read Q, K and V with bulk tensor copies:
// their lines name the tensor maps the launcher appends (argument:box rows).
// They are persistent (launched as min(SMs, tiles) blocks looping over the
// grid of tiles) and claim their tiles at run time, causal or not (dynamic:
// the launcher passes a tile counter).
// RUN: rm -rf %t90 && attn-bundle --out-dir %t90 --chips sm_90a --dtypes bf16 --head-dims 128
// RUN: FileCheck %s --check-prefix=SM90 < %t90/manifest.txt
// SM90: kernel name=attn_fwd_bf16_d128_kernel {{.*}} chip=sm_90a {{.*}} threads=384 {{.*}} abi=memref lse=1 tensor_maps=0:128,1:128,2:128 grid=dynamic(q_blocks,heads_q,batch){{$}}
// Beside each forward its twin for at most 64 query rows (a decode step's
// packed heads, a few speculated tokens): 64 rows, one warpgroup on its own
// copies.
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_q64_kernel {{.*}} block_m=64 block_n=128 threads=128 {{.*}} lse=1 grid=q_blocks,heads_q,batch max_seq_q=64{{$}}
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_nolse_kernel {{.*}} lse=0 tensor_maps=0:128,1:128,2:128 grid=dynamic(q_blocks,heads_q,batch){{$}}
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_nolse_q64_kernel {{.*}} block_m=64 {{.*}} lse=0 {{.*}} max_seq_q=64{{$}}
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_causal_kernel {{.*}} grid=dynamic(q_blocks,heads_q,batch){{$}}
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_causal_q64_kernel {{.*}} causal=1 block_m=64 {{.*}} max_seq_q=64{{$}}
// The split-KV pair waits for the grid before it (launched under its tail:
// pdl=1); sm_80's pair above has no such key. Without the causal mask the
// split kernel's one warpgroup (64 rows) issues its own copies of 32 KiB
// tiles (128 threads, no tensor maps); causal, a producer's bulk copies.
// SM90: kernel name=attn_split_bf16_d128_kernel {{.*}} block_m=64 block_n=128 threads=128 {{.*}} lse=1 program=split_kv grid=q_blocks*splits,heads_q,batch pdl=1{{$}}
// SM90-NEXT: kernel name=attn_split_bf16_d128_causal_kernel {{.*}} threads=256 {{.*}} tensor_maps=0:64,1:128,2:128 program=split_kv
// SM90: kernel name=attn_merge_bf16_d128_kernel {{.*}} program=merge_splits grid=q_blocks*8,heads_q,batch pdl=1{{$}}
// Over a KV cache the forward has its 64-row twin too.
// SM90: kernel name=attn_fwd_bf16_d128_seqlens_kernel {{.*}} block_m=128 block_n=64 {{.*}} kv=seqlens
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_seqlens_q64_kernel {{.*}} block_m=64 block_n=64 {{.*}} kv=seqlens grid=q_blocks,heads_q,batch max_seq_q=64{{$}}
// SM90: kernel name=attn_fwd_bf16_d128_paged_kernel {{.*}} block_m=128 block_n=64 {{.*}} kv=paged
// SM90-NEXT: kernel name=attn_fwd_bf16_d128_paged_q64_kernel {{.*}} block_m=64 block_n=64 {{.*}} kv=paged grid=q_blocks,heads_q,batch max_seq_q=64{{$}}
// SM90-NOT: paged16_q64
// The kernel without LSE takes q, k, v, o (4 x 11 descriptor fields) and
// the scale: 45 parameters.
// PTX: .entry attn_fwd_bf16_d64_nolse_kernel(
// PTX: attn_fwd_bf16_d64_nolse_kernel_param_44
// PTX-NOT: attn_fwd_bf16_d64_nolse_kernel_param_45

// fp8 (e4m3) is the dense forward of the chips with warpgroup products, at
// head dims of whole 64-byte slabs: with sm_80 asked for too, the set has
// only the four sm_90a forwards of each head dim, dtype=e4m3, no split-KV
// pair and no KV-cache kernels. At D = 64 Q's and K's rows are one 64-byte
// slab (their tensor maps' boxes say :64; Vᵀ's rows of 256 keys are 128-byte
// slabs); every grid claims its tiles (dynamic). Each takes V
// transposed and, after the scale, the three descale factors: 4 x 11 + 9 +
// 1 + 3 = 57 parameters with the LSE, then its three tensor maps (params
// 57-59) and the tile counter (param 60, a global pointer).
// RUN: rm -rf %t8 && attn-bundle --out-dir %t8 --chips sm_80,sm_90a --dtypes e4m3 --head-dims 64,128
// RUN: FileCheck %s --check-prefix=FP8 --implicit-check-not="kernel name" < %t8/manifest.txt
// RUN: FileCheck %s --check-prefix=FP8PTX < %t8/attn_fwd_e4m3_d128_kernel.sm_90a.ptx
// FP8: kernel name=attn_fwd_e4m3_d64_kernel {{.*}} chip=sm_90a dtype=e4m3 head_dim=64 head_dim_v=64 causal=0 block_m=128 block_n=256 threads=384 {{.*}} lse=1 tensor_maps=0:128:64,1:256:64,2:64 grid=dynamic(q_blocks,heads_q,batch){{$}}
// FP8: kernel name=attn_fwd_e4m3_d64_nolse_kernel {{.*}} dtype=e4m3 {{.*}} lse=0
// FP8: kernel name=attn_fwd_e4m3_d64_causal_kernel {{.*}} dtype=e4m3 {{.*}} causal=1 {{.*}} grid=dynamic(q_blocks,heads_q,batch){{$}}
// FP8: kernel name=attn_fwd_e4m3_d64_causal_nolse_kernel {{.*}} dtype=e4m3 {{.*}} lse=0
// FP8: kernel name=attn_fwd_e4m3_d128_kernel {{.*}} chip=sm_90a dtype=e4m3 head_dim=128 head_dim_v=128 causal=0 block_m=128 block_n=256 threads=384 {{.*}} lse=1 tensor_maps=0:128,1:256,2:128 grid=dynamic(q_blocks,heads_q,batch){{$}}
// FP8: kernel name=attn_fwd_e4m3_d128_nolse_kernel {{.*}} dtype=e4m3 {{.*}} lse=0
// FP8: kernel name=attn_fwd_e4m3_d128_causal_kernel {{.*}} dtype=e4m3 {{.*}} causal=1 {{.*}} grid=dynamic(q_blocks,heads_q,batch){{$}}
// FP8: kernel name=attn_fwd_e4m3_d128_causal_nolse_kernel {{.*}} dtype=e4m3 {{.*}} lse=0
// FP8PTX: .entry attn_fwd_e4m3_d128_kernel(
// FP8PTX: .param .f32 attn_fwd_e4m3_d128_kernel_param_53,
// FP8PTX: .param .f32 attn_fwd_e4m3_d128_kernel_param_54,
// FP8PTX: .param .f32 attn_fwd_e4m3_d128_kernel_param_55,
// FP8PTX: .param .f32 attn_fwd_e4m3_d128_kernel_param_56,
// FP8PTX: .param .align 64 .b8 attn_fwd_e4m3_d128_kernel_param_59[128]
// FP8PTX: .param .u64 .ptr .global .align 1 attn_fwd_e4m3_d128_kernel_param_60
// FP8PTX-NOT: attn_fwd_e4m3_d128_kernel_param_61

// A problem written as IR with ALiBi (examples/attention-alibi.mlir): its
// line says alibi=1 (the runtime serves it only to ALiBi problems), and the
// kernel takes the slopes [Hq] (5 parameters) just before the scale: q, k,
// v, o (44), the LSE (9), the slopes (params 53-57), the scale (58).
// RUN: rm -rf %tal && attn-bundle --out-dir %tal --chips sm_90a %attn_src_root/examples/attention-alibi.mlir
// RUN: FileCheck %s --check-prefix=ALIBI < %tal/manifest.txt
// RUN: FileCheck %s --check-prefix=ALIBIPTX < %tal/attn_fwd_bf16_d128_causal_alibi_kernel.sm_90a.ptx
// ALIBI: kernel name=attn_fwd_bf16_d128_causal_alibi_kernel {{.*}} causal=1 {{.*}} lse=1 {{.*}} alibi=1{{$}}
// ALIBIPTX: .param .u64 .ptr .align 1 attn_fwd_bf16_d128_causal_alibi_kernel_param_53,
// ALIBIPTX: .param .u64 attn_fwd_bf16_d128_causal_alibi_kernel_param_57,
// ALIBIPTX: .param .f32 attn_fwd_bf16_d128_causal_alibi_kernel_param_58,

// A problem written as IR with a score bias (examples/attention-bias.mlir):
// its line says bias=bf16 (the runtime serves it only to problems with a
// bf16 bias), and the kernel takes the bias [1|B, 1|Hq, Nq, Nk] (11
// parameters) just before the scale: q, k, v, o (44), the LSE (9), the bias
// (params 53-63: pointers, offset, four sizes, four strides), the scale (64).
// On sm_90a it reads the bias by bulk copies: a tensor map of memref
// argument 5 (128 rows of one 128-byte slab: 64 keys) among those of q, k
// and v (128-key blocks), which serves biases of 16-byte aligned rows;
// beside it the same problem with the bias read element by element
// ("_unaligned": no map of the bias, 64-key blocks) serves the rest.
// RUN: rm -rf %tbi && attn-bundle --out-dir %tbi --chips sm_90a %attn_src_root/examples/attention-bias.mlir
// RUN: FileCheck %s --check-prefix=BIAS < %tbi/manifest.txt
// RUN: FileCheck %s --check-prefix=BIASPTX < %tbi/attn_fwd_bf16_d128_bias_kernel.sm_90a.ptx
// BIAS: kernel name=attn_fwd_bf16_d128_bias_kernel {{.*}} causal=0 {{.*}} block_n=128 {{.*}} lse=1 tensor_maps=0:128,1:128,5:128,2:128 {{.*}} bias=bf16{{$}}
// BIAS-NEXT: kernel name=attn_fwd_bf16_d128_bias_unaligned_kernel {{.*}} causal=0 {{.*}} lse=1 tensor_maps=0:128,1:64,2:64 {{.*}} bias=bf16{{$}}
// BIASPTX: .param .u64 .ptr .align 1 attn_fwd_bf16_d128_bias_kernel_param_53,
// BIASPTX: .param .u64 attn_fwd_bf16_d128_bias_kernel_param_63,
// BIASPTX: .param .f32 attn_fwd_bf16_d128_bias_kernel_param_64,

// A problem written as IR with dropout (examples/attention-dropout.mlir):
// its line says dropout=1, and the kernel takes, after q, k, v, o (44), the
// LSE (9) and the scale (53), the rate (54, f32), the Philox key (55, 64-bit)
// and the offset (56, 32-bit), then its tensor maps.
// RUN: rm -rf %tdr && attn-bundle --out-dir %tdr --chips sm_90a %attn_src_root/examples/attention-dropout.mlir
// RUN: FileCheck %s --check-prefix=DROPOUT < %tdr/manifest.txt
// RUN: FileCheck %s --check-prefix=DROPOUTPTX < %tdr/attn_fwd_bf16_d128_dropout_kernel.sm_90a.ptx
// DROPOUT: kernel name=attn_fwd_bf16_d128_dropout_kernel {{.*}} causal=0 {{.*}} lse=1 {{.*}} dropout=1{{$}}
// DROPOUTPTX: .param .f32 attn_fwd_bf16_d128_dropout_kernel_param_53,
// DROPOUTPTX: .param .f32 attn_fwd_bf16_d128_dropout_kernel_param_54,
// DROPOUTPTX: .param .u64 attn_fwd_bf16_d128_dropout_kernel_param_55,
// DROPOUTPTX: .param .u32 attn_fwd_bf16_d128_dropout_kernel_param_56,
// DROPOUTPTX: .param .align 64 .b8 attn_fwd_bf16_d128_dropout_kernel_param_57[128]
