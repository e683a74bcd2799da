// attn-run on .mlir files it cannot run: a located diagnostic (at the
// attn.attention where there is one) or "attn-run: error: ...", and exit
// code 1, before anything is compiled.

// RUN: not attn-run %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: attn-run: error: cannot open '{{.*}}does-not-exist.mlir': {{.*}}

// The function must take exactly (q, k, v, o[, lse]), in order, and return
// nothing.
// RUN: not attn-run %S/Inputs/run-extra-arg.mlir 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: run-extra-arg.mlir:3:3: error: unsupported: attn-run runs a function whose arguments are exactly (q, k, v, o[, lse])
// RUN: not attn-run %S/Inputs/run-func-result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: run-func-result.mlir:3:3: error: unsupported: attn-run runs a function whose arguments are exactly (q, k, v, o[, lse])
// RUN: not attn-run %S/Inputs/run-gpu-kernel.mlir 2>&1 | FileCheck %s --check-prefix=GPUFUNC
// GPUFUNC: run-gpu-kernel.mlir:5:7: error: unsupported: attn-run runs a function whose arguments are exactly (q, k, v, o[, lse])
// RUN: not attn-run %S/Inputs/run-swapped-args.mlir 2>&1 | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: run-swapped-args.mlir:3:3: error: unsupported: function argument 0 must be operand 0 of attn.attention
// RUN: not attn-run %S/Inputs/run-aliased-args.mlir 2>&1 | FileCheck %s --check-prefix=ALIASED
// ALIASED: run-aliased-args.mlir:3:3: error: unsupported: function argument 1 must be operand 1 of attn.attention

// Exactly one attn.attention. The error points at the second one, in the
// same function or another, and no note dumps the module.
// RUN: not attn-run %S/Inputs/run-two-attentions.mlir 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not='"builtin.module"'
// TWO: run-two-attentions.mlir:4:3: error: attn-run needs exactly one attn.attention, found 2
// RUN: not attn-run %S/Inputs/run-two-functions.mlir 2>&1 | FileCheck %s --check-prefix=TWOFUNCS --implicit-check-not='"builtin.module"'
// TWOFUNCS: run-two-functions.mlir:7:3: error: attn-run needs exactly one attn.attention, found 2
// Without an attn.attention or an explicit module there is no place to
// point at: the file, not a made-up <file>:0:0.
// RUN: not attn-run %S/Inputs/run-no-attention.mlir 2>&1 | FileCheck %s --check-prefix=NONE --implicit-check-not='"builtin.module"'
// NONE: {{^}}{{.*}}run-no-attention.mlir: error: attn-run needs exactly one attn.attention, found 0
// An explicit module has a location to point at.
// RUN: not attn-run %S/Inputs/run-no-attention-module.mlir 2>&1 | FileCheck %s --check-prefix=NONEMOD --implicit-check-not='"builtin.module"'
// NONEMOD: run-no-attention-module.mlir:2:1: error: attn-run needs exactly one attn.attention, found 0

// The function holds only the attention and the return: an op before it
// (nested in its region, or beside it) is refused, and nothing is run.
// RUN: not attn-run %S/Inputs/run-nested-attention.mlir 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: run-nested-attention.mlir:4:8: error: unsupported: attn-run runs a function that holds only the attn.attention and a return, but this 'arith.constant' would run too
// RUN: not attn-run %S/Inputs/run-extra-op.mlir --seq-q 16 --seed 1 2>&1 | FileCheck %s --check-prefix=EXTRAOP --implicit-check-not=seed=
// EXTRAOP: run-extra-op.mlir:4:9: error: unsupported: attn-run runs a function that holds only the attn.attention and a return, but this 'arith.constant' would run too

