//===- WarpgroupTiling.cpp - which GPU programs take wgmma layouts --------===//
//
//===----------------------------------------------------------------------===//
#include "WarpgroupTiling.h"

#include "attn/Dialect/Attn/IR/AttnDialect.h"

using namespace mlir;
using namespace mlir::attn;

std::string mlir::attn::wgmmaObstacle(ArrayRef<DotOp> dots, int64_t rows) {
  if (rows % 64 || rows > 256)
    return "query blocks of " + std::to_string(rows) +
           " rows (wgmma needs 64, 128, 192 or 256: 64 per warpgroup)";
  for (DotOp dot : dots)
    for (Value v : {dot.getLhs(), dot.getRhs()}) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType().getIntOrFloatBitWidth() != 16)
        return "a dot operand of " +
               std::to_string(t.getElementType().getIntOrFloatBitWidth()) +
               "-bit elements (wgmma layouts are for f16/bf16)";
      if (v == dot.getRhs() && t.getDimSize(1) % 64)
        return "a dot operand of " + std::to_string(t.getDimSize(1)) +
               " columns (wgmma's 128-byte slabs need multiples of 64)";
      if (v == dot.getLhs() && v.getDefiningOp<LoadTileOp>() &&
          t.getDimSize(1) % 64)
        return "a dot operand of " + std::to_string(t.getDimSize(1)) +
               " columns (wgmma's 128-byte slabs need multiples of 64)";
    }
  return "";
}

bool mlir::attn::takesWgmma(scf::ForallOp grid, int64_t wgmma) {
  if (wgmma == 0)
    return false;
  SmallVector<DotOp> dots;
  grid.getBody()->walk([&](DotOp d) { dots.push_back(d); });
  if (dots.empty())
    return false;
  int64_t rows = cast<RankedTensorType>(dots.front().getType()).getDimSize(0);
  if (!wgmmaObstacle(dots, rows).empty())
    return false;
  if (wgmma == 1)
    return true;
  auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
  return target && target.hasWarpgroupMma();
}
