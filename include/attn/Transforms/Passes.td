//===- Passes.td - attn transformation passes --------------*- tablegen -*-===//
#ifndef ATTN_TRANSFORMS_PASSES_TD
#define ATTN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttnExpandAlibi : Pass<"attn-expand-alibi"> {
  let summary = "Write the built-in ALiBi of attn.attention and "
                "attn.attention_grad as its score_mod region";
  let description = [{
    An `attn.attention` or `attn.attention_grad` with `alibi(%slopes)`
    becomes the same op with the equivalent `score_mod` region and no
    `alibi` operand (the backward differentiates the region: its
    derivative with respect to S is 1):

    ```
    S'[i, j] = S[i, j] − slopes[h] · |j − i − (Nk − Nq)|
    ```

    (FlashAttention's `alibi_slopes`, bottom-right aligned; S is the scaled
    score). The slope is a per-head load (the tiling hoists it out of the
    key/value loops), the distance an integer per score; Nk − Nq comes from
    the K and Q memrefs' dims. Not with a score_mod region, a soft-cap, fp8
    inputs, a KV cache or a packed batch (whose key positions are per
    sequence): "unsupported: ..." at the op. The first pass of both
    pipelines, so the CPU and GPU backends see only regions.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AttnGenerateBlockLists : Pass<"attn-generate-block-lists"> {
  let summary = "Compute an attn.attention's block lists from its own "
                "mask_mod, in front of it (attn.block_lists)";
  let description = [{
    Each `attn.attention` with `block_mask(...)` and a `mask_mod` region
    gets an `attn.block_lists` right before it that writes its lists (and
    its `full_blocks` lists) from that region, its causal mask and its
    window, on its mask blocks, for the problem's B, Hq, Nq and Nk (dims of
    Q and K): the function then takes list buffers to fill instead of
    lists computed by the caller, FlexAttention's create_block_mask done by
    the program itself on every call. An op without a mask_mod (lists that
    only the caller knows) is left as it is. The lists' K (dim 3 of the
    index lists) must hold ceil(Nk / BK) entries: a static K below the
    problem's static key blocks is an error here; a dynamic one is the
    caller's precondition. The helper has a CPU lowering only (the GPU
    conversion refuses it).

    ```mlir
    attn.block_lists %c, %x full(%fc, %fx : ...) sizes(%b, %h, %nq, %nk)
        mask_mod { ... } {causal, mask_block = array<i64: 128, 128>} : ...
    attn.attention %q, %k, %v into %o block_mask(%c, %x : ...)
        full_blocks(%fc, %fx : ...) mask_mod { ... } {causal, ...} : ...
    ```
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AttnTileAttention : Pass<"attn-tile-attention"> {
  let summary = "IO-aware tiling of attn.attention into query blocks and a "
                "loop over key/value blocks (naive three-pass softmax)";
  let description = [{
    Rewrites each `attn.attention` into a grid (`scf.forall` over batch,
    query head and query block of `Br` rows) and, per program, loops over
    key/value blocks of `Bc` rows, written in the naive tiled form: one pass
    for the row max, one for the row sum, one for P·V. The fusion pass
    (`attn-fuse-online-softmax`) turns these into one online pass.

    Block sizes come from the target description (the op's `target`
    attribute, an `attn.target` attribute on an enclosing op, else the
    `target` option): the FlashAttention rule Bc = ceil(M / 4d),
    Br = min(Bc, d) with M the on-chip memory in elements, rounded down to
    powers of two and shrunk until the Q, K and V tiles fit. The op's
    `block_q`/`block_kv` attributes, then the options, override them. The
    target only sizes the blocks: the tile-level IR is the same for every
    target, so an `sm_*` target compiled through the CPU pipeline runs on
    the host with blocks sized for that GPU. Bad options are an error even
    on IR that no option applies to.

    Causal: key/value blocks wholly above the diagonal are never visited;
    the loop is split so that only blocks crossing the diagonal or the end
    of the keys carry a mask.

    `score_mod`: each score tile is scaled (S·scale) right after its
    `attn.dot`, then the region's body runs on the whole tile (each scalar
    op becomes the same op on tiles, each float constant a splat tile), then
    the mask; the passes' softmax scale is 1. A body that only adds to the
    score, s ± g (g independent of s: non-causal ALiBi, a gathered relative
    bias), runs on the unscaled tile as S ± g/scale (a per-program factor
    u of g = u·x becomes u/scale) and the softmax keeps the scale, which
    its exponent folds: one multiplication a score fewer, exact while
    g/scale stays finite in f32. The modifier is ordinary elementwise tile
    IR, so every backend lowers it like the softmax's own arithmetic.

    `split_kv` (flash-decoding): the grid's last dim counts query blocks
    times splits, and split s loops over its own range of key blocks
    (clipped to the unmasked and masked segments), storing its partial O and
    LSE at split index s; the grid is tagged `attn.program = "split_kv"`.
    `attn.merge_splits` becomes a grid over (batch, head, query block of
    16 rows, or `block-q`, times column blocks of 16 columns of O where Dv
    is a multiple of 16) that reads the S partial rows once, sixteen
    splits at a time, rescaling its sums as their running max grows.
    Tagged `attn.program = "merge_splits"`, its grid "q_blocks*C".

    `attn.attention_grad` (the backward pass) becomes two grids, in this
    order: one over (batch, query head, query block) that writes Δ =
    rowsum(dO∘O) and dQ, looping over the key blocks its rows see; one over
    (batch, key/value head, key block) that sums dK and dV over the query
    heads of the group and the query blocks that see the keys, on key-major
    tiles (Sᵀ = K·Qᵀ, `attn.mask {transposed}`, the LSE and Δ as
    `attn.broadcast {per_column}`). The same block sizes as the forward;
    blocks above the causal diagonal skipped, only diagonal blocks masked.
    CPU targets only for now (a GPU target is an "unsupported" error).

    `attn.block_lists` becomes a grid over the lists' rows. For a GPU
    target (resolved as for attn.attention) a thread block of 16 warps a
    row, tagged `attn.program = "block_lists"` and `attn.mask_block`: each
    warp classifies key blocks (its lanes splitting a query row's keys,
    combined by `gpu.shuffle xor`) and writes each block's kind into the
    row's entry kb; after a `gpu.barrier` warp 0 compacts the row in place,
    32 entries a step, by a prefix count across its lanes (`gpu.shuffle
    up`). Otherwise a parallel loop tagged `attn.cpu_only` that walks each
    row's blocks in order. A mask_mod that does not read b (or h) is
    evaluated for one batch (head) of a row that covers several.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::gpu::GPUDialect",
    "::mlir::attn::AttnDialect"
  ];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target used when the IR names none: cpu or a GPU chip "
           "(attn/runtime/Chips.h)">,
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query block rows Br (0: derive from the target)">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Key/value block rows Bc (0: derive from the target)">,
    Option<"amxBlocks", "amx-blocks", "bool", /*default=*/"false",
           "CPU: derive key blocks for the AMX tile unit (256 keys at head "
           "dims up to 128: the products' accumulator tiles are loaded and "
           "stored half as often per FLOP)">
  ];
}

def AttnFuseOnlineSoftmax : Pass<"attn-fuse-online-softmax"> {
  let summary = "Fuse the three-pass tiled softmax into one online pass";
  let description = [{
    Finds the naive tiled form the tiling pass emits (loops tagged
    `attn.softmax_pass` = max, sum, pv over the same key/value blocks) and
    rewrites it into one loop carrying the running row max m, row sum l and
    the unnormalised accumulator:

    ```
    m' = max(m, rowmax(S))
    P  = exp2((S − m')·c)            c = scale · log2(e)
    α  = exp2((m − m')·c)
    l' = α·l + rowsum(P)
    A' = α·A + P·V
    O  = A / l                       (once, after the loop)
    ```

    With `rescale-threshold` τ > 0 the reference max moves lazily: only a
    row whose block max exceeds it by more than τ/c takes the new max, so
    that α = 1 in most blocks (every P stays <= 2^τ, and A, l keep their
    scale). This is exact: O = A / l and the LSE = m·scale + log(l) use the
    same reference m. A backend that skips a multiplication by one (the GPU
    one does) then rescales A only when a row's max grew by more than τ/c:

    ```
    mb = max(m, rowmax(S))
    m' = (mb − m)·c > τ ? mb : m
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::attn::AttnDialect"
  ];
  let options = [
    Option<"rescaleThreshold", "rescale-threshold", "double",
           /*default=*/"0.0",
           "τ: move a row's reference max only when its block max exceeds it "
           "by more than τ/c (0: always; at most 15, so that P <= 2^τ fits "
           "f16)">
  ];
}

def AttnSelectGPUBlocks : Pass<"attn-select-gpu-blocks"> {
  let summary = "Choose the mma.sync kernel's block sizes and target for "
                "each attn.attention";
  let description = [{
    Sets `block_q`/`block_kv` (unless the op has them) and `target` (unless
    the op has one) on every `attn.attention`, for the GPU `chip`. The
    tensor-core kernel has its own budget, which the generic FlashAttention
    rule does not see: Br = 128 and Bc = 64 keys (32 for head dims 65 to
    96), so that the S and O fragments of two 16-row m-tiles per warp fit in
    255 registers per thread up to head dim 128 (one m-tile per warp, 8
    warps, above it); measured fastest on an H100 and H200 (two m-tiles a
    warp halve the ldmatrix traffic per mma: D = 64 1.05-1.10x FA2 against
    0.87-0.93x at one m-tile, H200). The `block-q`/`block-kv` options
    override it.

    Where the chip has warpgroup MMA (sm_90a) and the head dims are
    multiples of 64 (or of 32: 64-byte slabs), the blocks are wgmma's:
    64x128 at D = 64 (one warpgroup a program, three programs an SM),
    128x128 at D = 96 and 128 (two warpgroups) and 128x64 above (O takes
    D/2 registers a thread). A static
    sequence long enough takes the tall query block of `tallQueryBlock`
    (D = 64: 192 rows, three warpgroups sharing each K/V tile, from 512
    query rows, 8192 when causal, where static batch and heads give a grid
    of two waves of the target's multiprocessors); the bundle builds it beside
    the default and the runtime picks by length and grid. A score bias on
    wgmma: 64-key blocks up to D = 128 (32 above) while its window is read
    into registers; one staged in shared memory (`stage-windows`: 16-bit
    or f32) at D = 64 takes 128 query rows and 128 keys.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
  let options = [
    Option<"chip", "chip", "std::string",
           /*default=*/"::mlir::attn::defaultChip()",
           "GPU chip (attn/runtime/Chips.h)">,
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query block rows (0: heuristic)">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Key/value block rows (0: heuristic)">,
    Option<"wgmma", "wgmma", "int64_t", /*default=*/"-1",
           "Blocks for Hopper's warpgroup MMA: 1, 0 (-1: where the chip has "
           "it and the head dims are multiples of 64, or of 32 in the "
           "forward)">,
    Option<"stageWindows", "stage-windows", "int64_t", /*default=*/"1",
           "Blocks for a score bias whose window attn-assign-layouts "
           "stages in shared memory (its stage-windows): 1, 0 (the window "
           "in registers)">
  ];
}


def AttnAssignLayouts : Pass<"attn-assign-layouts"> {
  let summary = "Give every tile of a fused GPU tile program its layout";
  let description = [{
    The first step of the GPU backend. In each tile-level grid (the
    `scf.forall` of attn-tile-attention, after attn-fuse-online-softmax),
    every 2-d register tile gets `#attn.mma<warps = W>` (mma.sync fragments,
    16·MT rows per warp), every 1-d tile its row slice
    `#attn.slice<#attn.mma<...>>`, and each tile loaded as a right-hand side
    of `attn.dot` (K, V), or as a left-hand side read from shared memory (Q),
    an `#attn.shared` layout (XOR-swizzled when a row has a multiple of 8
    16-byte chunks, else padded). Where one value is needed in two layouts
    (Q kept in registers), an `attn.convert_layout` is inserted; a later
    canonicalisation folds the redundant ones.

    MT (m-tiles per warp) and where Q lives follow a register estimate,
    MT·(D/2 + Bc/2 + [D/4 if Q in registers]) + 63 <= 255 (calibrated on
    ptxas's counts): the first of (2, shared), (2, registers),
    (1, registers), (1, shared) that fits; the options override it.

    On a target with warpgroup MMA (sm_90a), where every dot operand is
    16-bit, the query block is a multiple of 64 rows and each shared tile a
    multiple of 64 columns (of 32 in the forward), the layouts are those of
    wgmma instead: `#attn.mma<warps = Br/16, version = 3>` (one warpgroup
    per 64 query rows, one m-tile per warp) and `#attn.shared<..., slab =
    128>` for every shared tile (128-byte-swizzled column slabs, what
    wgmma's descriptors and TMA read and write), or `slab = 64` where a row
    is a multiple of 64 bytes but not of 128 (D = 96); Q stays in shared
    memory (wgmma reads it there). With `stage-windows=1` a 16-bit or f32
    column window of a key/value loop that no product reads (a score bias's
    [Br, Bc] block) whose rows are whole 128-byte slabs takes a slab layout
    too, read into registers through `attn.convert_layout` where it is used:
    attn-pipeline-kv-loop then gives it a ring, and the producer of
    attn-specialize-warpgroups fills it with bulk tensor copies like K and
    V. Only in programs of two or more warpgroups whose copies all qualify
    for bulk copies (no paged or packed rows).

    With two m-tiles, D >= 128 and Bc >= 64, or wgmma layouts and D >= 256
    or D <= 64 in blocks of 192 rows or more, the loop's rescale of its accumulator, `A·broadcast(α)`, is marked
    `attn.skip_unit_factors`: the lowering multiplies only where a row's α
    is not 1 (with lazy rescaling, rarely). Measured to pay there and to
    cost or not pay elsewhere (`skip-unit-factors` forces either).
    The softmax exponent `(S − broadcast(m))·c` (c a constant) is marked
    `attn.fused_exponent`: one fused multiply-add per score. With
    `polynomial-exp2=K`, the exponentials of P tiles that are rounded to
    16 or 8 bits are marked `attn.polynomial_exp2 = K`: the lowering
    computes one element in K with a polynomial on the FMA pipe.
    A tile shape the layouts cannot hold is reported as unsupported.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::math::MathDialect"];
  let options = [
    Option<"mTiles", "m-tiles", "int64_t", /*default=*/"0",
           "16-row m-tiles per warp: 1 or 2 (0: heuristic)">,
    Option<"qInRegisters", "q-in-registers", "int64_t", /*default=*/"-1",
           "Keep Q's fragments in registers: 1, 0 (-1: heuristic)">,
    Option<"wgmma", "wgmma", "int64_t", /*default=*/"-1",
           "Hopper warpgroup MMA layouts: 1, 0 (-1: where the target has "
           "wgmma and the tiles allow it)">,
    Option<"tensorReduce", "tensor-reduce", "int64_t", /*default=*/"0",
           "Stage tiles added into a kernel argument's rows (the backward's "
           "dQ sums) in 128-byte slabs and add them with bulk tensor "
           "reductions: 1, 0 (one bulk reduction a row)">,
    Option<"skipUnitFactors", "skip-unit-factors", "int64_t",
           /*default=*/"-1",
           "Mark the accumulator's rescale attn.skip_unit_factors: 1 "
           "(wherever it has that form), 0 (never), -1 (where measured to "
           "pay)">,
    Option<"polynomialExp2", "polynomial-exp2", "int64_t", /*default=*/"0",
           "Mark the exponentials of 16-bit and 8-bit P tiles "
           "attn.polynomial_exp2 = K: one element in K on the FMA pipe "
           "(0: none; loses 2-15% on sm_90a, see PERF-NOTES)">,
    Option<"stageWindows", "stage-windows", "int64_t", /*default=*/"0",
           "wgmma programs: read a 16-bit or f32 column window that no product "
           "reads (a score bias's block) through shared memory (slabs a "
           "ring and a producer's bulk copies fill) instead of straight "
           "into registers: 1, 0">
  ];
}

def AttnDeferRowSums : Pass<"attn-defer-row-sums"> {
  let summary = "Carry the online softmax's row sum as per-column-group "
                "partial sums, reduced once after the loop";
  let description = [{
    The fused loop's `l' = α·l + rowsum(P)` becomes `L' = broadcast(α)·L +
    reduce_groups(P)` with `L: [R, width]` (`attn.reduce sum` into column
    groups: the columns congruent mod `width`), and the loop's result `l` is
    `attn.reduce sum L` after the loop. Exact up to the order of the
    additions: α does not depend on the column. On the GPU, with `width` the
    8 columns of a tensor-core n-tile, the per-block reduce is each thread's
    own fold and the cross-lane shuffles of the row sum run once, after the
    loop. A row sum whose start value is neither a zero splat nor the row
    sum of a loop this pass rewrote is left alone, and so is every loop of a
    program that will not take wgmma layouts (`wgmma`, as
    attn-assign-layouts decides it) and carries a 2-d tile wider than
    `max-columns` (when > 0): the GPU pipeline uses 64, since with mma.sync
    layouts at D >= 128 the accumulator already fills the registers and the
    partial sums' extra registers spill (ptxas); a wgmma program's
    consumers have 240.

    Example (in a fused loop):

    ```mlir
    %s = attn.reduce sum %p : tensor<64x64xf32> -> tensor<64xf32>
    %x = arith.mulf %alpha, %l : tensor<64xf32>
    %l2 = arith.addf %x, %s : tensor<64xf32>
    // becomes
    %s8 = attn.reduce sum %p : tensor<64x64xf32> -> tensor<64x8xf32>
    %a8 = attn.broadcast %alpha : tensor<64xf32> -> tensor<64x8xf32>
    %x8 = arith.mulf %a8, %L : tensor<64x8xf32>
    %L2 = arith.addf %x8, %s8 : tensor<64x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"width", "width", "int64_t", /*default=*/"8",
           "Column groups of the partial sums (the GPU's n-tile: 8)">,
    Option<"maxColumns", "max-columns", "int64_t", /*default=*/"64",
           "Outside wgmma programs, only in loops carrying no 2-d tile with "
           "more columns (0: any). 64: the partial sums take 4 more "
           "registers a thread, and the mma.sync programs with a wider O are "
           "at 255 (ptxas spills)">,
    Option<"wgmma", "wgmma", "int64_t", /*default=*/"-1",
           "Which programs take wgmma layouts, as attn-assign-layouts' "
           "option: 1, 0 (-1: where the target has warpgroup MMA)">
  ];
}

def AttnCarryQuotients : Pass<"attn-carry-quotients"> {
  let summary = "Carry the quotient and remainder of a loop's induction "
                "variable instead of dividing every step";
  let description = [{
    In every `scf.for` of constant step 1 over `index`, the `arith.divui` and
    `arith.remui` ops of its body (nested regions too) that divide the
    induction variable plus a constant c >= 0 by a value defined outside the
    loop (not a constant: LLVM strength-reduces those) become two iter_args
    per (c, divisor): `q = (lb + c) / n` and
    `r = (lb + c) mod n` before the loop (dividing by max(n, 1)), and at the
    end of each step `r' = r + 1 == n ? 0 : r + 1`, `q' = r + 1 == n ? q + 1 :
    q`. A flat loop over (head, block) pairs then pays one add, one compare
    and two selects a step instead of an unsigned division by a run-time
    value (a sequence of about twenty instructions on the GPU).

    Example:

    ```mlir
    scf.for %j = %c0 to %m step %c1 {
      %h = arith.divui %j, %n : index
      %b = arith.remui %j, %n : index
      ...
    }
    // becomes
    scf.for %j = %c0 to %m step %c1 iter_args(%h = %q0, %b = %r0) {
      ...
      %b1 = arith.addi %b, %c1 : index
      %w = arith.cmpi eq, %b1, %n : index
      %h1 = arith.addi %h, %c1 : index
      scf.yield (select %w, %h1, %h), (select %w, %c0, %b1)
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def AttnPrefetchVectors : Pass<"attn-prefetch-vectors"> {
  let summary = "Load the per-column vectors of a loop's next step during "
                "the current one";
  let description = [{
    In every `scf.for`, each `attn.load_tile` of a 1-d register vector laid
    out per column (`#attn.slice<..., dim = 1>`: the LSE and Δ entries of a
    key-major backward step) from a memref defined outside the loop, whose
    operands the body computes from the induction variable and values
    defined outside the loop with pure ops, is loaded one step ahead: before
    the loop for the first step, and first thing in step j for step j + 1
    (under `j + step < ub`, so that no block past the last is read), the
    value carried as an iter_arg. A step then no longer waits for these
    loads' latency after its first product. At most `max-loads` a loop, in
    body order: each holds its vector's registers for the whole step; only
    in wgmma programs (warpgroup layouts; mma.sync's registers are not
    measured for it) of at least `min-warps` warps (H200, bf16: the two-warpgroup
    D = 128 key-major grid gains 3-5% with its LSE a step ahead, the
    one-warpgroup D = 64 one −5..+3%; both vectors ahead spill at D = 128),
    in loops without an `attn.mask` unless `masked-loops` (the causal
    diagonal's loop spilled 4 bytes), not in loops marked
    `attn.score_grad_tile` (a score modifier's derivative tile live beside P:
    the soft-cap's D = 128 grad_kv spilled 16 bytes with its LSE ahead), and
    only where no op of the loop may write the loaded memref. With
    `windows`, also one 2-d register window of 16-bit elements a loop
    (`attn.load_tile ... cols` in a warpgroup layout: a score bias's [Br,
    Bc] block, read beside the scores; an f32 one's registers spilled), the
    same way (the codegen pipeline's `prefetch-windows`, on by default:
    +5..7% for a bf16 bias at D = 128, H200).

    Example:

    ```mlir
    scf.for %j = %c0 to %n step %c1 {
      %row = arith.muli %j, %c64 : index
      %lse = attn.load_tile %m[%row] rows %c64 : memref<?xf32> -> tensor<64xf32, #col>
      ...
    }
    // becomes
    %first = scf.if (%c0 < %n) { attn.load_tile %m[%c0 ...] } else { zeros }
    scf.for %j = %c0 to %n step %c1 iter_args(%lse = %first) {
      %next = scf.if (%j + %c1 < %n) { attn.load_tile %m[(%j + %c1) * 64] }
              else { %lse }
      ...
      scf.yield %next
    }
    ```
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"maxLoads", "max-loads", "int64_t", /*default=*/"1",
           "Vectors prefetched a loop, in body order (0: none)">,
    Option<"minWarps", "min-warps", "int64_t", /*default=*/"8",
           "Only in programs of at least this many warps (the vector's "
           "layout's): 8, two warpgroups, where it was measured to pay">,
    Option<"maskedLoops", "masked-loops", "bool", /*default=*/"false",
           "Also in loops with an attn.mask">,
    Option<"windows", "windows", "bool", /*default=*/"false",
           "Also one 2-d register window a loop (attn.load_tile ... cols "
           "read beside the scores: a score bias's [Br, Bc] block)">
  ];
}

def AttnPipelineKVLoop : Pass<"attn-pipeline-kv-loop"> {
  let summary = "Software-pipeline the shared-memory tile loads of the "
                "key/value loops";
  let description = [{
    In every `scf.for` of a laid-out tile program, each `attn.load_tile`
    whose result has an `#attn.shared` layout and whose indices depend on the
    loop's induction variable becomes a load into a ring of `stages` slots
    (`attn.alloc_ring`, one ring per loaded memref and tile type, shared by
    the loops of a grid): the loop's prologue starts the loads of its first
    stages − 1 iterations, and iteration j waits for block j
    (`attn.async_wait stages − 2`), starts the loads of block j + stages − 1
    into the slot block j − 1 used (`(j + stages − 1) mod stages`), and reads
    block j from its slot (`attn.ring_slot`). Every iteration commits one
    copy group, empty past the loop's end, so that the wait counts stay
    exact.

    `stages=1` keeps one slot per load, as FlashAttention-2 does: the loads
    are grouped into phases by where the body reads them (K, then V), every
    phase waits (`attn.async_wait 0`) after the previous phase's last read
    and then starts the next phase's block (the first phase's next block
    after the last phase's wait), so one phase's copy overlaps the previous
    phase's compute. A loop with fewer than two phases is left alone.

    With `mbarriers` (by default where the rings hold 128-byte slab tiles
    and the program has more than one warpgroup, i.e. wgmma programs of
    more than 64 rows, stages >= 2, and every pipelined loop starts where
    the previous one on its rings ended), the slots are synchronised one by
    one instead of by copy groups and program-wide barriers: block b goes
    to slot b mod S as fill (b − base)/S of that slot (base: the first
    loop's lower bound). Before filling, `attn.ring_acquire` waits until
    every thread released the slot's previous fill; after its copies each
    thread signs `attn.async_arrive`; iteration j waits for its block with
    `attn.ring_wait` and releases each slot after the last op that reads it
    (`attn.ring_release`). Q's one-slot ring is waited for before each loop
    that reads it.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Ring slots per loaded tile (1: one slot, phases; >= 2: ring; "
           "0: 2, or 8 where every ring tile is at most 4 KiB, or 3 where "
           "every loop is in a split_kv wgmma program with tiles of at "
           "most 16 KiB)">,
    Option<"mbarriers", "mbarriers", "int64_t", /*default=*/"-1",
           "Per-slot barriers instead of copy groups: 1, 0 (-1: for rings of "
           "128-byte slab tiles in programs of several warpgroups)">
  ];
}

def AttnRotateKVLoop : Pass<"attn-rotate-kv-loop"> {
  let summary = "Issue each key block's Q·Kᵀ before the previous block's "
                "P·V, so the softmax runs under the tensor cores";
  let description = [{
    Rotates every wgmma key/value loop (two `attn.dot` directly in an
    `scf.for`, `#attn.mma` version 3, V on a ring with per-slot barriers) by
    half an iteration: iteration j issues S_j = Q·K_jᵀ and then O += P_{j-1}·V_{j-1},
    both asynchronous, waits for S_j alone (`attn.dot_wait {pending = 1}`)
    and computes block j's softmax while P·V runs; O's rescale by α_j
    follows the wait for P·V. A(lb) is peeled before the loop and
    P_{ub-1}·V_{ub-1} after it, each under `lb < ub`. V's refill moves after
    the release of its slot (a block later than before); K's stays.
    FlashAttention-3's intra-warpgroup overlap. Runs after
    attn-pipeline-kv-loop; other loops (copy groups, mma.sync, other
    shapes) are left alone.

    Example (the loop body, after):

    ```mlir
    %s0 = attn.dot %q, %k, %zero {async, rhs_transposed} : ...
    %o0 = attn.dot %p_prev, %v_prev, %o_prev {async} : ...
    %s = attn.dot_wait %s0 {pending = 1} : ...
    ... softmax of %s ...
    %o = attn.dot_wait %o0 {pending = 0} : ...
    attn.ring_release %vring[%prev_slot] : ...
    ```

    Loops with an `attn.mask` (the causal diagonal, a ragged end: a trip or
    two) are left alone; with `causal-programs=0`, so are all loops of a
    program with a causal mask, and loops whose P·V accumulator has fewer
    than `min-columns` columns (the softmax hides under P·V, whose length
    grows with Dv).
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"causalPrograms", "causal-programs", "int64_t", /*default=*/"1",
           "Rotate the loops of programs with a causal mask: 1, 0">,
    Option<"minColumns", "min-columns", "int64_t", /*default=*/"0",
           "Leave loops whose P·V accumulator is narrower alone">
  ];
}

def AttnAlternateWarpgroups : Pass<"attn-alternate-warpgroups"> {
  let summary = "Let the warpgroups of a wgmma program take turns at issuing "
                "their products (ping-pong)";
  let description = [{
    In each laid-out GPU program of several warpgroups (`#attn.mma` version
    3 with more than 4 warps), every product of every key/value loop (an
    `attn.dot` directly in an `scf.for` directly in the program) becomes
    asynchronous and its issue is wrapped in `attn.await_turn` /
    `attn.pass_turn`, followed by `attn.dot_wait` (slot releases move after
    the wait), with `attn.start_turns` at the program's start and
    `attn.end_turns` at its end: the warpgroups issue their products one
    after the other, so one warpgroup's softmax runs while the next one's
    products occupy the tensor cores (FlashAttention-3's ping-pong). Runs
    after attn-pipeline-kv-loop; programs of fewer than `min-warpgroups`
    consumer warpgroups are left alone, except those of two or more without
    a causal mask whose accumulators have at most `noncausal-max-columns`
    columns, and those of two or more with 8-bit (fp8) products whose
    accumulators have at most `fp8-max-columns` columns, causal or not (an
    fp8 product takes half the time of a 16-bit one, and the softmax as
    long: the turns hide it). Programs of one warpgroup are always left
    alone.
  }];
  let options = [
    Option<"minWarpgroups", "min-warpgroups", "int64_t", /*default=*/"3",
           "Programs of at least this many warpgroups take turns">,
    Option<"noncausalMaxColumns", "noncausal-max-columns", "int64_t",
           /*default=*/"0",
           "Programs of fewer warpgroups without a causal mask take turns "
           "where their accumulators have at most this many columns (0: "
           "none)">,
    Option<"fp8MaxColumns", "fp8-max-columns", "int64_t",
           /*default=*/"128",
           "Programs of two or more warpgroups with 8-bit products take "
           "turns where their accumulators have at most this many columns "
           "(0: none)">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnOverlapProducts : Pass<"attn-overlap-products"> {
  let summary = "Start each warpgroup product as soon as its operands exist "
                "and wait for it where its value is first needed";
  let description = [{
    In the body of every `scf.for` of a laid-out GPU program that holds at
    least `min-products` synchronous warpgroup products (`attn.dot` with an
    `#attn.mma` version 3 result, directly in the body) and no asynchronous
    one, the products are issued in the order their values are first
    needed, each moved up to just after the last of its operands'
    definitions, the last op before it that may write memory and the
    product issued before it; each becomes `async` and is
    waited for (`attn.dot_wait`, `pending` = the products started after it)
    right before the first op that reads its value or may write memory.
    The tensor cores then run one product while the warpgroup computes on
    another's result: in the backward's key-major loop dPᵀ = V·dOᵀ runs
    under the exponentials of Pᵀ, and dV += Pᵀ·dO under dSᵀ = Pᵀ∘(dPᵀ − Δ).
    Bodies of two products (the forward's S and P·V, each reading the
    other's result) have nothing to overlap; those of
    attn-rotate-kv-loop and attn-alternate-warpgroups are already
    asynchronous and are left alone, as are bodies with a product nested in
    a region. With `programs`, only the grids of those programs (their
    `attn.program`) are rewritten.

    Example (a key-major backward step, after):

    ```mlir
    %st0 = attn.dot %k, %q, %zero {async, rhs_transposed} : ...
    %dpt0 = attn.dot %v, %do, %zero {async, rhs_transposed} : ...
    %st = attn.dot_wait %st0 {pending = 1} : ...
    ... Pᵀ = exp(scale·Sᵀ − LSE) ...
    %dv0 = attn.dot %pt, %do, %dv_acc {async} : ...
    %dpt = attn.dot_wait %dpt0 {pending = 1} : ...
    ... dSᵀ = Pᵀ∘(dPᵀ − Δ) ...
    %dk0 = attn.dot %dst, %q, %dk_acc {async} : ...
    %dv = attn.dot_wait %dv0 {pending = 1} : ...
    %dk = attn.dot_wait %dk0 {pending = 0} : ...
    scf.yield %dk, %dv : ...
    ```
  }];
  let options = [
    Option<"minProducts", "min-products", "int64_t", /*default=*/"3",
           "Loop bodies with fewer synchronous warpgroup products are left "
           "alone">,
    ListOption<"programs", "programs", "std::string",
               "Only the loops of these programs (their attn.program: "
               "grad_q, grad_kv, split_kv, merge_splits; attention for a "
               "grid without one); none: every program's">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnChainGrids : Pass<"attn-chain-grids"> {
  let summary = "Let a program that follows another on the stream start "
                "under its tail (programmatic dependent launch)";
  let description = [{
    Each GPU program of the named kinds (its grid's `attn.program`; by
    default `split_kv` and `merge_splits`, the two grids of a decode step)
    whose target has grid dependency control (sm_90 and later) starts with
    `attn.wait_prior_grids` then `attn.launch_dependents`, before anything
    else in its grid's body: it touches no global memory before the grids
    before it on the stream complete, and lets the next grid start as soon
    as all its own blocks run. The outlined kernel's `dependent_launch`
    then tells the launcher it may start the kernel before its predecessor
    completes (programmatic stream serialization), so a merge's launch,
    block scheduling and prologue run under the split kernel's last
    blocks instead of after them. Grids already chained are left alone.

    Example (a merge program, after):

    ```mlir
    scf.forall (%h, %b, %x) in (%heads, %batch, %cols) {
      attn.wait_prior_grids
      attn.launch_dependents
      ...
    } {attn.program = "merge_splits", ...}
    ```
  }];
  let options = [
    ListOption<"programs", "programs", "std::string",
               "The programs to chain (their attn.program: attention, "
               "split_kv, merge_splits, grad_q, grad_kv); none: split_kv "
               "and merge_splits">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnSpecializeWarpgroups : Pass<"attn-specialize-warpgroups"> {
  let summary = "Give a wgmma program's copies into its rings to one more "
                "warpgroup (a producer)";
  let description = [{
    In each laid-out wgmma program whose copies all go into rings
    synchronised per slot (attn-pipeline-kv-loop with mbarriers), the body
    after the ring allocations becomes the consumer region of an
    `attn.warp_specialize`, without its `attn.ring_acquire`,
    `attn.async_load_tile` and `attn.async_arrive`; the producer region gets
    those ops alone, inside copies of the loops and guards around them (no
    loop-carried values) and the scalar arithmetic they need. The consumers
    no longer issue copies nor wait for slots to be released, and are not
    tied to each other through the ring (FlashAttention-3's producer
    warpgroup). Where the target has them, the copies become bulk tensor
    copies (`{bulk}`: TMA, issued by one producer thread). The producer's
    registers go to the consumers: with
    `consumer-registers=-1`, floor8((65536 − 128·P) / consumer threads), at
    most 256. Runs last before convert-attn-gpu-to-nvvm; other programs
    (copy groups, mma.sync, and with `overlapped-programs=0` programs with
    asynchronous products) are left alone, as are `split_kv` programs of
    one warpgroup without a causal or window mask with a ring slot above
    `split-kv-max-tile-bytes` (a
    decode step streams K and V: there the warpgroup's own copies of 32 KiB
    tiles keep the memory busier than a producer's bulk copies).

    Example (the loop, after):

    ```mlir
    attn.warp_specialize registers(consumers = 208, producer = 80) {
      %r:3 = scf.for %j = %c0 to %n step %c1 iter_args(...) {
        attn.ring_wait %kring[%slot] fill %fill : ...
        ...
      }
      ...
    } producer {
      scf.for %j = %c0 to %n step %c1 {
        scf.if %more {
          attn.ring_acquire %kring[%next] fill %nfill : ...
          attn.async_load_tile %k[%b, %h, %row] rows %c128, %kring[%next] : ...
          attn.async_arrive %kring[%next] : ...
        }
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"warpgroups", "warpgroups", "int64_t", /*default=*/"1",
           "Producer warpgroups (1)">,
    Option<"overlappedPrograms", "overlapped-programs", "int64_t",
           /*default=*/"1",
           "Specialise programs whose loops already overlap their products "
           "with the softmax (attn-rotate-kv-loop, attn-alternate-"
           "warpgroups: asynchronous attn.dot): 1, 0">,
    Option<"producerRegisters", "producer-registers", "int64_t",
           /*default=*/"-1",
           "Registers per producer thread (setmaxnreg; 0: leave; -1: 24 "
           "with bulk copies, 80 with cp.async)">,
    Option<"bulkCopies", "bulk-copies", "int64_t", /*default=*/"-1",
           "Bulk tensor copies (TMA, attn.async_load_tile {bulk}): 1, 0 "
           "(-1: where the target is sm_90 or later and every copy "
           "qualifies)">,
    Option<"consumerRegisters", "consumer-registers", "int64_t",
           /*default=*/"-1",
           "Registers per consumer thread (setmaxnreg; -1: what the "
           "producer leaves; 0: leave)">,
    Option<"splitKvMaxTileBytes", "split-kv-max-tile-bytes", "int64_t",
           /*default=*/"16384",
           "split_kv programs of one consumer warpgroup get a producer "
           "only where every ring slot holds at most this many bytes (0: "
           "any); larger tiles stay with the consumers' own copies">
  ];
}

def AttnPersistTiles : Pass<"attn-persist-tiles"> {
  let summary = "Make warp-specialised grids persistent: one program a "
                "multiprocessor, looping over the tiles";
  let description = [{
    Each `scf.forall` (batch, head, query block) grid whose body is its
    rings and an `attn.warp_specialize` becomes a one-dimensional grid of
    `attn.num_programs` programs (`attn.persistent`; min(tiles, SMs) at
    launch). In each role the program becomes a loop over the tiles
    p, p + P, ..., in the order of the kernel's block mapping (query blocks
    of a head together, the last first; causal: groups of heads, longest
    first). Every ring continues its fills across tiles: each ring op's
    (slot, fill) moves by the fills of the program's earlier tiles, which
    `attn.ring_fills` counts (erased here). A ring filled once a tile and
    never released (Q) is released by the consumers after its last reader
    and acquired by the producer before each fill. The next tile's copies
    thus travel while the consumers finish the current one. Warpgroup
    turns start before the tile loop and end after it (they carry on across
    tiles). The producer gets at least 32 registers (its tile loop spills at
    24), taken from the consumers where the launch has none to spare. Runs
    after attn-specialize-warpgroups. Left alone: grids without `attn.grid`
    (the launcher sizes a persistent grid from it), programs whose producer
    issues cp.async copies (KV caches) or that are not plain attention
    (split-KV), and with `grids=1` causal grids.

    With `dynamic` (by default every grid where it fits) the tiles are
    claimed at run time: program p runs tile p first; at the start of each
    tile the producer claims the launch's next tile (`attn.claim_tile`: P +
    an atomic counter the launcher passes) and posts it to a two-slot tile
    queue (`attn.post_tile`), and every thread takes its next tile from the
    queue (`attn.take_tile`) in an `scf.while` that ends at the first index
    past the tiles. Causal tiles differ in cost, and a static schedule of
    them lost to the hardware's block scheduler; equal tiles claimed ran as
    fast as a static schedule or faster. A claiming producer runs in one
    thread and needs 40 registers (48 where a tile row is more than three
    slabs): grids where that would leave two consumer warpgroups fewer
    than 224 or cost three any (D = 64's 192-row block) or with a sliding
    window do not claim: causal ones stay a block per tile, the others keep
    the static schedule.

    Example (after):

    ```mlir
    %tiles = arith.muli ...
    %p = attn.num_programs %tiles
    scf.forall (%pid) in (%p) {
      %kring = attn.alloc_ring : ...
      attn.warp_specialize registers(consumers = 240, producer = 24) {
        %offs = scf.for %t = %pid to %tiles step %p iter_args(%off = %c0)
            -> (index) {
          ... (%b, %h, %q) from %t ...
          %s = arith.addi %slot, %off : index
          attn.ring_wait %kring[%s mod 2] fill %fill + %s div 2 : ...
          scf.yield %off + %blocks
        }
      } producer { ... }
    } {attn.persistent}
    ```
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"grids", "grids", "int64_t", /*default=*/"1",
           "Which grids: 1 those without a causal mask, 2 all (causal "
           "tiles are unequal; the schedule is static)">,
    Option<"causalGroupRounds", "causal-group-rounds", "int64_t",
           /*default=*/"4",
           "Causal grids: heads in groups of this many rounds of P tiles "
           "(0: one group of every head), the longest query blocks first "
           "in each (4: the groups of a block-per-tile kernel)">,
    Option<"dynamic", "dynamic", "int64_t", /*default=*/"2",
           "Which grids claim their tiles at run time (a tile counter): 0 "
           "none (tiles p, p + P, ...), 1 causal grids, 2 all that fit">,
  ];
}

def AttnVectorizeCPUTiles : Pass<"attn-vectorize-cpu-tiles", "::mlir::func::FuncOp"> {
  let summary = "Tile the CPU path's linalg tile ops to registers and "
                "vectorise them";
  let description = [{
    Runs on the CPU path after `convert-attn-to-linalg` (linalg on tensors of
    static tile shapes). Turns the tile program into vector code for the
    host instead of scalar loops:

    - elementwise chains are fused (`S − broadcast(m)`, `·c`, `exp2` become
      one op), so no tile-sized temporary is written between them;
    - contractions (`S = Q·Kᵀ`, `A = P·V`) are tiled to register tiles
      (`tile-m` × `tile-n` × `tile-k`, default 4×16×8: 8 AVX2 accumulators)
      and vectorised to `vector.contract`, lowered to outer products (FMAs).
      A transposed right operand (Kᵀ) is transposed once per block
      (`linalg.transpose`, 8×8 tiles), not inside every micro-tile;
    - row-wise ops (row max/sum, the elementwise softmax steps, the
      rescale of A) are tiled to one row and vectorised along it;
    - `exp2`/`exp` on vectors become polynomial approximations (FMAs, no
      libm call per element).

    Ops it cannot vectorise are left as they are (they lower to loops).
    Run `attn-hoist-vector-transfers` after bufferization to keep the
    accumulators of the register tiles in registers across the k loop.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect"
  ];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"4",
           "Rows of a contraction's register tile">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"16",
           "Columns of a contraction's register tile">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"8",
           "Reduction step of a contraction's register tile">,
    Option<"rowChunk", "row-chunk", "int64_t", /*default=*/"0",
           "Columns of an elementwise row op per vector step (0: the whole "
           "row); rows that it does not divide stay whole">,
    Option<"avx512", "avx512", "bool", /*default=*/"false",
           "exp2 on 16-lane f32 vectors through AVX-512's vscalefps "
           "(x86vector.avx512.mask.scalef) instead of the generic "
           "polynomial with its clamps">,
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Rewrite the bf16 contractions that AMX tiles take (bf16 "
           "operands, f32 accumulator, M and N multiples of 16, K of 32) to "
           "pair-interleaved (VNNI) contractions, the right operand packed "
           "from its block's source, for attn-lower-cpu-bf16-contractions "
           "after bufferization (AMX tiles or vdpbf16ps)">
  ];
}

def AttnLowerCPUBF16Contractions : Pass<"attn-lower-cpu-bf16-contractions", "::mlir::func::FuncOp"> {
  let summary = "Lower the CPU path's bf16 tile contractions to AMX tile "
                "products or AVX512-BF16 dot products (after bufferization)";
  let description = [{
    Runs on buffers, after one-shot bufferization, on bf16 contractions
    into f32: the pair-interleaved (VNNI) ones `attn-vectorize-cpu-tiles{vnni}`
    builds, whose right operand is packed already,

    ```mlir
    linalg.generic {indexing_maps = [(m, n, r, j) -> (m, r, j),
                                     (m, n, r, j) -> (r, n, j),
                                     (m, n, r, j) -> (m, n)], ...}
        ins(%q3, %kp : memref<128x64x2xbf16>, memref<64x256x2xbf16, ...>)
        outs(%s : memref<128x256xf32>)   // s += extf(q) * extf(kp)
    ```

    and plain ones (`(m, k)`, `(k, n)` or `(n, k)`, `(m, n)`). Each becomes
    AMX code (`amx` dialect: `tileloadd`, `tdpbf16ps`, `tilestored`, the
    tile configuration left to LLVM):

    - a plain contraction's right operand is packed first into the
      pair-interleaved form the tile product reads,
      `Bp[k/2][2n + (k mod 2)] = B[k][n]`, in a stack buffer of the grid
      program: two rows of B interleaved per row of Bp, or, for a
      transposed operand (`Kᵀ`), 16×16 transposes of 32-bit pairs;
    - C is walked in 32×32 blocks (16×16 f32 tiles where M or N is not a
      multiple of 32), four accumulator tiles loaded once, the k loop
      unrolled over 32-wide steps (two A tiles, two B tiles, four products),
      the accumulators stored once: 8 tile registers.

    With `amx=false` (hosts with AVX512-BF16 and no tile unit) the packed
    contractions become register tiles of `vdpbf16ps` instead
    (`x86vector.avx512.dot`): 8 rows × 32 columns of f32 accumulators (16
    registers), per pair of k two packed B rows loaded and each A pair
    broadcast, `C[m][n] += A[m][2r]·Bp[r][2n] + A[m][2r+1]·Bp[r][2n+1]`.

    Contractions of other types, shapes or layouts (a non-unit innermost
    stride) are left to the loop lowering.
  }];
  let dependentDialects = [
    "::mlir::amx::AMXDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::x86vector::X86VectorDialect"
  ];
  let options = [
    Option<"amx", "amx", "bool", /*default=*/"true",
           "AMX tiles (tileloadd, tdpbf16ps); false: vdpbf16ps register "
           "tiles for the packed contractions">
  ];
}

def AttnHoistVectorTransfers : Pass<"attn-hoist-vector-transfers", "::mlir::func::FuncOp"> {
  let summary = "Keep loop-carried vector tiles in registers (after "
                "bufferization)";
  let description = [{
    Moves a `vector.transfer_read`/`transfer_write` pair of the same buffer
    out of the loop that reads and writes it each iteration (the register
    tile of a contraction across its k loop), through
    `linalg::hoistRedundantVectorTransfers`. Runs on buffers, after
    one-shot bufferization; first folds the loop iter_args that each
    iteration yields unchanged (bufferization threads the accumulator's
    buffer through the loops that way), since only transfers of a
    loop-invariant buffer move.
  }];
}

def AttnFinishOpenMPGrid : Pass<"attn-finish-openmp-grid", "::mlir::ModuleOp"> {
  let summary = "Dynamic schedule and stack scope for the CPU path's OpenMP "
                "grid loop";
  let description = [{
    Runs after `convert-scf-to-openmp` on the CPU path. For each
    `omp.wsloop` (the grid of batch, head and query block): sets
    `schedule(dynamic)` (causal query blocks differ in work by up to
    Nk/block-kv), turns the body's `memref.alloca_scope` into
    `llvm.intr.stacksave`/`stackrestore` around the body, and rejects a stack
    buffer (`memref.alloca`) allocated outside an `omp.parallel` and used
    inside it, which every thread would share.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttnLegalizeBF16Memory : Pass<"attn-legalize-bf16-memory"> {
  let summary = "Load and store bf16 vectors as i16 vectors (the CPU path, "
                "hosts without native bf16)";
  let description = [{
    Runs on the LLVM dialect at the end of the CPU pipeline. Each
    `llvm.load` of a `vector<N x bf16>` becomes a load of `vector<N x i16>`
    followed by `llvm.bitcast` to bf16, and each `llvm.store` of one stores
    the bitcast to i16; alignment, volatility and ordering are kept. The
    bytes moved are the same. Why: on x86 without AVX512-BF16 LLVM's backend
    splits a bf16 vector load or store into one 16-bit move per element
    (slow code, and after loop unrolling basic blocks large enough that the
    machine scheduler takes seconds), while i16 vectors move as whole
    registers. Scalar bf16 accesses are left alone.

    Example:
    ```mlir
    %v = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<128xbf16>
    // becomes
    %i = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<128xi16>
    %v = llvm.bitcast %i : vector<128xi16> to vector<128xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // ATTN_TRANSFORMS_PASSES_TD