// Buffers are contiguous host memory: a static stride or offset that
// differs, or a memory space, is refused; dynamic strides are fine.
// RUN: not attn-run %S/Inputs/run-strided-layout.mlir --seq-q 16 2>&1 | FileCheck %s --check-prefix=STRIDED
// STRIDED: run-strided-layout.mlir:5:3: error: unsupported: attn-run passes contiguous buffers; operand 0 (query) has layout strided<[?, ?, ?, 2], offset: 5>, but its buffer has layout strided<[1024, 1024, 64, 1]>
// RUN: not attn-run %S/Inputs/run-static-strides.mlir --heads 2 --seq-q 32 2>&1 | FileCheck %s --check-prefix=STATICSTRIDES
// STATICSTRIDES: run-static-strides.mlir:5:3: error: unsupported: attn-run passes contiguous buffers; operand 3 (output) has layout strided<[2048, 1024, 64, 1]>, but its buffer has layout strided<[4096, 2048, 64, 1]>
// RUN: attn-run %S/Inputs/run-static-strides.mlir --heads 2 --seq-q 16 --seq-k 40 --seed 2 --check | FileCheck %s --check-prefix=PASS
// RUN: attn-run %S/Inputs/run-dynamic-strided.mlir --heads 2 --seq-q 33 --seed 1 --check | FileCheck %s --check-prefix=PASS
// PASS: PASS
// RUN: not attn-run %S/Inputs/run-memory-space.mlir 2>&1 | FileCheck %s --check-prefix=MEMSPACE
// MEMSPACE: run-memory-space.mlir:4:3: error: unsupported: attn-run passes host buffers in the default memory space; operand 2 (value) has memory space 1 : i64

// An op that does not verify is reported by the parser's verifier.
// RUN: not attn-run %S/Inputs/run-invalid-op.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: run-invalid-op.mlir:3:3: error: 'attn.attention' op head dim of query (64) must equal head dim of key (32)

// Flags that contradict the IR.
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --causal 2>&1 | FileCheck %s --check-prefix=CAUSAL
// RUN: not attn-run %attn_src_root/examples/attention.mlir --causal=false 2>&1 | FileCheck %s --check-prefix=CAUSAL
// CAUSAL: attn-run: error: --causal disagrees with the IR{{$}}
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --dtype bf16 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: run-plain-f32.mlir:3:3: error: --dtype bf16 disagrees with the IR's element type 'f32'
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --dtype f8 2>&1 | FileCheck %s --check-prefix=DTYPEF8
// DTYPEF8: run-plain-f32.mlir:3:3: error: --dtype f8 disagrees with the IR's element type 'f32'
// RUN: not attn-run %S/Inputs/run-static-dims.mlir --batch 3 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: run-static-dims.mlir:3:3: error: --batch 3 disagrees with the IR's static size 2
// RUN: not attn-run %S/Inputs/run-static-dims.mlir --seq-q 65 2>&1 | FileCheck %s --check-prefix=SEQQ
// SEQQ: run-static-dims.mlir:3:3: error: --seq-q 65 disagrees with the IR's static size 64
// Every operand's static sizes count, V, O and LSE too; a size not given on
// the command line is named with the flag that sets it.
// RUN: not attn-run %S/Inputs/run-static-lse.mlir --seq-q 32 2>&1 | FileCheck %s --check-prefix=LSEDIM
// LSEDIM: run-static-lse.mlir:3:3: error: --seq-q 32 disagrees with the IR's static size 16 (dim 2 of lse)
// RUN: not attn-run %S/Inputs/run-static-value.mlir --seq-q 32 2>&1 | FileCheck %s --check-prefix=VDIM
// VDIM: run-static-value.mlir:3:3: error: seq-k 32 (the default: seq-q) disagrees with the IR's static size 8 (dim 2 of value); pass --seq-k 8
// RUN: attn-run %S/Inputs/run-static-value.mlir --seq-q 32 --seq-k 8 --seed 1 --check | FileCheck %s --check-prefix=PASS
// Flags for what the IR fixes (head dims, scale, LSE) must repeat it, not be
// ignored.
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --head-dim 128 --seq-q 16 2>&1 | FileCheck %s --check-prefix=HEADDIM
// HEADDIM: run-plain-f32.mlir:3:3: error: --head-dim 128 disagrees with the IR's head dim 64
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --head-dim-v 32 --seq-q 16 2>&1 | FileCheck %s --check-prefix=HEADDIMV
// HEADDIMV: run-plain-f32.mlir:3:3: error: --head-dim-v 32 disagrees with the IR's value head dim 64
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --scale 0.5 2>&1 | FileCheck %s --check-prefix=SCALE
// SCALE: run-plain-f32.mlir:3:3: error: --scale 0.5 disagrees with the IR's scale 0.125 (1/sqrt(D))
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --lse 2>&1 | FileCheck %s --check-prefix=LSEFLAG
// LSEFLAG: run-plain-f32.mlir:3:3: error: --lse disagrees with the IR, whose attn.attention has no lse operand
// RUN: not attn-run %attn_src_root/examples/attention.mlir --lse=false --seq-q 16 2>&1 | FileCheck %s --check-prefix=NOLSEFLAG
// NOLSEFLAG: attention.mlir:{{[0-9]+}}:3: error: --lse disagrees with the IR, whose attn.attention has an lse operand
// RUN: attn-run %S/Inputs/run-plain-f32.mlir --head-dim 64 --head-dim-v 64 --scale 0.125 --lse=false --seq-q 16 --seed 1 | FileCheck %s --check-prefix=AGREE
// AGREE: D=64 Dv=64 causal=0 scale=1.250000e-01

