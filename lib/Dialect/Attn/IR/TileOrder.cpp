//===- TileOrder.cpp - which tile a program slot runs -----------*- C++ -*-===//
#include "attn/Dialect/Attn/IR/TileOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::attn;

TileCoords mlir::attn::tileAt(OpBuilder &b, Location loc, Value linear,
                              Value qBlocks, Value heads, Value batch,
                              Value groupBlocks) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivUIOp::create(b, loc, x, y);
  };
  auto rem = [&](Value x, Value y) -> Value {
    return arith::RemUIOp::create(b, loc, x, y);
  };
  auto ceilDiv = [&](Value x, Value y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  };
  Value lastBlock = sub(qBlocks, c(1));
  if (!groupBlocks) {
    // t = X − 1 − L mod X,  n = L / X
    Value n = div(linear, qBlocks);
    return {div(n, heads), rem(n, heads), sub(lastBlock, rem(linear, qBlocks))};
  }
  // G = ceil(Y·Z / ceil(Y·Z / ceil(blocks / X)))
  Value allHeads = mul(heads, batch);
  Value groups = ceilDiv(allHeads, ceilDiv(groupBlocks, qBlocks));
  Value groupHeads = ceilDiv(allHeads, groups);
  // g = L / (G·X),  r = L % (G·X),  Gg = min(G, Y·Z − g·G)
  Value groupSize = mul(groupHeads, qBlocks);
  Value g = div(linear, groupSize);
  Value r = rem(linear, groupSize);
  Value firstHead = mul(g, groupHeads);
  Value headsHere =
      arith::MinUIOp::create(b, loc, groupHeads, sub(allHeads, firstHead));
  // t = X − 1 − r / Gg,  n = g·G + r % Gg
  Value n = add(firstHead, rem(r, headsHere));
  return {div(n, heads), rem(n, heads), sub(lastBlock, div(r, headsHere))};
}

Value mlir::attn::snakeRounds(OpBuilder &b, Location loc, Value t,
                              Value programs, Value tiles) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // r = t / P,  q = t − r·P
  Value round = arith::DivUIOp::create(b, loc, t, programs);
  Value start = arith::MulIOp::create(b, loc, round, programs);
  Value q = arith::SubIOp::create(b, loc, t, start);
  // odd r and (r + 1)·P <= tiles: L = (r + 1)·P − 1 − q
  Value end = arith::AddIOp::create(b, loc, start, programs);
  Value odd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::AndIOp::create(b, loc, round, one), one);
  Value whole =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, tiles);
  Value back =
      arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, end, one), q);
  return arith::SelectOp::create(
      b, loc, arith::AndIOp::create(b, loc, odd, whole), back, t);
}
