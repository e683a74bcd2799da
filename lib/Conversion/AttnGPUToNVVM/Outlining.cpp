//===- Outlining.cpp - tile grids to GPU kernels ----------------*- C++ -*-===//
//
// A laid-out tile grid becomes a kernel: the grid body outlined into a
// gpu.func taking the enclosing function's arguments (and a tensor map per
// memref read with bulk copies), the grid indices read from the block index
// (TileScheduler.cpp), the values the grid reads from outside recomputed in
// the kernel, a byte offset in dynamic shared memory for each op that owns
// some, the kernel's #attn.kernel_info, and on the host a gpu.launch_func.
//
//===----------------------------------------------------------------------===//
#include "Outlining.h"

#include "attn/Conversion/KernelDType.h"

#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

/// Whether `t` is a tile with a GPU layout.
bool mlir::attn::gpu_lowering::isLaidOut(Type t) {
  // A ring holds shared-memory tiles: a program that allocates one is a
  // GPU program, whatever else it does.
  if (auto ring = dyn_cast<RingType>(t))
    return isLaidOut(ring.getTile());
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getEncoding() &&
         isa<MmaLayoutAttr, SliceLayoutAttr, SharedLayoutAttr>(
             rt.getEncoding());
}

namespace {

/// The gpu.module `attn_kernels` of `top` that every kernel goes into,
/// made on first use with the kernels' dynamic shared memory (an external
/// zero-sized addrspace(3) array).
gpu::GPUModuleOp kernelModule(ModuleOp top) {
  if (auto m = top.lookupSymbol<gpu::GPUModuleOp>("attn_kernels"))
    return m;
  OpBuilder b = OpBuilder::atBlockEnd(top.getBody());
  top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  auto gm = gpu::GPUModuleOp::create(b, top.getLoc(), "attn_kernels");
  OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
  LLVM::GlobalOp::create(mb, top.getLoc(),
                         LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         kSmemSymbol, Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);
  return gm;
}

/// The memref a tile load or store reads or writes (null for other ops);
/// `copied`: whether it is a copy into shared memory (attn.load_tile to
/// #attn.shared, attn.async_load_tile), as opposed to registers.
Value tileMemref(Operation *op, bool *copied = nullptr) {
  bool toShared = false;
  Value mem;
  if (auto l = dyn_cast<LoadTileOp>(op)) {
    mem = l.getSource();
    toShared = isa_and_nonnull<SharedLayoutAttr>(
        cast<RankedTensorType>(l.getType()).getEncoding());
  } else if (auto s = dyn_cast<StoreTileOp>(op)) {
    mem = s.getDest();
  } else if (auto a = dyn_cast<AsyncLoadTileOp>(op)) {
    mem = a.getSource();
    toShared = true;
  }
  if (copied)
    *copied = toShared;
  return mem;
}

/// Every tile load and store addresses a row as consecutive elements
/// (16-byte cp.async chunks, element pairs): the memref's innermost stride
/// must be 1, known when the kernel is compiled. A strided innermost
/// dimension would be read as if it were contiguous.
LogicalResult checkRowAccess(scf::ForallOp grid) {
  WalkResult r = grid.getBody()->walk([&](Operation *op) {
    Value mem = tileMemref(op);
    auto t = mem ? dyn_cast<MemRefType>(mem.getType()) : MemRefType();
    if (t && !t.isLastDimUnitStride()) {
      op->emitError() << "unsupported: " << t
                      << " on the GPU: the innermost stride must be 1 "
                         "(statically); rows are read and written as "
                         "consecutive elements";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Whether a tile the grid copies into shared memory comes from a memref
/// whose row stride (the second-innermost) is unknown when the kernel is
/// compiled.
bool hasDynamicRowStride(scf::ForallOp grid) {
  bool dynamic = false;
  grid.getBody()->walk([&](Operation *op) {
    bool copied = false;
    Value mem = tileMemref(op, &copied);
    auto t = copied ? dyn_cast<MemRefType>(mem.getType()) : MemRefType();
    if (!t || t.getRank() < 2)
      return;
    SmallVector<int64_t> strides;
    int64_t offset;
    dynamic |= failed(t.getStridesAndOffset(strides, offset)) ||
               ShapedType::isDynamic(strides[strides.size() - 2]);
  });
  return dynamic;
}

/// The warps of the program's mma layout (every register tile has it).
FailureOr<int64_t> programWarps(scf::ForallOp grid) {
  int64_t warps = 0;
  WalkResult r = grid.getBody()->walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt)
        continue;
      if (!isLaidOut(rt)) {
        op->emitError() << "unsupported: tile " << rt
                        << " has no GPU layout (run attn-assign-layouts)";
        return WalkResult::interrupt();
      }
      MmaLayoutAttr m;
      if (auto mm = dyn_cast<MmaLayoutAttr>(rt.getEncoding()))
        m = mm;
      else if (auto s = dyn_cast<SliceLayoutAttr>(rt.getEncoding()))
        m = s.getParent();
      if (!m)
        continue;
      if (warps && warps != m.getWarps()) {
        op->emitError() << "unsupported: layouts of " << warps << " and "
                        << m.getWarps() << " warps in one program";
        return WalkResult::interrupt();
      }
      warps = m.getWarps();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (!warps)
    return grid.emitError("unsupported: a GPU program without register "
                          "tiles (#attn.mma)");
  return warps;
}

/// Gives each shared-memory owner its byte offset (128-byte aligned, no
/// reuse: everything lives for the whole program). Returns the total.
int64_t allocateSharedMemory(gpu::GPUFuncOp fn) {
  int64_t top = 0, maxAlign = 16;
  OpBuilder b(fn.getContext());
  SmallVector<AllocRingOp> withBarriers;
  fn.walk([&](Operation *op) {
    int64_t bytes = 0, align = 128;
    if (auto ring = dyn_cast<AllocRingOp>(op)) {
      auto t = cast<RingType>(ring.getType());
      bytes = t.getStages() * t.getSlotBytes();
      if (ringHasBarriers(ring))
        withBarriers.push_back(ring);
      align = t.getLayout().getBaseAlignment();
    } else if (auto load = dyn_cast<LoadTileOp>(op)) {
      auto t = cast<RankedTensorType>(load.getType());
      if (!isa_and_nonnull<SharedLayoutAttr>(t.getEncoding()))
        return;
      int64_t eb = t.getElementType().getIntOrFloatBitWidth() / 8;
      auto layout = cast<SharedLayoutAttr>(t.getEncoding());
      bytes = layout.getTileBytes(t.getDimSize(0), t.getDimSize(1), eb);
      align = layout.getBaseAlignment();
    } else {
      return;
    }
    top = llvm::alignTo(top, align);
    maxAlign = std::max(maxAlign, align);
    op->setAttr(kSmemOffsetAttr, b.getI64IntegerAttr(top));
    top += llvm::alignTo(bytes, 128);
  });
  // Each ring's two mbarriers a slot (8 bytes each: barrierAddress), all
  // rings' together after the tiles: behind each ring's slots they pushed
  // the next 1024-byte aligned slab tile a whole 1 KiB further (3 KiB of the
  // bf16 D = 128 program with a staged bias window, which then did not fit
  // 128-key blocks).
  for (AllocRingOp ring : withBarriers) {
    ring->setAttr(kSmemBarriersAttr, b.getI64IntegerAttr(top));
    top += 16 * cast<RingType>(ring.getType()).getStages();
  }
  // The offsets are relative to the dynamic shared memory's base: it
  // must be as aligned as the most aligned tile (a slab tile's swizzle
  // atoms are 1024-byte aligned in the address the hardware swizzles).
  auto global =
      fn->getParentOfType<gpu::GPUModuleOp>().lookupSymbol<LLVM::GlobalOp>(
          kSmemSymbol);
  if (global.getAlignment().value_or(0) < uint64_t(maxAlign))
    global.setAlignment(maxAlign);
  return top;
}

/// Clones into the kernel (at `b`) the computation of a scalar the grid
/// reads from outside: side-effect-free ops on the function's arguments.
FailureOr<Value> recompute(Value v, IRMapping &map, OpBuilder &b,
                           Operation *user) {
  if (Value m = map.lookupOrNull(v))
    return m;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || !isMemoryEffectFree(def)) {
    // memref.dim reads only the descriptor: allowed.
    if (!isa_and_nonnull<memref::DimOp>(def))
      return user->emitError("unsupported: the GPU grid reads a value the "
                             "kernel cannot recompute from the function's "
                             "arguments");
  }
  for (Value o : def->getOperands())
    if (failed(recompute(o, map, b, user)))
      return failure();
  b.clone(*def, map);
  return map.lookup(v);
}

} // namespace

FailureOr<OutlinedKernel>
mlir::attn::gpu_lowering::outlineKernel(scf::ForallOp grid, ModuleOp top,
                                        int64_t index,
                                        const OutlineOptions &opts) {
  auto func = grid->getParentOfType<func::FuncOp>();
  if (!func)
    return grid.emitError("unsupported: a GPU grid outside a func.func");
  const bool persistent = grid->hasAttr(kPersistentAttrName);
  if (grid.getRank() != (persistent ? 1 : 3) || !grid.getOutputs().empty() ||
      !grid.isNormalized())
    return grid.emitError(persistent
                              ? "unsupported: expected a normalized 1-d "
                                "scf.forall of programs (attn.persistent)"
                              : "unsupported: expected a normalized 3-d "
                                "(batch, head, query block) scf.forall grid");
  // A block_lists program is one warp of scalar code (TileBlockLists.cpp):
  // no tiles, its blocks the mask block.
  auto gridProgramName = grid->getAttrOfType<StringAttr>(kProgramAttrName);
  auto maskBlock = grid->getAttrOfType<DenseI64ArrayAttr>(kMaskBlockAttrName);
  const bool blockLists =
      gridProgramName && gridProgramName.getValue() ==
                             ::attn::programName(::attn::Program::BlockLists);
  if (blockLists && !maskBlock)
    return grid.emitError("unsupported: a block_lists grid without its "
                          "mask block (attn.mask_block)");
  // Its threads: the bound its thread index carries.
  int64_t listThreads = 0;
  if (blockLists)
    grid.getBody()->walk([&](gpu::ThreadIdOp t) {
      if (auto ub = t.getUpperBoundAttr())
        listThreads = std::max<int64_t>(listThreads, ub.getInt());
    });
  if (blockLists && (listThreads <= 0 || listThreads % 32))
    return grid.emitError("unsupported: a block_lists grid without a "
                          "whole number of warps as its thread index's "
                          "upper_bound");
  FailureOr<int64_t> warps =
      blockLists ? FailureOr<int64_t>(listThreads / 32) : programWarps(grid);
  if (failed(warps))
    return failure();
  if (failed(checkRowAccess(grid)))
    return failure();
  KernelInfo info;
  info.warps = *warps;
  info.persistent = persistent;
  // A 16-bit shared lhs (Q) of 128 columns under a warpgroup product.
  bool wideQ = false;
  grid.getBody()->walk([&](DotOp dot) {
    auto acc = cast<RankedTensorType>(dot.getType());
    auto m = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding());
    if (!m || !m.isWarpgroup())
      return;
    info.warpgroupMma = true;
    auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
    wideQ |= isa_and_nonnull<SharedLayoutAttr>(lhs.getEncoding()) &&
             lhs.getElementTypeBitWidth() == 16 && lhs.getDimSize(1) == 128;
  });
  // A producer warpgroup after the consumers (attn-specialize-warpgroups).
  grid.getBody()->walk([&](WarpSpecializeOp ws) {
    info.producerWarps = 4;
    // Who runs the producer's program (KernelInfo::producerThreads): where
    // it issues only bulk copies, one thread if it takes tiles from a queue,
    // else one warp (a static schedule left to one thread spilled 4-28 B at
    // 32 registers); all 128 where its threads copy (cp.async).
    bool bulkOnly = true, queue = false;
    ws.getProducer().walk([&](Operation *op) {
      if (auto l = dyn_cast<AsyncLoadTileOp>(op))
        bulkOnly &= l.getBulk();
      queue |= isa<TakeTileOp>(op);
    });
    info.producerThreads = !bulkOnly ? 32 * info.producerWarps : queue ? 1 : 32;
    // KernelInfo::warpgroupAtEntry, for the forward (no program name):
    // three consumer warpgroups, or two over a wide Q beside a producer of
    // 48 registers (attn-persist-tiles gives a claiming one that many;
    // with 40 it spilled).
    info.warpgroupAtEntry =
        info.warpgroupMma && !gridProgramName &&
        (info.warps >= 12 ||
         (info.warps == 8 && wideQ && ws.getProducerRegisters() >= 48));
  });
  Location loc = grid.getLoc();

  // Bulk copies and bulk tensor reductions: one tensor map per memref (an
  // argument of the function), passed after the function's arguments; its
  // box is the slot's rows by one slab of the slot's layout (128 bytes: 64
  // 16-bit or 32 f32 columns; 64 bytes: 32 16-bit columns).
  OutlinedKernel k;
  SmallVector<OutlinedKernel::Map> &maps = k.maps;
  WalkResult bulkOk = grid.getBody()->walk([&](Operation *op) {
    Value mem, ring;
    if (auto load = dyn_cast<AsyncLoadTileOp>(op); load && load.getBulk()) {
      mem = load.getSource();
      ring = load.getRing();
    } else if (auto acc = dyn_cast<AccumulateTileOp>(op);
               acc && acc.getStaging() &&
               cast<RingType>(acc.getStaging().getType())
                   .getLayout()
                   .getSlab()) {
      mem = acc.getDest();
      ring = acc.getStaging();
    } else {
      return WalkResult::advance();
    }
    auto arg = dyn_cast<BlockArgument>(mem);
    if (!arg || arg.getOwner() != &func.getBody().front()) {
      op->emitError("unsupported: a bulk tensor copy or reduction on a "
                    "memref that is not an argument of the function (the "
                    "launcher encodes tensor maps of the arguments)");
      return WalkResult::interrupt();
    }
    auto ringTy = cast<RingType>(ring.getType());
    int64_t rows = ringTy.getTile().getDimSize(0);
    int64_t bytes = ringTy.getLayout().getSlab();
    for (const OutlinedKernel::Map &m : maps)
      if (m.arg == arg.getArgNumber()) {
        if (m.rows == rows && m.bytes == bytes)
          return WalkResult::advance();
        op->emitError() << "unsupported: bulk copies of " << m.rows << " and "
                        << rows << " rows, or of " << m.bytes << "- and "
                        << bytes
                        << "-byte slabs, on one memref (one tensor map a "
                           "memref)";
        return WalkResult::interrupt();
      }
    maps.push_back({arg.getArgNumber(), rows, bytes});
    return WalkResult::advance();
  });
  if (bulkOk.wasInterrupted())
    return failure();

  gpu::GPUModuleOp gm = kernelModule(top);
  std::string name = (func.getName() + "_kernel" +
                      (index ? "_" + std::to_string(index) : std::string()))
                         .str();
  if (gm.lookupSymbol(name))
    return grid.emitError() << "kernel '" << name << "' exists already";
  OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
  SmallVector<Type> argTypes(func.getArgumentTypes());
  auto ptrType = LLVM::LLVMPointerType::get(mb.getContext());
  for (const OutlinedKernel::Map &m : maps) {
    info.tensorMaps[m.arg] = argTypes.size();
    argTypes.push_back(ptrType);
  }
  // A grid that waits for the grids before it on the stream may be
  // launched before they complete (the launcher's part of the contract):
  // only if its wait comes before anything that may touch memory, on a
  // chip that has the instruction.
  bool waitsForPriorGrids = false;
  for (Operation &op : grid.getBody()->without_terminator()) {
    if (isa<WaitPriorGridsOp>(op)) {
      waitsForPriorGrids = true;
      break;
    }
    if (!isa<LaunchDependentsOp>(op) && !isMemoryEffectFree(&op))
      break;
  }
  bool anyWait = false;
  grid.getBody()->walk([&](WaitPriorGridsOp) { anyWait = true; });
  if (anyWait && !waitsForPriorGrids)
    return grid.emitError("unsupported: attn.wait_prior_grids after an op "
                          "that may touch memory (the grid could then be "
                          "launched before its predecessor's writes are "
                          "visible): put it first in the grid's body");
  if (auto t = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
      (anyWait || !grid.getBody()->getOps<LaunchDependentsOp>().empty()) && t &&
      t.isGPU() && !t.hasGridDependencyControl())
    return grid.emitError("unsupported: grid dependency control "
                          "(griddepcontrol) on ")
           << t.getArch() << "; it needs sm_90 or later";
  // Tiles claimed at run time: the launch's counter, last.
  bool claims = false;
  grid.getBody()->walk([&](ClaimTileOp) { claims = true; });
  if (claims && !persistent)
    return grid.emitError("unsupported: attn.claim_tile in a grid that is "
                          "not persistent (its blocks are not programs "
                          "that loop over tiles)");
  if (claims) {
    info.tileCounterArg = argTypes.size();
    argTypes.push_back(LLVM::LLVMPointerType::get(mb.getContext(), 1));
  }
  auto fn =
      gpu::GPUFuncOp::create(mb, loc, name, mb.getFunctionType(argTypes, {}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
  // CUtensorMap is 64-byte aligned; attn-gpu-module-to-binary makes these
  // parameters by-value grid constants (the GPU lowering keeps only the
  // alignment of a kernel argument's attributes).
  for (auto [arg, idx] : info.tensorMaps)
    fn.setArgAttr(idx, "llvm.align", mb.getI64IntegerAttr(64));
  fn.setKnownBlockSizeAttr(
      mb.getDenseI32ArrayAttr({static_cast<int32_t>(info.threads()), 1, 1}));
  // One block per multiprocessor as ptxas's register bound (.minnctapersm
  // 1 with the block size):
  // - setmaxnreg takes effect only under a register cap at entry;
  // - a merge is a chain of memory latencies through the splits: under
  //   ptxas's default register target (~80 at 128 threads) it interleaved
  //   an iteration's loads with their uses (5-7 of 64 in flight, the rest
  //   after the first returned); bounded so, it issues them first (176-195
  //   registers at 16 tiles of 16x16 f32).
  auto program = grid->getAttrOfType<StringAttr>(kProgramAttrName);
  bool merge = program && program.getValue() ==
                              ::attn::programName(::attn::Program::MergeSplits);
  if (info.producerWarps || merge)
    fn->setAttr("nvvm.minctasm", mb.getI32IntegerAttr(1));

  // What a launcher needs (bundles, tools) and the block order: read off
  // the program. Every product has the block's query rows; each S = Q·Kᵀ
  // has a key block's columns and Q's head dim, each O += P·V V's.
  int64_t blockM = 0, blockN = 0, headDim = 0, headDimV = 0;
  bool causal = false;
  std::string dtype;
  auto agree = [](int64_t &known, int64_t v) {
    if (known && known != v)
      return false;
    known = v;
    return true;
  };
  // The backward's grids (attn.attention_grad) hold five products of three
  // shapes: the first, S = Q·Kᵀ (or Sᵀ = K·Qᵀ), gives the program's rows,
  // the other block, the head dim and the element type; the value head dim
  // is dO's (the product that reads it against Vᵀ, or dV's accumulator).
  auto programAttr = grid->getAttrOfType<StringAttr>(kProgramAttrName);
  ::attn::Program gridProgram = ::attn::Program::Attention;
  if (programAttr)
    ::attn::parseProgram(programAttr.getValue().str(), gridProgram);
  // (grad_prep and grad_q_out have no products: described below like
  // attn.merge_splits, by their stored tiles.)
  const bool grad = gridProgram == ::attn::Program::GradQuery ||
                    gridProgram == ::attn::Program::GradKeyValue;
  if (grad) {
    SmallVector<DotOp> dots;
    grid.getBody()->walk([&](DotOp d) { dots.push_back(d); });
    if (dots.size() < 2) {
      fn.erase();
      return grid.emitError("unsupported: a backward grid without its "
                            "products");
    }
    auto acc0 = cast<RankedTensorType>(dots[0].getType());
    auto lhs0 = cast<RankedTensorType>(dots[0].getLhs().getType());
    blockM = acc0.getDimSize(0);
    blockN = acc0.getDimSize(1);
    headDim = lhs0.getDimSize(1);
    dtype = kernelDTypeName(lhs0.getElementType());
    auto second = dots[1];
    headDimV =
        gridProgram == ::attn::Program::GradQuery
            ? cast<RankedTensorType>(second.getLhs().getType()).getDimSize(1)
            : cast<RankedTensorType>(second.getType()).getDimSize(1);
  }
  WalkResult dotsAgree = WalkResult::advance();
  if (!::attn::isBackwardProgram(gridProgram))
    dotsAgree = grid.getBody()->walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getType());
      auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
      // Q·Kᵀ reads Q against Kᵀ; P·V reads P against V, or with fp8 (P an
      // 8-bit register tile) against V transposed.
      bool fp8Pv = lhs.getElementType().getIntOrFloatBitWidth() == 8 &&
                   isa_and_nonnull<MmaLayoutAttr>(lhs.getEncoding());
      bool scores = dot.getRhsTransposed() && !fp8Pv;
      bool ok = agree(blockM, acc.getDimSize(0)) &&
                (scores ? agree(blockN, acc.getDimSize(1)) &&
                              agree(headDim, lhs.getDimSize(1))
                        : agree(headDimV, acc.getDimSize(1)));
      if (!ok) {
        dot.emitError("unsupported: products of different block sizes in one "
                      "GPU program (the kernel describes one query block, key "
                      "block and head dim)");
        return WalkResult::interrupt();
      }
      if (scores && dtype.empty()) {
        Type et = lhs.getElementType();
        dtype = kernelDTypeName(et);
      }
      return WalkResult::advance();
    });
  if (dotsAgree.wasInterrupted()) {
    fn.erase();
    return failure();
  }
  // The sliding window of the program's masks: each bound as any mask has
  // it (the tiling writes one window per attention; a mask of a block range
  // that only one edge crosses carries that bound alone), two masks that
  // give one bound different values disagree.
  int64_t windowLeft = -1, windowRight = -1;
  bool windowsAgree = true;
  auto mergeBound = [&](int64_t &bound, int64_t v) {
    if (v < 0)
      return;
    if (bound >= 0 && bound != v)
      windowsAgree = false;
    bound = v;
  };
  grid.getBody()->walk([&](MaskOp m) {
    causal |= m.getCausal();
    mergeBound(windowLeft, m.getWindowLeft().value_or(-1));
    mergeBound(windowRight, m.getWindowRight().value_or(-1));
  });
  if (!windowsAgree) {
    grid.emitError("unsupported: masks of different sliding windows in one "
                   "GPU program (the kernel describes one window)");
    fn.erase();
    return failure();
  }
  if (blockLists) {
    blockM = maskBlock[0];
    blockN = maskBlock[1];
    // A kernel line names a dtype and head dims: those of the attention
    // the lists serve, the function's grid with products (Q·Kᵀ gives the
    // element type and D, P·V the value head dim).
    func.walk([&](DotOp dot) {
      if (grid->isAncestor(dot))
        return;
      auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
      if (dot.getRhsTransposed() && !headDim) {
        headDim = lhs.getDimSize(1);
        dtype = kernelDTypeName(lhs.getElementType());
      } else if (!dot.getRhsTransposed() && !headDimV) {
        headDimV = cast<RankedTensorType>(dot.getType()).getDimSize(1);
      }
    });
    if (!headDim) {
      fn.erase();
      return grid.emitError("unsupported: attn.block_lists on the GPU without "
                            "an attention in its function (its kernel is "
                            "described by the attention it serves)");
    }
    if (!headDimV)
      headDimV = headDim;
  }
  // A program without products (attn.merge_splits): its 2-d output tile
  // gives the rows and, from the memory it is stored to (through a column
  // window's view), the value head dim and the element type.
  if (!blockM)
    grid.getBody()->walk([&](StoreTileOp st) {
      auto t = cast<RankedTensorType>(st.getTile().getType());
      if (t.getRank() != 2)
        return;
      blockM = t.getDimSize(0);
      Value dest = st.getDest();
      while (auto view = dest.getDefiningOp<memref::SubViewOp>())
        dest = view.getSource();
      auto mem = cast<MemRefType>(dest.getType());
      headDimV = mem.getShape().back();
      dtype = kernelDTypeName(mem.getElementType());
    });
  // B fragments loaded ahead of their mma.sync (H100, bf16, two runs vs
  // none ahead): D = 128: 4 steps +2-5% (8: the same, and sm_80's kernel
  // spills); D = 256: 8 steps +0-2% (4: -1%); D = 64: 4 and 8 cost 1-2%
  // without LSE or mask.
  info.fragmentPrefetch = opts.fragmentPrefetch >= 0 ? opts.fragmentPrefetch
                          : headDim <= 64            ? 0
                          : headDim <= 128           ? 4
                                                     : 8;
  auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
  // Causal: heads in groups of thread blocks run longest query block
  // first (mapGridIndices); -1: kGroupBlocksPerSm per SM of the device.
  int64_t blocks = causal ? opts.groupBlocks : 0;