// score_mod captures: attn-run fills memref arguments of static shape (f32
// or i32) after the op's operands; with --check a load past the table at
// any (b, h, i, j) is reported before the kernel runs; positions and
// captures run on the CPU path only.
// RUN: not attn-run %S/Inputs/run-capture-dynamic.mlir 2>&1 | FileCheck %s --check-prefix=CAPDYN
// CAPDYN: run-capture-dynamic.mlir:3:3: error: unsupported: attn-run fills score_mod captures of static shape, identity layout and f32 or i32 elements, not 'memref<?xf32>'
// RUN: attn-run %S/Inputs/run-capture-static.mlir --heads 4 --seq-q 20 --seed 1 --check | FileCheck %s --check-prefix=PASS
// RUN: not attn-run %S/Inputs/run-capture-static.mlir --heads 5 --seq-q 20 --seed 1 --check 2>&1 | FileCheck %s --check-prefix=CAPOOB
// CAPOOB: attn-run: error: score_mod reads index 4 of dim 0 of its memref<4xf32> capture, outside the memref (not run: the kernel would read outside it)
// A load outside its table at masked pairs only: the kernel evaluates them
// too, so it is refused before it runs.
// RUN: not attn-run %S/Inputs/run-capture-masked-oob.mlir --heads 2 --seq-q 64 --seed 1 --check 2>&1 | FileCheck %s --check-prefix=CAPMASKED
// CAPMASKED: attn-run: error: score_mod reads index -1 of dim 0 of its memref<64xf32> capture, outside the memref (not run: the kernel would read outside it)
// RUN: not attn-run %S/Inputs/run-capture-static.mlir --target gpu --heads 4 2>&1 | FileCheck %s --check-prefix=CAPGPU
// CAPGPU: attn-run: error: unsupported: a score_mod that reads b, h, q_idx, kv_idx or captured memrefs (ALiBi's slopes too) on --target gpu

// Flags checked against the problem the IR and flags make together.
// RUN: not attn-run %S/Inputs/run-static-dims.mlir --kv-heads 3 2>&1 | FileCheck %s --check-prefix=KV3
// KV3: attn-run: error: heads (8) must be a multiple of kv-heads (3)
// RUN: not attn-run %S/Inputs/run-static-dims.mlir --seq-k 0 2>&1 | FileCheck %s --check-prefix=SEQK0
// SEQK0: attn-run: error: seq-k must be >= 1, got 0
// RUN: not attn-run %attn_src_root/examples/attention.mlir --heads 6 --kv-heads 4 2>&1 | FileCheck %s --check-prefix=GQA
// GQA: attn-run: error: heads (6) must be a multiple of kv-heads (4)
// RUN: not attn-run %attn_src_root/examples/attention.mlir --seq-q 10000000000 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: attn-run: error: problem too large: a tensor would exceed 2^31-1 elements

// Block lists: attn-run builds them for the CPU path; the runtime's kernel
// ABI has none, so --target gpu is refused before anything is compiled, and
// static list dims the problem does not fit are an error before the kernel
// runs.
// RUN: not attn-run %S/../../Numerics/Inputs/block-mask-window.mlir --target gpu 2>&1 | FileCheck %s --check-prefix=BMGPU
// BMGPU: attn-run: error: unsupported: block_mask on --target gpu (the runtime's kernel ABI takes no block lists)
// RUN: not attn-run %S/../../Numerics/Inputs/block-mask-docs.mlir --batch 3 --seq-q 300 2>&1 | FileCheck %s --check-prefix=BMDIMS
// BMDIMS: attn-run: error: block_mask's batch dim is 2, not 1 or the problem's 3
