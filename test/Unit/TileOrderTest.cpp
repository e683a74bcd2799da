//===- TileOrderTest.cpp - the tile orders the kernels compute ------------===//
//
// tileAt and snakeRounds (TileOrder.h) emit the arithmetic by which a
// thread block or a persistent program finds its tile. A tile run twice or
// never is a wrong result on the GPU, so these tests build that arithmetic
// for many grid shapes, evaluate the emitted ops (a small interpreter of the
// arith ops they use, on the values they would see) for every linear index,
// and check that each order is a permutation of the grid with the promised
// structure (query blocks of a head together, longest first in a group).
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/TileOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Values of the block arguments, then of every op in order: the integer
/// arith ops the orders are made of, unsigned, at the width of their type.
struct Interpreter {
  llvm::DenseMap<Value, uint64_t> v;

  static uint64_t mask(Type t) {
    unsigned w = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
    return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  }

  void run(Block &block) {
    for (Operation &op : block.without_terminator()) {
      auto in = [&](unsigned i) { return v.lookup(op.getOperand(i)); };
      uint64_t r =
          llvm::TypeSwitch<Operation *, uint64_t>(&op)
              .Case([&](arith::ConstantOp c) {
                return cast<IntegerAttr>(c.getValue())
                    .getValue()
                    .getZExtValue();
              })
              .Case([&](arith::AddIOp) { return in(0) + in(1); })
              .Case([&](arith::SubIOp) { return in(0) - in(1); })
              .Case([&](arith::MulIOp) { return in(0) * in(1); })
              .Case([&](arith::AndIOp) { return in(0) & in(1); })
              .Case([&](arith::DivUIOp) { return in(0) / in(1); })
              .Case([&](arith::RemUIOp) { return in(0) % in(1); })
              .Case([&](arith::CeilDivUIOp) {
                return (in(0) + in(1) - 1) / in(1);
              })
              .Case([&](arith::MinUIOp) { return std::min(in(0), in(1)); })
              .Case([&](arith::CmpIOp c) -> uint64_t {
                switch (c.getPredicate()) {
                case arith::CmpIPredicate::eq:
                  return in(0) == in(1);
                case arith::CmpIPredicate::ule:
                  return in(0) <= in(1);
                default:
                  ADD_FAILURE() << "unexpected predicate";
                  return 0;
                }
              })
              .Case([&](arith::SelectOp) { return in(0) ? in(1) : in(2); })
              .Case([&](arith::IndexCastUIOp) { return in(0); })
              .Default([&](Operation *o) {
                ADD_FAILURE()
                    << "unexpected op " << o->getName().getStringRef().str();
                return uint64_t(0);
              });
      ASSERT_EQ(op.getNumResults(), 1u);
      // Unsigned arithmetic at the result's width (a divisor of zero would
      // have failed above through the grid's shape, never here).
      v[op.getResult(0)] = r & mask(op.getResult(0).getType());
    }
  }
};

struct TileOrderTest : public ::testing::Test {
  MLIRContext ctx;
  TileOrderTest() { ctx.loadDialect<arith::ArithDialect, func::FuncDialect>(); }

