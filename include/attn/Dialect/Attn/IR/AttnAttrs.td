//===- AttnAttrs.td - attn attributes ----------------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Attn_ReduceKind : I32EnumAttr<"ReduceKind", "row reduction kind", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Sum", 1, "sum">
  ]> {
  let cppNamespace = "::mlir::attn";
  let genSpecializedAttr = 0;
}
def Attn_ReduceKindAttr : EnumAttr<Attn_Dialect, Attn_ReduceKind, "reduce_kind">;

def Attn_TargetAttr : AttrDef<Attn_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "Description of the machine that tiling sizes its blocks for";
  let description = [{
    Names the architecture (`cpu` or a chip of attn's chip table,
    `attn/runtime/Chips.h`: `sm_80` ... `sm_90a`), the fast on-chip memory
    one program (thread block) may use, in bytes, and the number of
    processors (SMs). The IO-aware tiling pass reads
    it from the op's `target` attribute, else from an `attn.target` attribute
    on an enclosing op, else from its `target` option.

    Example:

    ```mlir
    #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"architecture name">:$arch,
    "int64_t":$smem_per_block,
    "int64_t":$num_sms
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for NVIDIA GPU targets (sm_*).
    bool isGPU() const { return getArch().starts_with("sm_"); }
    /// Hopper's architecture-specific instructions (wgmma, setmaxnreg):
    /// sm_90a only; PTX for it runs on no other chip (Chips.h).
    bool hasWarpgroupMma() const;
    /// Bulk tensor copies (TMA): sm_90 and later (Chips.h).
    bool hasBulkCopies() const;
    /// Programmatic dependent launch (griddepcontrol): sm_90 and later.
    bool hasGridDependencyControl() const;
    /// A known target by name ("cpu", "sm_80", ...), or null.
    static TargetAttr getKnown(::mlir::MLIRContext *ctx, ::llvm::StringRef name);
  }];
}


// An optional list of integers written in brackets: `[0, 128, 1, 128]`
// (the default container syntax has none, which a struct's commas would
// make ambiguous).
class Attn_BracketedI64List<string desc> :
    OptionalArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> values;
    if ($_parser.parseCommaSeparatedList(
            ::mlir::AsmParser::Delimiter::Square,
            [&] { return $_parser.parseInteger(values.emplace_back()); }))
      return ::mlir::failure();
    return values;
  }() }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

def Attn_KernelInfoAttr : AttrDef<Attn_Dialect, "KernelInfo"> {
  let mnemonic = "kernel_info";
  let summary = "What a generated GPU kernel is and needs to be launched";
  let description = [{
    convert-attn-gpu-to-nvvm sets it (as `attn.kernel`) on each kernel it
    outlines, read off the tile program; attn-gpu-module-to-binary and the
    pipeline that writes the bundle's manifest read it. The manifest line of
    a kernel is this attribute plus what the problem says (its LSE and KV
    cache operands) and the chip: `attn/runtime/Bundle.h` names the keys.

    - `block_m`, `block_n`: the query rows of a thread block and the keys of
      one key/value block (0 in a program without one: attn.merge_splits has
      no key blocks; a program of single tile ops, as the conversion's tests
      have, may have neither).
    - `threads`, `smem_bytes`: the block size and dynamic shared memory.
    - `head_dim`, `head_dim_v`: of Q/K and of V/O (`head_dim` 0 in a
      merge, whose only head dim is its output's).
    - `dtype`: the element type of Q, K and V (`bf16`, `f16`, `f32`; empty
      in a program that reads none of them).
    - `causal`: whether the program masks causally.
    - `window_left`, `window_right`: its sliding window's bounds (-1, the
      default: none; attn.attention's window_left / window_right).
    - `softcap`: its scores' soft-cap C (an f32; absent: none).
    - `persistent`: the kernel loops over the tiles of `grid` (each thread
      block runs tiles b, b + P, ... of the grid's x·y·z, P the blocks
      launched): launch min(SM count, x·y·z) blocks in x (the manifest's
      `grid=persistent(X,Y,Z)`). Needs `grid`.
    - `tile_counter`: a persistent kernel whose blocks claim their tiles
      from a counter (attn.claim_tile): the launcher passes a pointer to a
      32-bit zero in global memory as the last parameter, after the tensor
      maps, and the kernel leaves it zero; one counter per stream (the
      manifest's `grid=dynamic(X,Y,Z)`). Needs `persistent`.
    - `dependent_launch`: the kernel waits for the grids before it on the
      stream (attn.wait_prior_grids) before it touches global memory, so
      the launcher may start it while they still run (programmatic stream
      serialization; the manifest's `pdl=1`).
    - `program`: `attention`, `split_kv` or `merge_splits`.
    - `grid`: the launch grid (x, y, z) as the runtime's grid factors
      (`q_blocks`, `heads_q`, `batch`, `q_blocks*splits`, ...); absent: the
      program does not say.
    - `tensor_maps`: (function argument, box rows, box bytes) triples: the
      CUtensorMaps the kernel takes after its arguments, one per memref read
      with bulk copies or added into with bulk tensor reductions; a box is
      one slab wide (128 or 64 bytes of columns), swizzled by its width.
    - `register_estimate`: attn-assign-layouts' registers per thread (0:
      none); `dynamic_row_stride`: whether a tile copy's row stride is a
      run-time value. attn-gpu-module-to-binary tunes LLVM by both.

    Example:

    ```mlir
    #attn.kernel_info<block_m = 128, block_n = 128, threads = 384,
                      smem_bytes = 164096, head_dim = 128, head_dim_v = 128,
                      dtype = "bf16", causal = true,
                      grid = ["q_blocks", "heads_q", "batch"],
                      tensor_maps = [0, 128, 128, 1, 128, 128, 2, 128, 128],
                      register_estimate = 168>
    ```
  }];
  let parameters = (ins
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$threads,
    "int64_t":$smem_bytes,
    "int64_t":$head_dim,
    "int64_t":$head_dim_v,
    StringRefParameter<"element type of Q, K and V">:$dtype,
    "bool":$causal,
    StringRefParameter<"what the kernel computes", [{"attention"}]>:$program,
    OptionalParameter<"::mlir::ArrayAttr", "launch grid factors (x, y, z)">:$grid,
    Attn_BracketedI64List<"(argument, box rows, box bytes) per tensor map">:$tensor_maps,
    DefaultValuedParameter<"int64_t", "0">:$register_estimate,
    DefaultValuedParameter<"bool", "false">:$dynamic_row_stride,
    DefaultValuedParameter<"int64_t", "-1">:$window_left,
    DefaultValuedParameter<"int64_t", "-1">:$window_right,
    OptionalParameter<"::mlir::FloatAttr", "soft-cap (none when absent)">:$softcap,
    DefaultValuedParameter<"bool", "false">:$persistent,
    DefaultValuedParameter<"bool", "false">:$tile_counter,
    DefaultValuedParameter<"bool", "false">:$dependent_launch
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// GPU layouts: where each element of a tile lives
//===----------------------------------------------------------------------===//

def Attn_MmaLayoutAttr : AttrDef<Attn_Dialect, "MmaLayout"> {
  let mnemonic = "mma";
  let summary = "Distributed layout of mma.sync m16n8k16 fragments over warps";
  let description = [{
    A 2-d tile `[R, C]` in registers, spread over `warps` warps the way
    `mma.sync.m16n8k16` holds its accumulators. Warp `w` owns the rows
    `[w·16·MT, (w+1)·16·MT)`, MT = R / (16·warps) 16-row m-tiles; every warp
    holds all C columns as C/8 n-tiles of 8. In lane `l` (g = l / 4,
    q = l % 4) the thread holds, in this order,

    ```
    for t in [0, MT), n in [0, C/8), e in [0, 4):
      row = w·16·MT + 16·t + g + 8·(e / 2),  col = 8·n + 2·q + e % 2
    ```

    i.e. MT·(C/8)·4 elements. With a 16-bit element type the same layout is
    the A operand of `mma.sync.m16n8k16`: k-step kk reads n-tiles 2·kk and
    2·kk+1, so an f32 accumulator truncated to f16/bf16 feeds the next
    product with no data movement (FlashAttention-2's P = softmax(S) trick).
    The four lanes of a quad share a row: row reductions shuffle over lane
    bits 0 and 1.

    Example: `tensor<128x64xf32, #attn.mma<warps = 4>>` (MT = 2, 64 floats
    per thread).

    `version` names the tensor-core instruction that produces and reads the
    tile: 2 for `mma.sync` (the default), 3 for Hopper's warpgroup MMA
    (`wgmma.mma_async.m64nNk16`, sm_90a). Version 3 needs one m-tile per
    warp (R = 16·warps) and whole warpgroups (warps a multiple of 4): then
    warpgroup G = w / 4 owns rows [64·G, 64·G + 64), and the order above
    (MT = 1) is exactly wgmma's accumulator register order d[4·n + e] for
    an m64nC instruction, and, for a 16-bit tile, its A-from-registers
    operand (k-step kk: n-tiles 2·kk, 2·kk+1). Every per-op pattern that
    reads the layout (reduce, broadcast, mask, loads, stores) is the same
    for both versions; only `attn.dot` differs.

    Example: `tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>` (two
    warpgroups of 64 rows, 64 floats per thread).
  }];
  let parameters = (ins "int64_t":$warps,
                        DefaultValuedParameter<"int64_t", "2">:$version);
  let builders = [
    AttrBuilder<(ins "int64_t":$warps), [{
      return $_get($_ctxt, warps, 2);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// 16-row m-tiles per warp for a tile of `rows` rows.
    int64_t getMTiles(int64_t rows) const { return rows / (16 * getWarps()); }
    int64_t getThreads() const { return 32 * getWarps(); }
    /// Hopper warpgroup MMA (wgmma) instead of mma.sync.
    bool isWarpgroup() const { return getVersion() == 3; }
    /// Elements one thread holds of a tile of this shape.
    int64_t getElementsPerThread(::llvm::ArrayRef<int64_t> shape) const {
      return getMTiles(shape[0]) * (shape[1] / 8) * 4;
    }
    /// Whether a 2-d tile of this shape can take the layout (else a
    /// diagnostic through `emitError`).
    ::mlir::LogicalResult verifyShape(
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        ::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Attn_SliceLayoutAttr : AttrDef<Attn_Dialect, "SliceLayout"> {
  let mnemonic = "slice";
  let summary = "Per-row (or per-column) vector of an mma layout";
  let description = [{
    A 1-d tile `[R]` holding one value per row of a `[R, C]` tile in the
    `parent` mma layout (a row reduction's result): each thread holds the
    values of the rows it holds there, replicated over the 4 lanes of its
    quad, in the order

    ```
    for t in [0, MT), h in [0, 2):  row = w·16·MT + 16·t + g + 8·h
    ```

    (2·MT elements). Broadcasting it back along the columns moves no data.

    With `dim = 1`, a 1-d tile `[C]` holding one value per column of a
    `[R, C]` tile instead (a per-query value on the backward pass's key-major
    tiles): each thread holds the values of the columns it holds,
    replicated over its lane's row group and every warp, in the order

    ```
    for n in [0, C/8), e in [0, 2):  col = 8·n + 2·q + e
    ```

    (C/4 elements); `attn.broadcast {per_column}` moves no data either.

    Example: `tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>`,
    `tensor<64xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>>`.
  }];
  let parameters = (ins "MmaLayoutAttr":$parent,
                        DefaultValuedParameter<"int64_t", "0">:$dim);
  let builders = [
    AttrBuilder<(ins "MmaLayoutAttr":$parent), [{
      return $_get($_ctxt, parent, 0);
    }]>
  ];
  let assemblyFormat = "`<` qualified($parent) (`,` `dim` `=` $dim^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the vector runs along the parent's columns (dim = 1).
    bool isPerColumn() const { return getDim() == 1; }
    /// Elements one thread holds of a vector of `n` entries.
    int64_t getElementsPerThread(int64_t n) const {
      return isPerColumn() ? n / 4 : 2 * getParent().getMTiles(n);
    }
  }];
}

def Attn_SharedLayoutAttr : AttrDef<Attn_Dialect, "SharedLayout"> {
  let mnemonic = "shared";
  let summary = "Row-major tile in shared memory, swizzled or padded";
  let description = [{
    A 2-d tile of 16-bit elements resident in shared memory, row-major, in
    16-byte chunks. With `swizzle = 8` chunk c of row r sits at chunk
    position `c ^ (r % 8)` (rows of a multiple of 8 chunks); with `pad = P`
    each row is followed by P bytes. Either way the eight row addresses of an
    `ldmatrix` fall in eight different bank groups. A value of such a type
    is the tile's address: it is read by `attn.dot` (ldmatrix per k-step) or
    `attn.convert_layout`.

    Example: `tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>`.

    With `slab = 128` (bytes) the tile is stored as column slabs of 128
    bytes (64 16-bit elements): slab s holds columns [64·s, 64·s + 64) of
    every row, rows 128 bytes apart, the slabs one after another
    (`rows·128` bytes each), and in each slab chunk c of row r sits at
    chunk position `c ^ (r % 8)`. Each 8-row group is one 1024-byte
    swizzle atom: the layout wgmma's shared-memory descriptors call
    "128-byte swizzle" and that a TMA copy with CU_TENSOR_MAP_SWIZZLE_128B
    and a 64-column box writes. It needs `swizzle = 8`, no padding, a
    multiple of 64 columns and a 1024-byte aligned base.

    With `slab = 64` the slabs are 64 bytes (32 16-bit columns), rows 64
    bytes apart, and chunk c of row r sits at chunk position
    `c ^ ((r / 2) % 4)`: the "64-byte swizzle" of wgmma's descriptors and of
    CU_TENSOR_MAP_SWIZZLE_64B (a 512-byte atom of 8 rows). It needs
    `swizzle = 4` (four chunks permuted). Tiles whose rows are a multiple
    of 64 bytes but not of 128 (head dim 96) take it. In general a slab of
    n = slab / 16 chunks puts chunk c of row r at `c ^ ((r / (8 / n)) % n)`.

    Example: `tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0,
    slab = 128>>` (two slabs of 16 KiB); `tensor<128x96xbf16,
    #attn.shared<swizzle = 4, pad = 0, slab = 64>>` (three slabs of 8 KiB).
  }];
  let parameters = (ins "int64_t":$swizzle, "int64_t":$pad,
                        DefaultValuedParameter<"int64_t", "0">:$slab);
  let builders = [
    AttrBuilder<(ins "int64_t":$swizzle, "int64_t":$pad), [{
      return $_get($_ctxt, swizzle, pad, 0);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes from one row to the next for rows of `cols` elements of
    /// `elemBytes` bytes.
    int64_t getRowBytes(int64_t cols, int64_t elemBytes) const {
      return getSlab() ? getSlab() : cols * elemBytes + getPad();
    }
    /// Bytes of the whole tile of `rows` rows of `cols` elements.
    int64_t getTileBytes(int64_t rows, int64_t cols, int64_t elemBytes) const {
      return getSlab() ? rows * cols * elemBytes
                       : rows * getRowBytes(cols, elemBytes);
    }
    /// Alignment the tile's base needs (the swizzle atom of a slab tile).
    int64_t getBaseAlignment() const { return getSlab() ? 1024 : 128; }
    /// The layout attn picks for a [rows, cols] tile of 16-bit elements:
    /// the XOR swizzle where a row is a multiple of 8 chunks, else one
    /// chunk of padding.
    static SharedLayoutAttr getFor(::mlir::MLIRContext *ctx, int64_t cols);
    /// The slab layout wgmma reads and bulk copies write for rows of
    /// `rowBytes` bytes: 128-byte slabs where they divide the row, else
    /// 64-byte ones (null where neither does).
    static SharedLayoutAttr getSlabsFor(::mlir::MLIRContext *ctx,
                                        int64_t rowBytes);
    /// 16-byte chunks in one slab (8 or 4; 0 without slabs).
    int64_t getSlabChunks() const { return getSlab() / 16; }
  }];
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
