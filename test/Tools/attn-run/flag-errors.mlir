// attn-run with bad command-line flags: "attn-run: error: ..." (or the
// command-line parser's message) and exit code 1, before anything is
// compiled or allocated.

// Sizes must be positive.
// RUN: not attn-run --seq-q 0 2>&1 | FileCheck %s --check-prefix=SEQQ0
// SEQQ0: attn-run: error: seq-q must be >= 1, got 0
// RUN: not attn-run --seq-q -5 2>&1 | FileCheck %s --check-prefix=SEQQNEG
// SEQQNEG: attn-run: error: seq-q must be >= 1, got -5
// RUN: not attn-run --seq-k 0 2>&1 | FileCheck %s --check-prefix=SEQK0
// SEQK0: attn-run: error: seq-k must be >= 1, got 0
// RUN: not attn-run --batch 0 2>&1 | FileCheck %s --check-prefix=BATCH0
// BATCH0: attn-run: error: batch must be >= 1, got 0
// RUN: not attn-run --heads 0 2>&1 | FileCheck %s --check-prefix=HEADS0
// HEADS0: attn-run: error: heads must be >= 1, got 0
// RUN: not attn-run --kv-heads 0 2>&1 | FileCheck %s --check-prefix=KVHEADS0
// KVHEADS0: attn-run: error: kv-heads must be >= 1, got 0
// RUN: not attn-run --head-dim 0 2>&1 | FileCheck %s --check-prefix=D0
// D0: attn-run: error: head-dim must be >= 1, got 0
// RUN: not attn-run --head-dim -64 2>&1 | FileCheck %s --check-prefix=DNEG
// DNEG: attn-run: error: head-dim must be >= 1, got -64
// RUN: not attn-run --head-dim-v 0 2>&1 | FileCheck %s --check-prefix=DV0
// DV0: attn-run: error: head-dim-v must be >= 1, got 0

// --more-seq: every length valid, the problem from flags, the CPU path.
// RUN: not attn-run --seq-q 4 --more-seq 17,0 2>&1 | FileCheck %s --check-prefix=MORE0
// MORE0: attn-run: error: --more-seq 0: seq-q must be >= 1, got 0
// RUN: not attn-run %attn_src_root/examples/attention.mlir --more-seq 17 2>&1 | FileCheck %s --check-prefix=MOREFILE
// MOREFILE: attn-run: error: --more-seq needs the problem from flags, not an input file
// RUN: not attn-run --target gpu --more-seq 17 2>&1 | FileCheck %s --check-prefix=MOREGPU
// MOREGPU: attn-run: error: --more-seq is for the CPU path (--target cpu)

// GQA/MQA: Hq must be a multiple of Hkv.
// RUN: not attn-run --heads 6 --kv-heads 4 2>&1 | FileCheck %s --check-prefix=GQA
// GQA: attn-run: error: heads (6) must be a multiple of kv-heads (4)
// RUN: not attn-run --heads 2 --kv-heads 4 2>&1 | FileCheck %s --check-prefix=GQA2
// GQA2: attn-run: error: heads (2) must be a multiple of kv-heads (4)

// Problems too large to address.
// RUN: not attn-run --seq-q 10000000000 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not attn-run --batch 100000 --heads 100000 --seq-q 100000 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: attn-run: error: problem too large: a tensor would exceed 2^31-1 elements
// Problems whose host buffers exceed the memory limit are refused before
// compiling: the default limit is physical memory less 1/8, which a test
// cannot rely on, so these set it.
// RUN: not attn-run --seq-q 100000 --host-memory-limit 100 2>&1 | FileCheck %s --check-prefix=HOSTMEM --implicit-check-not=seed=
// HOSTMEM: attn-run: error: problem too large for this machine: its host buffers need 0.2 GiB, but --host-memory-limit allows 0.1 GiB
// RUN: not attn-run %attn_src_root/examples/attention.mlir --heads 8 --seq-q 8192 --check --host-memory-limit 100 2>&1 | FileCheck %s --check-prefix=HOSTMEMFILE
// HOSTMEMFILE: attn-run: error: problem too large for this machine: its host buffers need {{.*}} GiB, but --host-memory-limit allows 0.1 GiB
// RUN: not attn-run --seq-q 99999999999999999999 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: for the --seq-q option: '99999999999999999999' value invalid for long argument!

