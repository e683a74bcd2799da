//===- TileScheduler.cpp - which thread block runs which tile ---*- C++ -*-===//
//
// The order in which a kernel's thread blocks take the grid's (batch, head,
// query block) tiles. The hardware starts blocks in order of their linear
// index; with a causal mask a query block's cost grows with its index, so
// the order decides how evenly the last wave ends.
//
//===----------------------------------------------------------------------===//
#include "Outlining.h"

#include "attn/Dialect/Attn/IR/TileOrder.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

void mlir::attn::gpu_lowering::mapGridIndices(OpBuilder &b, Location loc,
                                              scf::ForallOp grid,
                                              IRMapping &map,
                                              int64_t groupBlocks) {
  auto blockId = [&](gpu::Dimension d) -> Value {
    return gpu::BlockIdOp::create(b, loc, d);
  };
  auto gridDim = [&](gpu::Dimension d) -> Value {
    return gpu::GridDimOp::create(b, loc, d);
  };
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value bx = blockId(gpu::Dimension::x), by = blockId(gpu::Dimension::y),
        bz = blockId(gpu::Dimension::z);
  Value nx = gridDim(gpu::Dimension::x);
  if (groupBlocks == 0) {
    // Query blocks of one head together (they share its K and V in L2),
    // the last first: with a causal mask it sees the most keys.
    Value last = arith::SubIOp::create(b, loc, nx, cst(1));
    map.map(grid.getInductionVar(0), bz);
    map.map(grid.getInductionVar(1), by);
    map.map(grid.getInductionVar(2), arith::SubIOp::create(b, loc, last, bx));
    return;
  }
  // In 32 bits (grid dimensions are below 2^31): the results stay live to
  // the epilogue, and 64-bit values would take two registers each.
  Emitter e(b, loc);
  auto u32 = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, e.i32(), v);
  };
  auto index = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  };
  // Causal: the longest query blocks first inside groups of heads
  // (tileAt), L = x + X·(y + Y·z).
  Value x = u32(bx), y = u32(by), z = u32(bz), nx32 = u32(nx);
  Value ny = u32(gridDim(gpu::Dimension::y));
  Value nz = u32(gridDim(gpu::Dimension::z));
  Value linear = e.add(x, e.mul(nx32, e.add(y, e.mul(ny, z))));
  // The blocks of a group: the option's count, or kGroupBlocksPerSm per SM
  // of the device the kernel runs on (%nsmid: one more than the highest SM
  // id, the SM count where the ids are contiguous).
  Value blocks =
      groupBlocks > 0
          ? e.c32(std::min<int64_t>(groupBlocks, INT32_MAX))
          : e.mul(e.c32(kGroupBlocksPerSm),
                  NVVM::SmDimOp::create(b, loc, e.i32()).getResult());
  TileCoords t = tileAt(b, loc, linear, nx32, ny, nz, blocks);
  map.map(grid.getInductionVar(0), index(t.batch));
  map.map(grid.getInductionVar(1), index(t.head));
  map.map(grid.getInductionVar(2), index(t.qBlock));
}