  // Entry: the grid indices from the block index.
  Block &entry = fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  IRMapping map;
  for (auto [a, ka] : llvm::zip(func.getArguments(), entry.getArguments()))
    map.map(a, ka);
  if (persistent) {
    // Program p of P (attn-persist-tiles): its tiles are p, p + P, ...;
    // P is the launch's size.
    map.map(grid.getInductionVar(0),
            gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  } else {
    mapGridIndices(b, loc, grid, map, blocks);
  }
  // Values from outside the grid: recomputed from the arguments.
  WalkResult captured = grid.getBody()->walk([&](Operation *op) {
    for (Value o : op->getOperands()) {
      // Defined inside the grid (its indices included): cloned with it.
      if (grid->isAncestor(o.getParentRegion()->getParentOp()))
        continue;
      if (failed(recompute(o, map, b, op)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (captured.wasInterrupted()) {
    fn.erase();
    return failure();
  }
  for (Operation &op : grid.getBody()->without_terminator())
    b.clone(op, map);
  gpu::ReturnOp::create(b, loc);

  int64_t smemBytes = allocateSharedMemory(fn);
  if (target && target.isGPU() && smemBytes > target.getSmemPerBlock())
    return grid.emitError()
           << "unsupported: the kernel needs " << smemBytes
           << " bytes of shared memory, target " << target.getArch()
           << " offers " << target.getSmemPerBlock()
           << "; use fewer pipeline stages or smaller blocks";

  // The launch grid (x, y, z) = the grid's dims 2, 1, 0 (mapGridIndices).
  ArrayAttr launchGrid;
  if (auto dims = grid->getAttrOfType<ArrayAttr>(kGridAttrName))
    launchGrid = mb.getArrayAttr({dims[2], dims[1], dims[0]});
  SmallVector<int64_t> flatMaps;
  for (const OutlinedKernel::Map &m : maps)
    flatMaps.append({int64_t(m.arg), m.rows, m.bytes});
  // What attn-gpu-module-to-binary needs to know of the register budget,
  // and whether a tile copy's row stride is a run-time value (then each
  // copy pass's address is a separate product that LSR may turn into an
  // induction variable; a static stride folds into immediates).
  auto regs = grid->getAttrOfType<IntegerAttr>(kRegisterEstimateAttrName);
  auto kernelInfo = KernelInfoAttr::getChecked(
      [&] { return grid.emitError(); }, mb.getContext(), blockM, blockN,
      info.threads(), smemBytes, headDim, headDimV, StringRef(dtype), causal,
      program ? program.getValue() : StringRef("attention"), launchGrid,
      ArrayRef<int64_t>(flatMaps), regs ? regs.getInt() : int64_t(0),
      hasDynamicRowStride(grid), windowLeft, windowRight,
      grid->getAttrOfType<FloatAttr>(kSoftcapAttrName), persistent, claims,
      waitsForPriorGrids);
  if (!kernelInfo)
    return failure();
  fn->setAttr(kKernelInfoAttrName, kernelInfo);

  k.fn = fn;
  k.info = info;
  k.smemBytes = smemBytes;
  return k;
}

void mlir::attn::gpu_lowering::launchKernel(scf::ForallOp grid,
                                            const OutlinedKernel &k) {
  auto func = grid->getParentOfType<func::FuncOp>();
  Location loc = grid.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(grid.getContext());
  // Host: the grid becomes a launch of the kernel.
  OpBuilder hb(grid);
  auto ubs = grid.getUpperBound(hb);
  Value c1 = arith::ConstantIndexOp::create(hb, loc, 1);
  Value gx, gy = c1, gz = c1;
  if (grid->hasAttr(kPersistentAttrName)) {
    // min(tiles, the target's SM count): a launch the compiler generates
    // knows the target, not the device (the runtime reads the device's).
    auto programs = ubs[0].getDefiningOp<NumProgramsOp>();
    auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
    int64_t sms = target && target.getNumSms() > 0 ? target.getNumSms() : 1;
    gx = programs ? arith::MinUIOp::create(
                        hb, loc, programs.getTiles(),
                        arith::ConstantIndexOp::create(hb, loc, sms))
                        .getResult()
                  : getValueOrCreateConstantIndexOp(hb, loc, ubs[0]);
  } else {
    gx = getValueOrCreateConstantIndexOp(hb, loc, ubs[2]);
    gy = getValueOrCreateConstantIndexOp(hb, loc, ubs[1]);
    gz = getValueOrCreateConstantIndexOp(hb, loc, ubs[0]);
  }
  Value threads = arith::ConstantIndexOp::create(hb, loc, k.info.threads());
  Value smem = arith::ConstantOp::create(
      hb, loc, hb.getI32IntegerAttr(static_cast<int32_t>(k.smemBytes)));
  SmallVector<Value> launchArgs(func.getArguments());
  // A box is one slab wide: 128 bytes (64 16-bit or 128 8-bit columns) or
  // 64 (32 16-bit columns).
  for (const OutlinedKernel::Map &m : k.maps) {
    Value mem = func.getArgument(m.arg);
    int64_t elemBits = cast<MemRefType>(mem.getType()).getElementTypeBitWidth();
    launchArgs.push_back(
        TensorMapOp::create(hb, loc, ptrType, mem, m.rows,
                            /*box_cols=*/m.bytes * 8 / elemBits));
  }
  // A dynamic grid's tile counter: a zeroed i32 of device memory for the
  // launch, last (the kernel leaves it zero).
  Value counter;
  if (k.info.tileCounterArg >= 0) {
    auto type = MemRefType::get({1}, hb.getI32Type());
    counter = gpu::AllocOp::create(hb, loc, type, Type(), ValueRange(),
                                   ValueRange(), ValueRange())
                  .getMemref();
    Value zero = arith::ConstantOp::create(hb, loc, hb.getI32IntegerAttr(0));
    gpu::MemsetOp::create(hb, loc, Type(), ValueRange(), counter, zero);
    Value addr =
        memref::ExtractAlignedPointerAsIndexOp::create(hb, loc, counter);
    Value addr64 = arith::IndexCastOp::create(hb, loc, hb.getI64Type(), addr);
    launchArgs.push_back(LLVM::IntToPtrOp::create(
        hb, loc, LLVM::LLVMPointerType::get(hb.getContext(), 1), addr64));
  }
  gpu::LaunchFuncOp::create(hb, loc, k.fn, gpu::KernelDim3{gx, gy, gz},
                            gpu::KernelDim3{threads, c1, c1}, smem, launchArgs);
  if (counter)
    gpu::DeallocOp::create(hb, loc, Type(), ValueRange(), counter);
  Block *hostBlock = grid->getBlock();
  grid.erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*hostBlock)))
    if (isOpTriviallyDead(&op))
      op.erase();
}