// Element types and targets.
// RUN: not attn-run --dtype f8 2>&1 | FileCheck %s --check-prefix=F8
// F8: attn-run: error: unknown --dtype 'f8' (expected f32, f16, bf16 or e4m3)
// fp8 is the GPU runtime's dense forward: not on the CPU path, not with a
// KV cache, a window, a soft-cap or this tool's own kernel, not from a file.
// RUN: not attn-run --dtype e4m3 --target cpu 2>&1 | FileCheck %s --check-prefix=E4M3
// E4M3: attn-run: error: unsupported: --dtype e4m3 on the CPU path (fp8 attention lowers to sm_90a's wgmma only): use --target gpu
// RUN: not attn-run --dtype e4m3 --head-dim 128 --softcap 50 2>&1 | FileCheck %s --check-prefix=E4M3CAP
// E4M3CAP: attn-run: error: unsupported: --softcap with --dtype e4m3 (fp8 has the runtime's dense forward only)
// RUN: not attn-run --dtype e4m3 --head-dim 128 --chip sm_90a 2>&1 | FileCheck %s --check-prefix=E4M3CHIP
// E4M3CHIP: attn-run: error: unsupported: --chip with --dtype e4m3
// RUN: not attn-run --dtype e4m3 --head-dim 128 --kv-lens 3 2>&1 | FileCheck %s --check-prefix=E4M3KV
// E4M3KV: attn-run: error: unsupported: --kv-lens with --dtype e4m3
// RUN: not attn-run %S/Inputs/run-fp8.mlir 2>&1 | FileCheck %s --check-prefix=E4M3FILE
// E4M3FILE: run-fp8.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unsupported: attn-run runs fp8 attention from flags (--dtype e4m3 --target gpu, through the runtime), not from an input file
// The built-in ALiBi (--alibi): the problem's own key positions, the CPU
// path.
// RUN: not attn-run --alibi --paged 64 --kv-lens 3 2>&1 | FileCheck %s --check-prefix=ALIBIKV
// ALIBIKV: attn-run: error: unsupported: --alibi with --kv-lens
// RUN: not attn-run --alibi --target gpu --dtype bf16 --chip sm_90a 2>&1 | FileCheck %s --check-prefix=ALIBIGPU
// ALIBIGPU: attn-run: error: unsupported: --alibi with --chip, --block-q or --block-kv on the GPU (ALiBi runs through the runtime's kernels)
// RUN: not attn-run %S/Inputs/run-alibi-dynamic.mlir 2>&1 | FileCheck %s --check-prefix=ALIBIDYN
// ALIBIDYN: run-alibi-dynamic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unsupported: attn-run runs alibi(...) from a file with static sequence lengths (dim 2 of Q and K), or from flags with --alibi
// RUN: not attn-run --dtype F32 2>&1 | FileCheck %s --check-prefix=F32UPPER
// F32UPPER: attn-run: error: unknown --dtype 'F32' (expected f32, f16, bf16 or e4m3)
// RUN: not attn-run --target gpu 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --target gpu 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: attn-run: error: unsupported: --target gpu runs f16 and bf16 (the tensor cores' inputs); f32 runs on --target cpu
// RUN: not attn-run --target sm_90 2>&1 | FileCheck %s --check-prefix=SM90
// SM90: attn-run: error: unknown --target 'sm_90' (expected cpu, gpu or auto)