  /// (batch, head, query block) of every linear index L of an X×Y×Z grid,
  /// with groups of `groupBlocks` tiles (0: none).
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>
  order(uint64_t X, uint64_t Y, uint64_t Z, uint64_t groupBlocks) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    auto module = ModuleOp::create(loc);
    Type i32 = b.getI32Type();
    SmallVector<Type> args(groupBlocks ? 5 : 4, i32);
    b.setInsertionPointToEnd(module.getBody());
    auto fn =
        func::FuncOp::create(b, loc, "order", b.getFunctionType(args, {}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    TileCoords t = tileAt(b, loc, body->getArgument(0), body->getArgument(1),
                          body->getArgument(2), body->getArgument(3),
                          groupBlocks ? body->getArgument(4) : Value());
    func::ReturnOp::create(b, loc);
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> out;
    for (uint64_t L = 0; L < X * Y * Z; ++L) {
      Interpreter in;
      uint64_t vals[5] = {L, X, Y, Z, groupBlocks};
      for (unsigned i = 0; i < body->getNumArguments(); ++i)
        in.v[body->getArgument(i)] = vals[i];
      in.run(*body);
      out.emplace_back(in.v.lookup(t.batch), in.v.lookup(t.head),
                       in.v.lookup(t.qBlock));
    }
    module->erase();
    return out;
  }

  /// snakeRounds' L for t in [0, tiles) with `programs` programs.
  std::vector<uint64_t> snake(uint64_t tiles, uint64_t programs) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    auto module = ModuleOp::create(loc);
    Type idx = b.getIndexType();
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(b, loc, "snake",
                                   b.getFunctionType({idx, idx, idx}, {}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    Value L = snakeRounds(b, loc, body->getArgument(0), body->getArgument(1),
                          body->getArgument(2));
    func::ReturnOp::create(b, loc);
    std::vector<uint64_t> out;
    for (uint64_t t = 0; t < tiles; ++t) {
      Interpreter in;
      in.v[body->getArgument(0)] = t;
      in.v[body->getArgument(1)] = programs;
      in.v[body->getArgument(2)] = tiles;
      in.run(*body);
      out.push_back(in.v.lookup(L));
    }
    module->erase();
    return out;
  }
};

TEST_F(TileOrderTest, EveryTileOnceWithoutGroups) {
  for (uint64_t X : {1, 2, 7, 16})
    for (uint64_t Y : {1, 3, 8})
      for (uint64_t Z : {1, 2, 5}) {
        auto o = order(X, Y, Z, 0);
        std::set<std::tuple<uint64_t, uint64_t, uint64_t>> seen(o.begin(),
                                                                o.end());
        ASSERT_EQ(seen.size(), X * Y * Z) << X << "x" << Y << "x" << Z;
        for (auto [b, h, q] : o)
          ASSERT_TRUE(b < Z && h < Y && q < X);
        // The query blocks of one head together, the last first.
        for (uint64_t L = 0; L < o.size(); ++L)
          ASSERT_EQ(std::get<2>(o[L]), X - 1 - L % X);
      }
}

TEST_F(TileOrderTest, EveryTileOnceInGroupsLongestFirst) {
  // Groups of heads that do not divide the heads evenly, groups larger
  // than the grid, one block a group.
  for (uint64_t X : {1, 3, 16, 33})
    for (uint64_t Y : {1, 4, 7})
      for (uint64_t Z : {1, 3})
        for (uint64_t blocks : {1, 5, 64, 528, 100000}) {
          auto o = order(X, Y, Z, blocks);
          std::set<std::tuple<uint64_t, uint64_t, uint64_t>> seen(o.begin(),
                                                                  o.end());
          ASSERT_EQ(seen.size(), X * Y * Z)
              << X << "x" << Y << "x" << Z << " groups of " << blocks;
          for (auto [b, h, q] : o)
            ASSERT_TRUE(b < Z && h < Y && q < X);
          // Inside a group the query blocks never grow: a group's heads
          // change before its query block does.
          uint64_t heads = Y * Z;
          uint64_t groups =
              (heads + (blocks + X - 1) / X - 1) / ((blocks + X - 1) / X);
          uint64_t groupHeads = (heads + groups - 1) / groups;
          for (uint64_t L = 1; L < o.size(); ++L) {
            if (L % (groupHeads * X) == 0)
              continue;
            ASSERT_LE(std::get<2>(o[L]), std::get<2>(o[L - 1]))
                << "L " << L << " in " << X << "x" << Y << "x" << Z;
          }
        }
}

TEST_F(TileOrderTest, SnakeRoundsIsAPermutation) {
  for (uint64_t tiles : {1, 5, 132, 133, 264, 1000, 1024})
    for (uint64_t programs : {1, 2, 7, 132}) {
      auto s = snake(tiles, programs);
      std::set<uint64_t> seen(s.begin(), s.end());
      ASSERT_EQ(seen.size(), tiles) << tiles << " tiles, " << programs;
      ASSERT_LT(*seen.rbegin(), tiles);
      // Whole odd rounds run backwards, the rest forwards.
      for (uint64_t t = 0; t < tiles; ++t) {
        uint64_t r = t / programs, q = t % programs;
        bool back = (r & 1) && (r + 1) * programs <= tiles;
        ASSERT_EQ(s[t], back ? r * programs + programs - 1 - q : t);
      }
    }
}

} // namespace
