//===- Philox.cpp - Philox4x32-10 as arith ops ----------------------------===//
//
// Bit for bit the generator of attn/runtime/Philox.h; the CPU and GPU
// lowerings of attn.random share it.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/Philox.h"
#include "attn/runtime/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

std::pair<Value, Value> mlir::attn::philoxKey(OpBuilder &b, Location loc,
                                              Value seed) {
  Type i32 = b.getI32Type();
  Value lo = arith::TruncIOp::create(b, loc, i32, seed);
  Value shift = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  Value hiWide = arith::ShRUIOp::create(b, loc, seed, shift);
  Value hi = arith::TruncIOp::create(b, loc, i32, hiWide);
  return {lo, hi};
}

std::array<Value, 4>
mlir::attn::emitPhilox(OpBuilder &b, Location loc, std::array<Value, 4> c,
                       Value k0, Value k1,
                       SmallVectorImpl<std::pair<Value, Value>> &keys) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto cst32 = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
  };
  if (keys.empty()) {
    // Round r's key: (k0 + r·W0, k1 + r·W1) mod 2^32.
    keys.push_back({k0, k1});
    Value w0 = cst32(::attn::kPhiloxW0), w1 = cst32(::attn::kPhiloxW1);
    for (int r = 1; r < 10; ++r) {
      Value a = arith::AddIOp::create(b, loc, keys.back().first, w0);
      Value d = arith::AddIOp::create(b, loc, keys.back().second, w1);
      keys.push_back({a, d});
    }
  }
  Value m0 = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(int64_t(::attn::kPhiloxM0)));
  Value m1 = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(int64_t(::attn::kPhiloxM1)));
  Value shift = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  // (hi, lo) of the 64-bit product m·x (m < 2^32, x zero-extended).
  auto mulHiLo = [&](Value m, Value x) -> std::pair<Value, Value> {
    Value wide = arith::ExtUIOp::create(b, loc, i64, x);
    Value prod = arith::MulIOp::create(b, loc, wide, m);
    Value lo = arith::TruncIOp::create(b, loc, i32, prod);
    Value hiWide = arith::ShRUIOp::create(b, loc, prod, shift);
    Value hi = arith::TruncIOp::create(b, loc, i32, hiWide);
    return {hi, lo};
  };
  for (int r = 0; r < 10; ++r) {
    auto [hi0, lo0] = mulHiLo(m0, c[0]);
    auto [hi1, lo1] = mulHiLo(m1, c[2]);
    // c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
    Value x0 = arith::XOrIOp::create(b, loc, hi1, c[1]);
    x0 = arith::XOrIOp::create(b, loc, x0, keys[size_t(r)].first);
    Value x2 = arith::XOrIOp::create(b, loc, hi0, c[3]);
    x2 = arith::XOrIOp::create(b, loc, x2, keys[size_t(r)].second);
    c = {x0, lo1, x2, lo0};
  }
  return c;
}