// Scale.
// RUN: not attn-run --scale -1 2>&1 | FileCheck %s --check-prefix=SCALENEG
// SCALENEG: attn-run: error: scale must be positive and finite, got -1
// RUN: not attn-run --scale nan 2>&1 | FileCheck %s --check-prefix=SCALENAN
// SCALENAN: attn-run: error: scale must be positive and finite, got nan
// RUN: not attn-run --scale inf 2>&1 | FileCheck %s --check-prefix=SCALEINF
// SCALEINF: attn-run: error: scale must be positive and finite, got inf
// RUN: not attn-run --scale abc 2>&1 | FileCheck %s --check-prefix=SCALEABC
// SCALEABC: for the --scale option: 'abc' value invalid for floating point argument!
// An explicit 0 (or -0) is an error, not "use the default".
// RUN: not attn-run --scale 0 2>&1 | FileCheck %s --check-prefix=SCALEZERO
// SCALEZERO: attn-run: error: scale must be positive and finite, got 0{{$}}
// RUN: not attn-run --scale -0 --seq-q 16 2>&1 | FileCheck %s --check-prefix=SCALEMINUSZERO
// SCALEMINUSZERO: attn-run: error: scale must be positive and finite, got -0{{$}}
// The op keeps the scale as an f32: a double that rounds to 0 or to
// infinity in f32 is refused, with either file or flags.
// RUN: not attn-run --scale 1e-300 2>&1 | FileCheck %s --check-prefix=SCALEUNDER
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --scale 1e-300 2>&1 | FileCheck %s --check-prefix=SCALEUNDER
// SCALEUNDER: attn-run: error: scale 1e-300 underflows to 0 in f32, the type the op keeps it in (the smallest positive f32 is 1.4e-45)
// RUN: not attn-run --scale 1e300 2>&1 | FileCheck %s --check-prefix=SCALEF32
// SCALEF32: attn-run: error: scale 1e+300 overflows f32, the type the op keeps it in (the largest f32 is 3.4e+38)
// A subnormal f32 scale is still a positive f32.
// RUN: attn-run --scale 1e-40 --seq-q 16 --lse=false --seed 1 --check | FileCheck %s --check-prefix=SCALESUB
// SCALESUB: PASS

// Block sizes.
// RUN: not attn-run --block-q 3 2>&1 | FileCheck %s --check-prefix=BQ3
// BQ3: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 3
// BQ3: attn-run: error: compilation failed
// RUN: not attn-run --block-q -1 2>&1 | FileCheck %s --check-prefix=BQNEG
// BQNEG: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got -1
// RUN: not attn-run --block-kv 100000 2>&1 | FileCheck %s --check-prefix=BKVHUGE
// BKVHUGE: error: pass option block-kv must be a power of two in [1, 1024], got 100000
// RUN: not attn-run --block-q 1024 --block-kv 1024 --head-dim 128 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: error: block sizes Br=1024, Bc=1024 need 1572864 bytes of on-chip memory for the Q, K and V tiles, but target cpu offers 1048576
// NOFIT: attn-run: error: compilation failed
// RUN: not attn-run --head-dim 100000 2>&1 | FileCheck %s --check-prefix=BIGD
// BIGD: error: 'attn.attention' op unsupported: head dim 100000 (at most 1024)
// BIGD: attn-run: error: the problem does not form a valid attn.attention
// RUN: not attn-run --head-dim-v 2048 2>&1 | FileCheck %s --check-prefix=BIGDV
// BIGDV: error: 'attn.attention' op unsupported: value head dim 2048 (at most 1024)

// Unknown flags and stray arguments.
// RUN: not attn-run --bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: Unknown command line argument '--bogus'
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir %S/Inputs/run-plain-f32.mlir 2>&1 | FileCheck %s --check-prefix=TWOFILES
// TWOFILES: Too many positional arguments specified!
// RUN: not attn-run --seed -1 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: for the --seed option: '-1' value invalid for ulong argument!

