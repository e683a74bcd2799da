//===- AttnGPUOps.td - attn GPU-level ops ------------------*- tablegen -*-===//
//
// Ops that only exist once tiles have GPU layouts (attn-assign-layouts) and
// the key/value loop is software pipelined (attn-pipeline-kv-loop).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNGPUOPS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNGPUOPS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "attn/Dialect/Attn/IR/AttnTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Attn_ConvertLayoutOp : Attn_Op<"convert_layout", [Pure]> {
  let summary = "Move a tile from one layout to another";
  let description = [{
    The same tile (shape and element type) in another layout. The GPU
    lowering supports shared memory → `#attn.mma` (ldmatrix into A operand
    fragments); any other pair is reported as unsupported there.

    Example (Q kept in registers for the whole program):

    ```mlir
    %qr = attn.convert_layout %q
        : tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
        -> tensor<64x128xbf16, #attn.mma<warps = 4>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Attn_AllocRingOp : Attn_Op<"alloc_ring"> {
  let summary = "Allocate a ring of tile buffers in shared memory";
  let description = [{
    Reserves `stages` tile buffers in the program's shared memory for as long
    as the program runs. The contents start undefined.

    Example:

    ```mlir
    %ring = attn.alloc_ring
        : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
    ```
  }];
  let results = (outs Attn_RingType:$ring);
  let assemblyFormat = "attr-dict `:` qualified(type($ring))";
}

def Attn_AsyncLoadTileOp : Attn_Op<"async_load_tile",
                                   [AttrSizedOperandSegments]> {
  let summary = "Start copying a block of rows into a ring slot";
  let description = [{
    Starts an asynchronous copy of `rows` rows of `source` at `indices` (as
    `attn.load_tile` reads them; rows past `rows` become zero) into slot
    `slot` of `ring`. The copy joins the current group of copies, which
    `attn.async_commit` closes; it is complete, and visible to every thread of
    the program, after an `attn.async_wait` that leaves fewer groups pending
    than were committed after it. `slot` must be in [0, stages).

    With `bulk` the copy is one bulk tensor copy (TMA) per 128-byte column
    slab, issued by one thread, from a tensor map of `source` that the
    launcher passes with the kernel; it completes on the slot's "full"
    barrier (the ring's fills are then signed with their bytes, by
    `attn.async_arrive`), not in a copy group. Rows past the source's end
    read as zero, so `rows` must be what remains of the source from the
    row index (at most the tile's rows) or the tile's rows. The tile must be
    a 16-bit or 8-bit #attn.shared tile of 128-byte slabs, the source of
    rank 2 to 5.

    With `cols` the tile is a window of columns, as `attn.load_tile ... cols`
    reads it: one index per source dim (the last the first column), columns
    past `cols` zero. Only bulk copies take a window (fp8's transposed V
    block, [Dv, Bc] of a [B, Hkv, Dv, Nk] V): its rows are whole and `cols`
    is what remains of the source from the column index or the tile's
    columns.

    With `pages` the rows are gathered from a paged cache through a block
    table, as `attn.load_tile ... pages` reads them (not a bulk copy).
    With `group` the rows are packed (position, head) pairs, as
    `attn.load_tile ... group` reads them (not a bulk copy).

    Example:

    ```mlir
    attn.async_load_tile %key[%b, %h, %row] rows %n, %ring[%slot]
        : memref<?x?x?x128xbf16>,
          !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                   Variadic<Index>:$indices, Index:$rows,
                   Optional<Index>:$cols,
                   Arg<Optional<MemRefRankOf<[I32], [2]>>, "", [MemRead]>:$pages,
                   Optional<Index>:$group,
                   Arg<Attn_RingType, "", [MemWrite]>:$ring, Index:$slot,
                   UnitAttr:$bulk);
  let assemblyFormat = [{
    $source `[` $indices `]` `rows` $rows (`cols` $cols^)?
    (`pages` `(` $pages^ `:` type($pages) `)`)? (`group` `(` $group^ `)`)?
    `,` $ring `[` $slot `]` attr-dict `:` type($source) `,`
    qualified(type($ring))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$indices,
                   "::mlir::Value":$rows, "::mlir::Value":$ring,
                   "::mlir::Value":$slot), [{
      build($_builder, $_state, source, indices, rows, /*cols=*/::mlir::Value(),
            /*pages=*/::mlir::Value(), /*group=*/::mlir::Value(), ring, slot,
            /*bulk=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Why `tile` (a ring slot) and `source` cannot take a bulk tensor
    /// copy, or "" where they can: a 16-bit #attn.shared tile of 128-byte
    /// slabs and a source of rank 2 to 5 (the verifier's rule for {bulk}).
    static std::string bulkCopyRefusal(RankedTensorType tile,
                                       MemRefType source);
  }];
  let hasVerifier = 1;
}

def Attn_AsyncCommitOp : Attn_Op<"async_commit"> {
  let summary = "Close the current group of asynchronous copies";
  let description = [{
    The copies started since the last commit form one group (possibly
    empty); `attn.async_wait` counts groups.

    Example: `attn.async_commit`
  }];
  let assemblyFormat = "attr-dict";
}

def Attn_AsyncWaitOp : Attn_Op<"async_wait"> {
  let summary = "Wait for copy groups, then synchronise the program";
  let description = [{
    Waits until at most `pending` of this thread's committed copy groups are
    still in flight, then synchronises all threads of the program, so that
    the completed copies are visible to all and every thread is done reading
    what earlier steps read.

    Example: `attn.async_wait 0`
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Attn_StoreSlotOp : Attn_Op<"store_slot"> {
  let summary = "Write a register tile into a ring slot for attn.dot to read";
  let description = [{
    Every thread that holds part of `tile` (a register tile: `#attn.mma`)
    writes its elements into slot `slot` of `ring` (a 16-bit tile of
    128-byte slabs), where a warpgroup product reads it as an operand from
    shared memory (attn.ring_slot). A product's operand is read from shared
    memory by all warpgroups, while each warpgroup computed only its own rows
    of it (the backward's dS, staged for dQᵀ = Kᵀ·dS).

    Synchronises the threads that hold the tile twice: before the writes,
    so that every one of them is done reading the slot's previous contents
    (their products on it were waited for), and after, so that the whole
    tile is visible to each of them, wgmma's reads included. Threads that
    do not hold the tile (a producer warpgroup) take no part. With
    `slot_released` the first is left out: the schedule guarantees that
    the same threads synchronised after their last read of the slot (the
    loop's other staging op, attn.accumulate_tile via, in between).

    Example:

    ```mlir
    attn.store_slot %ds, %stage[%c0]
        : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>,
          !attn.ring<1, tensor<128x64xbf16,
                               #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile,
                   Arg<Attn_RingType, "", [MemRead, MemWrite]>:$ring,
                   Index:$slot, UnitAttr:$slot_released);
  let assemblyFormat = [{
    $tile `,` $ring `[` $slot `]` attr-dict `:` type($tile) `,`
    qualified(type($ring))
  }];
  let hasVerifier = 1;
}

def Attn_RingSlotOp : Attn_Op<"ring_slot", [
    TypesMatchWith<"result is the ring's tile type", "ring", "tile",
                   "::llvm::cast<RingType>($_self).getTile()">]> {
  let summary = "The tile in one slot of a ring";
  let description = [{
    The tile that slot `slot` of `ring` holds now (after the copies into it
    were waited for). `slot` must be in [0, stages).

    Example:

    ```mlir
    %k = attn.ring_slot %ring[%slot]
        : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
    ```
  }];
  let arguments = (ins Attn_RingType:$ring, Index:$slot);
  let results = (outs AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $ring `[` $slot `]` attr-dict `:` qualified(type($ring))
  }];
}

//===----------------------------------------------------------------------===//
// Rings synchronised per slot (mbarriers) instead of per copy group
//===----------------------------------------------------------------------===//
//
// A ring whose slots are waited for with attn.ring_wait carries two barriers
// per slot: "full" (every thread's copies into the slot landed) and "empty"
// (every thread is done reading the slot). Slot s is filled again and again;
// fill k of a slot is its k-th (from 0). With them no thread waits for the
// whole program at each block, only for the slot it needs: the warpgroups of
// a program may drift apart by up to the ring's depth.

def Attn_AsyncArriveOp : Attn_Op<"async_arrive"> {
  let summary = "Count this thread's copies into a slot towards its fill";
  let description = [{
    Once every copy this thread has started so far has landed, the thread
    counts as arrived at slot `slot`'s current fill (cp.async.mbarrier.arrive
    .noinc on its "full" barrier). A fill is complete when every thread of
    the program has arrived, whether or not it copied anything. On a ring
    filled by bulk copies one thread arrives for all, announcing the slot's
    bytes (mbarrier.arrive.expect_tx); the fill is complete when they landed.

    Example: `attn.async_arrive %ring[%slot] : !attn.ring<2, tensor<...>>`
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemWrite]>:$ring, Index:$slot);
  let assemblyFormat = [{
    $ring `[` $slot `]` attr-dict `:` qualified(type($ring))
  }];
}

def Attn_RingWaitOp : Attn_Op<"ring_wait"> {
  let summary = "Wait until a slot's fill has landed";
  let description = [{
    Waits until fill `fill` of slot `slot` is complete (every thread arrived
    with attn.async_arrive and their copies landed); the slot's tile is then
    visible to this thread.

    Example: `attn.ring_wait %ring[%slot] fill %k : !attn.ring<2, tensor<...>>`
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$ring,
                   Index:$slot, Index:$fill);
  let assemblyFormat = [{
    $ring `[` $slot `]` `fill` $fill attr-dict `:` qualified(type($ring))
  }];
}

def Attn_RingReleaseOp : Attn_Op<"ring_release"> {
  let summary = "This thread is done reading a slot";
  let description = [{
    Arrives at slot `slot`'s "empty" barrier: the thread will not read the
    slot's current fill again. The slot may be refilled once every thread
    has released it (attn.ring_acquire).

    Example: `attn.ring_release %ring[%slot] : !attn.ring<2, tensor<...>>`
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$ring,
                   Index:$slot);
  let assemblyFormat = [{
    $ring `[` $slot `]` attr-dict `:` qualified(type($ring))
  }];
}

def Attn_RingAcquireOp : Attn_Op<"ring_acquire"> {
  let summary = "Wait until a slot may be filled for the given time";
  let description = [{
    Before fill `fill` (k) of slot `slot`: waits until every thread has
    released fill k − 1; fill 0 does not wait.

    Example: `attn.ring_acquire %ring[%slot] fill %k : !attn.ring<2, tensor<...>>`
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$ring,
                   Index:$slot, Index:$fill);
  let assemblyFormat = [{
    $ring `[` $slot `]` `fill` $fill attr-dict `:` qualified(type($ring))
  }];
}

def Attn_RingFillsOp : Attn_Op<"ring_fills"> {
  let summary = "How many times a program fills a ring";
  let description = [{
    The program fills `ring` `count` times in all: fills at positions
    0 .. count − 1, position p in slot p mod S as that slot's fill p div S
    (S the ring's slots), the numbering attn-pipeline-kv-loop gives the
    slot and fill operands of the ring's ops. It computes nothing: a
    program that runs several tiles one after another (attn-persist-tiles)
    continues the next tile's fills at position count. The GPU lowering
    erases it. Placed after the program's last fill of the ring, in every
    role that fills or reads it.

    Example: `attn.ring_fills %kring count %blocks : !attn.ring<2, tensor<...>>`
  }];
  // A write, so that nothing removes the unused marker as dead (an op that
  // only reads would be) nor moves ring ops across it.
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$ring,
                   Index:$count);
  let assemblyFormat = [{
    $ring `count` $count attr-dict `:` qualified(type($ring))
  }];
}

//===----------------------------------------------------------------------===//
// Tiles claimed at run time (dynamic persistent grids)
//===----------------------------------------------------------------------===//
//
// A tile queue is a ring of `tensor<1x1xi32>` slots with per-slot barriers
// (`!attn.ring<S, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>`):
// the producer posts the index of each tile its program runs next, every
// thread of the program takes it. Entry k of the queue is fill k div S of
// slot k mod S. A program whose tiles differ in cost (causal) takes its
// next tile when it finishes one, from a counter the launch shares
// (FlashAttention-3's dynamic tile scheduler), instead of the tiles p,
// p + P, ... fixed in advance.

def Attn_PostTileOp : Attn_Op<"post_tile"> {
  let summary = "Put a tile index into a tile queue";
  let description = [{
    Once every thread of the program has taken fill `fill` − 1 of slot
    `slot` of the tile queue `queue` (attn.take_tile; fill 0 waits for
    nothing), one thread (the producer's first, or thread 0 of a program
    without one) writes `tile` into the slot as its fill `fill`.

    Example:

    ```mlir
    attn.post_tile %queue[%c0] fill %c0, %pid
        : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
    ```
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$queue,
                   Index:$slot, Index:$fill, Index:$tile);
  let assemblyFormat = [{
    $queue `[` $slot `]` `fill` $fill `,` $tile attr-dict `:`
    qualified(type($queue))
  }];
  let hasVerifier = 1;
}

def Attn_ClaimTileOp : Attn_Op<"claim_tile"> {
  let summary = "Claim the launch's next tile into a tile queue";
  let description = [{
    Posts (as attn.post_tile) `programs` + c, where c counts the claims
    made before this one in the whole launch (an atomic increment of a
    32-bit counter that the launcher passes with the kernel, zero at the
    start of the launch). The first tile of program p is p (posted, not
    claimed), so tile `programs` + c is the next tile nobody runs yet. Each
    tile run makes one claim, so the claims of a launch of `tiles` tiles
    number `tiles`: the one that draws c = `tiles` − 1 is the last, and
    sets the counter back to zero for the next launch on the stream.

    Example:

    ```mlir
    attn.claim_tile %queue[%s] fill %f, tiles %tiles programs %P
        : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
    ```
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$queue,
                   Index:$slot, Index:$fill, Index:$tiles, Index:$programs);
  let assemblyFormat = [{
    $queue `[` $slot `]` `fill` $fill `,` `tiles` $tiles `programs` $programs
    attr-dict `:` qualified(type($queue))
  }];
  let hasVerifier = 1;
}

def Attn_TakeTileOp : Attn_Op<"take_tile"> {
  let summary = "Read the next tile index from a tile queue";
  let description = [{
    Waits until fill `fill` of slot `slot` of the tile queue `queue` was
    posted, reads it and counts this thread as done with it. Every thread
    of the program takes every fill.

    Example:

    ```mlir
    %t = attn.take_tile %queue[%s] fill %f
        : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
    ```
  }];
  let arguments = (ins Arg<Attn_RingType, "", [MemRead, MemWrite]>:$queue,
                   Index:$slot, Index:$fill);
  let results = (outs Index:$tile);
  let assemblyFormat = [{
    $queue `[` $slot `]` `fill` $fill attr-dict `:` qualified(type($queue))
  }];
  let hasVerifier = 1;
}

def Attn_NumProgramsOp : Attn_Op<"num_programs", [Pure]> {
  let summary = "How many programs a persistent grid launches";
  let description = [{
    min(`tiles`, the programs the device runs at once): the size of the
    one-dimensional grid of a persistent program (attn-persist-tiles),
    whose program p runs tiles p, p + P, p + 2P, ... of `tiles`. One
    program per multiprocessor, of the device the kernel runs on: the
    runtime reads its SM count and launches that many (the kernel's
    `persistent` launch grid); inside the kernel the op is the launch's
    grid size; a host launch generated by the compiler uses the target's
    `num_sms`.

    Example: `%programs = attn.num_programs %tiles`
  }];
  let arguments = (ins Index:$tiles);
  let results = (outs Index:$programs);
  let assemblyFormat = "$tiles attr-dict";
}

//===----------------------------------------------------------------------===//
// Grids that follow one another on a stream (programmatic dependent launch)
//===----------------------------------------------------------------------===//
//
// A decode step is two grids back to back (split_kv, then merge_splits):
// without help the second is launched only once the first has drained.
// Launched with programmatic stream serialization (sm_90+), a grid's
// blocks may start while the grid before it on the stream still runs; one
// that waits (attn.wait_prior_grids) before it touches global memory is
// then exactly as ordered as before, and its launch, block scheduling and
// prologue overlap the previous grid's tail.

def Attn_WaitPriorGridsOp : Attn_Op<"wait_prior_grids"> {
  let summary = "Wait until the grids this launch depends on are complete";
  let description = [{
    Blocks the thread until every grid that precedes this one on its stream
    has completed and its memory writes are visible
    (`griddepcontrol.wait`). In a program that may be launched before its
    predecessor completes (the kernel's `dependent_launch`), no global
    memory is read or written before it. Without such a launch it returns
    at once.

    Example: `attn.wait_prior_grids`
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Attn_LaunchDependentsOp : Attn_Op<"launch_dependents"> {
  let summary = "Let the next grid on the stream start its blocks";
  let description = [{
    Once every block of this grid has run it (or exited), the grid launched
    after it on the stream with programmatic stream serialization may start
    (`griddepcontrol.launch_dependents`); that grid still waits for this
    one's completion (attn.wait_prior_grids) before it touches the memory
    this one writes, so the op only lets its launch and prologue start
    early.

    Example: `attn.launch_dependents`
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroups taking turns (ping-pong)
//===----------------------------------------------------------------------===//
//
// In a program of G warpgroups, the code between attn.await_turn and
// attn.pass_turn runs in one warpgroup at a time, in the order 0, 1, ...,
// G − 1, 0, ... (FlashAttention-3's ping-pong: while one warpgroup's matrix
// products run, the other computes its softmax). Every warpgroup must run
// the same number of await/pass pairs, between one attn.start_turns and one
// attn.end_turns. In a program of one warpgroup they do nothing.

def Attn_StartTurnsOp : Attn_Op<"start_turns"> {
  let summary = "Give warpgroup 0 the first turn";
  let description = [{
    Once per program, before any attn.await_turn. Example: `attn.start_turns`
  }];
  let assemblyFormat = "attr-dict";
}

def Attn_AwaitTurnOp : Attn_Op<"await_turn"> {
  let summary = "Wait until it is this warpgroup's turn";
  let description = [{
    Example: `attn.await_turn`
  }];
  let assemblyFormat = "attr-dict";
}

def Attn_PassTurnOp : Attn_Op<"pass_turn"> {
  let summary = "Give the turn to the next warpgroup";
  let description = [{
    Example: `attn.pass_turn`
  }];
  let assemblyFormat = "attr-dict";
}

def Attn_EndTurnsOp : Attn_Op<"end_turns"> {
  let summary = "Take back the last turn";
  let description = [{
    Once per program, after the last attn.pass_turn: warpgroup 0 takes the
    turn the last warpgroup passed, so that no barrier arrival is left
    pending. Example: `attn.end_turns`
  }];
  let assemblyFormat = "attr-dict";
}

def Attn_DotWaitOp : Attn_Op<"dot_wait", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Wait for an asynchronous attn.dot";
  let description = [{
    The value of the `attn.dot {async}` that produced `input`, once at most
    `pending` asynchronous products started after it are still running
    (wgmma.wait_group). Until then the product's registers may not be read.

    Example:

    ```mlir
    %s = attn.dot_wait %s0 {pending = 0}
        : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   ConfinedAttr<I64Attr, [IntMinValue<0>]>:$pending);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialisation
//===----------------------------------------------------------------------===//

def Attn_WarpSpecializeOp : Attn_Op<"warp_specialize", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "Split a program into consumer warpgroups and a producer "
                "warpgroup";
  let description = [{
    The program's warps (those its register layouts name: the consumers)
    run `consumers`; one more warpgroup (4 warps), numbered after them, runs
    `producer`. The producer issues the copies into the rings synchronised
    per slot (`attn.ring_acquire`, `attn.async_load_tile`,
    `attn.async_arrive`); the consumers wait for fills, read the slots and
    release them. A fill is complete once the producer's 128 threads have
    arrived; a slot may be refilled once every consumer thread released it.
    Each role first sets its registers per thread (setmaxnreg):
    `consumer_registers` raised, `producer_registers` lowered; 0 leaves the
    budget as the launch gave it. Both regions run to the end of the
    program: the op is the last one of its block.

    Example:

    ```mlir
    attn.warp_specialize registers(consumers = 232, producer = 40) {
      attn.ring_wait %kring[%slot] fill %fill : !attn.ring<2, tensor<...>>
      ...
      attn.ring_release %kring[%slot] : !attn.ring<2, tensor<...>>
    } producer {
      attn.ring_acquire %kring[%slot] fill %fill : !attn.ring<2, tensor<...>>
      attn.async_load_tile %k[%b, %h, %row] rows %n, %kring[%slot] : ...
      attn.async_arrive %kring[%slot] : !attn.ring<2, tensor<...>>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$consumer_registers,
                   ConfinedAttr<I64Attr, [IntMinValue<0>]>:$producer_registers);
  let regions = (region SizedRegion<1>:$consumers, SizedRegion<1>:$producer);
  let assemblyFormat = [{
    `registers` `(` `consumers` `=` $consumer_registers `,` `producer` `=`
    $producer_registers `)` $consumers `producer` $producer attr-dict
  }];
  let hasVerifier = 1;
}

def Attn_TensorMapOp : Attn_Op<"tensor_map", [Pure]> {
  let summary = "The tensor map a launcher encodes for bulk copies from a "
                "memref";
  let description = [{
    Host side of a kernel launch: the CUtensorMap (128 bytes, passed by
    value as a grid-constant kernel parameter) that describes `source` for
    bulk tensor copies of boxes of `box_rows` rows by `box_cols` columns
    (innermost: one shared slab, 128 or 64 bytes), swizzled by the box's
    row bytes, out-of-range elements read as zero.
    The launcher (the runtime, KernelABI.h) encodes it from the memref it
    passes; the op names it in the host IR.

    Example:

    ```mlir
    %map = attn.tensor_map %k box [128, 64]
        : memref<?x?x?x128xbf16> -> !llvm.ptr
    ```
  }];
  let arguments = (ins AnyMemRef:$source,
                   ConfinedAttr<I64Attr, [IntPositive]>:$box_rows,
                   ConfinedAttr<I64Attr, [IntPositive]>:$box_cols);
  let results = (outs AnyType:$map);
  let assemblyFormat = [{
    $source `box` `[` $box_rows `,` $box_cols `]` attr-dict `:`
    type($source) `->` type($map)
  }];
  let hasVerifier = 1;
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNGPUOPS_TD
