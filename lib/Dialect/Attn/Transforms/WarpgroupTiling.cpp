//===- WarpgroupTiling.cpp - which GPU programs take wgmma layouts --------===//
//
//===----------------------------------------------------------------------===//
#include "WarpgroupTiling.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "attn/Dialect/Attn/IR/AttnDialect.h"

using namespace mlir;
using namespace mlir::attn;

std::string mlir::attn::wgmmaObstacle(ArrayRef<DotOp> dots, int64_t rows,
                                      bool halfSlabs) {
  if (rows % 64 || rows > 256)
    return "query blocks of " + std::to_string(rows) +
           " rows (wgmma needs 64, 128, 192 or 256: 64 per warpgroup)";
  for (DotOp dot : dots)
    for (Value v : {dot.getLhs(), dot.getRhs()}) {
      auto t = cast<RankedTensorType>(v.getType());
      // A 128-byte slab holds 64 16-bit or 128 8-bit (fp8) columns.
      unsigned bits = t.getElementType().getIntOrFloatBitWidth();
      bool fp8 = isa<Float8E4M3FNType>(t.getElementType());
      if (bits != 16 && !fp8)
        return "a dot operand of " + std::to_string(bits) +
               "-bit elements (wgmma layouts are for f16/bf16 and "
               "f8E4M3FN)";
      // Rows may also be whole 64-byte slabs (32 16-bit columns: head dim
      // 96; 64 8-bit ones: fp8 at head dim 64) where `halfSlabs`.
      int64_t slabCols = (halfSlabs ? 512 : 1024) / bits;
      bool fromShared = v == dot.getRhs() || v.getDefiningOp<LoadTileOp>();
      // A transposed lhs is read M-major from shared memory: a loaded
      // 16-bit tile.
      if (v == dot.getLhs() && dot.getLhsTransposed() &&
          (!v.getDefiningOp<LoadTileOp>() || fp8))
        return std::string("a transposed lhs that is not a loaded 16-bit "
                           "tile (wgmma reads it M-major from shared "
                           "memory)");
      if (fromShared && t.getDimSize(1) % slabCols)
        return "a dot operand of " + std::to_string(t.getDimSize(1)) +
               " columns of " + std::to_string(bits) +
               "-bit elements (wgmma's " + std::to_string(slabCols * bits / 8) +
               "-byte slabs need multiples of " + std::to_string(slabCols) +
               ")";
    }
  return "";
}

bool mlir::attn::isBackwardGrid(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto grid = dyn_cast<scf::ForallOp>(op))
      if (auto p = grid->getAttrOfType<StringAttr>(kProgramAttrName)) {
        ::attn::Program program;
        return ::attn::parseProgram(p.str(), program) &&
               ::attn::isBackwardProgram(program);
      }
  return false;
}

bool mlir::attn::headDimsTakeWgmma(TargetAttr target, int64_t d, int64_t dv,
                                   bool forward) {
  // The forward's 16-bit rows may be 64-byte slabs (multiples of 32); the
  // backward's grids stay on 128-byte ones (their transposed operands and
  // bulk reductions are built for those).
  int64_t m = forward ? 32 : 64;
  return target && target.hasWarpgroupMma() && d % m == 0 && dv % m == 0;
}

bool mlir::attn::takesWgmma(scf::ForallOp grid, int64_t wgmma) {
  if (wgmma == 0)
    return false;
  SmallVector<DotOp> dots;
  grid.getBody()->walk([&](DotOp d) { dots.push_back(d); });
  if (dots.empty())
    return false;
  int64_t rows = cast<RankedTensorType>(dots.front().getType()).getDimSize(0);
  if (!wgmmaObstacle(dots, rows, /*halfSlabs=*/!isBackwardGrid(grid)).empty())
    return false;
  if (wgmma == 1)
    return true;
  auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
  return target && target.hasWarpgroupMma();
}