// A soft-cap must be positive and finite (a normal f32: 1/C is finite), and
// is for problems from flags (a file's attn.attention says its softcap).
// RUN: not attn-run --softcap -1 2>&1 | FileCheck %s --check-prefix=SOFTCAPNEG
// SOFTCAPNEG: attn-run: error: --softcap must be positive and finite (a normal f32), got -1
// RUN: not attn-run --softcap inf 2>&1 | FileCheck %s --check-prefix=SOFTCAPINF
// SOFTCAPINF: attn-run: error: --softcap must be positive and finite (a normal f32), got inf
// RUN: not attn-run --softcap 1e-39 2>&1 | FileCheck %s --check-prefix=SOFTCAPSUB
// SOFTCAPSUB: attn-run: error: --softcap must be positive and finite (a normal f32), got 1e-39
// RUN: not attn-run %attn_src_root/examples/attention.mlir --softcap 3 2>&1 | FileCheck %s --check-prefix=SOFTCAPFILE
// SOFTCAPFILE: attn-run: error: --kv-lens, --paged, --varlen and --softcap need the problem from flags, not an input file (the file's attn.attention says its softcap)

// The CPU register tile: 0 is the pipeline's default, a negative size an
// error (not a silent default).
// RUN: not attn-run --cpu-tile-m -1 2>&1 | FileCheck %s --check-prefix=TILENEG
// TILENEG: attn-run: error: --cpu-tile-m and --cpu-tile-n must be >= 0 (0: the pipeline's default), got -1 and 0
// RUN: not attn-run --cpu-features avx1024 2>&1 | FileCheck %s --check-prefix=FEATURES
// FEATURES: attn-run: error: --cpu-features must be avx2, avx512, avx512bf16 or amx, got 'avx1024'

// A sliding window: L,R with -1 for no bound; causal is R = 0.
// RUN: not attn-run --window 5 2>&1 | FileCheck %s --check-prefix=WINONE
// WINONE: attn-run: error: --window takes L,R: bounds in [0, 2^31) or -1 for none, at least one of them a bound; got '5'
// RUN: not attn-run --window -1,-1 2>&1 | FileCheck %s --check-prefix=WINNONE
// WINNONE: attn-run: error: --window takes L,R: {{.*}} got '-1,-1'
// RUN: not attn-run --causal --window 8,0 2>&1 | FileCheck %s --check-prefix=WINCAUSAL
// WINCAUSAL: attn-run: error: --causal is a window's R = 0: give R as -1 with --causal

// --backward covers dense problems on the CPU path so far: the rest is
// refused before anything is compiled.
// RUN: not attn-run --backward --target gpu --window 8,-1 2>&1 | FileCheck %s --check-prefix=BWDWIN
// BWDWIN: attn-run: error: unsupported: --window, --softcap or --alibi with --backward on the GPU
// RUN: not attn-run --backward --varlen 3,4 2>&1 | FileCheck %s --check-prefix=BWDVARLEN
// BWDVARLEN: attn-run: error: unsupported: --varlen with --backward (the backward pass covers dense attention, causal or not, with a window, soft-cap, ALiBi or dropout, so far)
// RUN: not attn-run --backward --kv-lens 3 2>&1 | FileCheck %s --check-prefix=BWDCACHE
// BWDCACHE: attn-run: error: unsupported: --kv-lens with --backward
// RUN: not attn-run --backward --dtype e4m3 2>&1 | FileCheck %s --check-prefix=BWDFP8
// BWDFP8: attn-run: error: unsupported: --dtype e4m3 with --backward
// On the GPU the backward runs through the runtime's kernels, not a kernel of
// attn-run's own tuning.
// RUN: not attn-run --backward --target gpu --block-q 32 2>&1 | FileCheck %s --check-prefix=BWDGPU
// BWDGPU: attn-run: error: unsupported: --chip, --block-q or --block-kv with --backward on the GPU (the runtime's kernels run it); add --target cpu for the CPU path
// RUN: not attn-run --backward --target gpu --dtype f32 2>&1 | FileCheck %s --check-prefix=BWDGPU32
// BWDGPU32: attn-run: error: unsupported: --target gpu runs f16 and bf16
// RUN: not attn-run --backward %S/Inputs/run-plain-f32.mlir 2>&1 | FileCheck %s --check-prefix=BWDFILE
// BWDFILE: run-plain-f32.mlir: error: attn-run --backward needs exactly one attn.attention_grad and no attn.attention, found 0 and an attn.attention
