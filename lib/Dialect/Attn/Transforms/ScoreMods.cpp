//===- ScoreMods.cpp - score_mod / mask_mod bodies on score tiles ---------===//
//
// The tilings of attn.attention and attn.attention_grad apply a modifier
// region's scalar body to a whole score tile: the per-program part once
// (emitScoreModScalars), the per-score part as the same ops on tiles
// (applyScoreMod). The backward also needs the derivative of a score_mod
// with respect to its score, built here in forward mode beside the values:
// each op's tangent from its operands' tangents (the score's is 1, every
// per-program value's and every integer's 0), so
//
//   dS = P∘(dP − Δ)∘∂mod/∂s
//
// costs nothing where the modifier only adds a bias (ALiBi's tangent stays
// the constant 1 and no multiply is built).
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::tiling;

namespace {

/// The arguments of a score_mod body, (score[, b, h, i, j]), or of a
/// mask_mod body, (b, h, i, j); null where absent.
struct ModArgs {
  BlockArgument score, b, h, i, j;
  explicit ModArgs(Block &body) {
    unsigned n = body.getNumArguments();
    unsigned pos = n == 4 ? 0 : 1; // the first position argument
    if (n != 4)
      score = body.getArgument(0);
    if (n >= 4) {
      b = body.getArgument(pos);
      h = body.getArgument(pos + 1);
      i = body.getArgument(pos + 2);
      j = body.getArgument(pos + 3);
    }
  }
};

/// A modifier region's values that differ from score to score: the score,
/// the positions i and j and what is computed from them. The rest (b, h,
/// captures, constants) is one value per program.
llvm::SmallPtrSet<Operation *, 8> varyingOps(Block &body) {
  llvm::SmallPtrSet<Value, 16> varying;
  ModArgs args(body);
  for (BlockArgument a : {args.score, args.i, args.j})
    if (a)
      varying.insert(a);
  llvm::SmallPtrSet<Operation *, 8> ops;
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); })) {
      ops.insert(&op);
      varying.insert(op.getResults().begin(), op.getResults().end());
    }
  return ops;
}

/// A derivative with respect to the score in forward mode: 0 and 1 are
/// kept symbolic (most of a modifier does not depend on the score, and an
/// added bias leaves the derivative 1), anything else is a tile.
struct Tangent {
  enum Kind { Zero, One, Tile } kind = Zero;
  Value tile;
  static Tangent zero() { return {}; }
  static Tangent one() { return {One, Value()}; }
  static Tangent of(Value v) { return {Tile, v}; }
};

/// Tangent arithmetic on tiles of one type, folding the symbolic 0 and 1.
struct TangentMath {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;

  Value materialize(const Tangent &t) {
    switch (t.kind) {
    case Tangent::Zero:
      return splat(b, loc, type, 0.0);
    case Tangent::One:
      return splat(b, loc, type, 1.0);
    case Tangent::Tile:
      break;
    }
    return t.tile;
  }
  // t·x
  Tangent mul(const Tangent &t, Value x) {
    if (t.kind == Tangent::Zero)
      return t;
    if (t.kind == Tangent::One)
      return Tangent::of(x);
    return Tangent::of(arith::MulFOp::create(b, loc, t.tile, x));
  }
  // t / x
  Tangent div(const Tangent &t, Value x) {
    if (t.kind == Tangent::Zero)
      return t;
    return Tangent::of(arith::DivFOp::create(b, loc, materialize(t), x));
  }
  Tangent add(const Tangent &x, const Tangent &y) {
    if (x.kind == Tangent::Zero)
      return y;
    if (y.kind == Tangent::Zero)
      return x;
    return Tangent::of(
        arith::AddFOp::create(b, loc, materialize(x), materialize(y)));
  }
  Tangent neg(const Tangent &t) {
    if (t.kind == Tangent::Zero)
      return t;
    return Tangent::of(arith::NegFOp::create(b, loc, materialize(t)));
  }
  // cond ? x : y
  Tangent select(Value cond, const Tangent &x, const Tangent &y) {
    if (x.kind == Tangent::Zero && y.kind == Tangent::Zero)
      return x;
    if (x.kind == Tangent::One && y.kind == Tangent::One)
      return x;
    return Tangent::of(
        arith::SelectOp::create(b, loc, cond, materialize(x), materialize(y)));
  }
  Value cmp(arith::CmpFPredicate pred, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, pred, x, y);
  }
};

/// The tangent of `op`'s (float) result `tiled` from its operands'
/// (`operand(k)`: the k-th operand's tile, `tangentOf(k)` its tangent).
/// Ops of the verifier's list without a float result, and integer-valued
/// ones (sitofp of a position), have derivative 0.
Tangent differentiate(Operation &op, Value tiled, TangentMath &tm,
                      function_ref<Value(unsigned)> operand,
                      function_ref<Tangent(unsigned)> tangentOf) {
  auto t = [&](unsigned k) { return tangentOf(k); };
  auto x = [&](unsigned k) { return operand(k); };
  using P = arith::CmpFPredicate;
  OpBuilder &b = tm.b;
  Location loc = tm.loc;
  RankedTensorType type = tm.type;
  return llvm::TypeSwitch<Operation *, Tangent>(&op)
      // (a + b)' = a' + b';  (a − b)' = a' − b';  (−a)' = −a'
      .Case([&](arith::AddFOp) { return tm.add(t(0), t(1)); })
      .Case([&](arith::SubFOp) { return tm.add(t(0), tm.neg(t(1))); })
      .Case([&](arith::NegFOp) { return tm.neg(t(0)); })
      // (a·b)' = a'·b + a·b'
      .Case([&](arith::MulFOp) {
        return tm.add(tm.mul(t(0), x(1)), tm.mul(t(1), x(0)));
      })
      // (a / b)' = a'/b − (a/b)·b'/b
      .Case([&](arith::DivFOp) {
        return tm.add(tm.div(t(0), x(1)),
                      tm.neg(tm.div(tm.mul(t(1), tiled), x(1))));
      })
      // max(a, b)' = a >= b ? a' : b';  min likewise with <=
      .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](Operation *) {
        return tm.select(tm.cmp(P::OGE, x(0), x(1)), t(0), t(1));
      })
      .Case<arith::MinimumFOp, arith::MinNumFOp>([&](Operation *) {
        return tm.select(tm.cmp(P::OLE, x(0), x(1)), t(0), t(1));
      })
      // (c ? a : b)' = c ? a' : b'
      .Case([&](arith::SelectOp) { return tm.select(x(0), t(1), t(2)); })
      // tanh' = 1 − tanh²;  exp' = exp;  (2^x)' = 2^x·ln 2
      .Case([&](math::TanhOp) {
        Value sq = arith::MulFOp::create(b, loc, tiled, tiled);
        return tm.mul(
            t(0), arith::SubFOp::create(b, loc, splat(b, loc, type, 1.0), sq));
      })
      .Case([&](math::ExpOp) { return tm.mul(t(0), tiled); })
      .Case([&](math::Exp2Op) {
        return tm.mul(t(0), arith::MulFOp::create(b, loc, tiled,
                                                  splat(b, loc, type, M_LN2)));
      })
      // |a|' = a < 0 ? −a' : a'
      .Case([&](math::AbsFOp) {
        Value neg = tm.cmp(P::OLT, x(0), splat(b, loc, type, 0.0));
        return tm.select(neg, tm.neg(t(0)), t(0));
      })
      // log' = 1/a;  sqrt' = 1/(2·sqrt)
      .Case([&](math::LogOp) { return tm.div(t(0), x(0)); })
      .Case([&](math::SqrtOp) {
        return tm.div(t(0), arith::MulFOp::create(b, loc, tiled,
                                                  splat(b, loc, type, 2.0)));
      })
      // A float conversion converts the derivative.
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *o) {
        Tangent in = t(0);
        if (in.kind != Tangent::Tile)
          return in;
        OperationState state(loc, o->getName());
        state.addOperands(in.tile);
        state.addTypes(type);
        state.addAttributes(o->getAttrs());
        return Tangent::of(b.create(state)->getResult(0));
      })
      .Default([&](Operation *) { return Tangent::zero(); });
}

} // namespace

void mlir::attn::tiling::emitScoreModScalars(OpBuilder &b, Location loc,
                                             Block &body, Value bIdx,
                                             Value hIdx, IRMapping &map) {
  ModArgs args(body);
  // FlexAttention's (b, h) as i32: batch (the packed sequence of a varlen
  // batch) and query head.
  for (auto [arg, v] : {std::pair{args.b, bIdx}, std::pair{args.h, hIdx}})
    if (arg && !arg.use_empty())
      map.map(arg, arith::IndexCastOp::create(b, loc, b.getI32Type(), v));
  llvm::SmallPtrSet<Operation *, 8> varying = varyingOps(body);
  for (Operation &o : body.without_terminator())
    if (!varying.contains(&o))
      b.clone(o, map);
}

bool mlir::attn::tiling::unscaledAdditiveScoreMod(Block &body,
                                                  const Scale &scale,
                                                  Region &into) {
  ModArgs args(body);
  Operation *last = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!args.score || !args.score.hasOneUse() || !last ||
      *args.score.user_begin() != last ||
      !isa<arith::AddFOp, arith::SubFOp>(last) ||
      (isa<arith::SubFOp>(last) && last->getOperand(0) != args.score))
    return false;
  unsigned gIdx = last->getOperand(0) == args.score ? 1 : 0;
  IRMapping map;
  body.getParent()->cloneInto(&into, map);
  Block &clone = into.front();
  Operation *add = map.lookup(last);
  llvm::SmallPtrSet<Operation *, 8> varying = varyingOps(clone);
  ModArgs cargs(clone);
  auto perProgram = [&](Value v) {
    if (v == cargs.score || v == cargs.i || v == cargs.j)
      return false;
    Operation *def = v.getDefiningOp();
    return !def || !varying.contains(def);
  };
  // 1/scale, once per program (a run-time scale is a captured value), first
  // in the body: every use follows it.
  // (`into` has no op: the builder takes the body's context.)
  OpBuilder b(body.getParentOp()->getContext());
  b.setInsertionPointToStart(&clone);
  Location loc = add->getLoc();
  Value inv =
      scale.dynamic
          ? arith::DivFOp::create(
                b, loc,
                arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)),
                scale.dynamic)
                .getResult()
          : arith::ConstantOp::create(b, loc,
                                      b.getF32FloatAttr(1.0f / scale.constant))
                .getResult();
  Value g = add->getOperand(gIdx);
  auto mul = g.getDefiningOp<arith::MulFOp>();
  int64_t uIdx = !mul                            ? -1
                 : perProgram(mul.getOperand(0)) ? 0
                 : perProgram(mul.getOperand(1)) ? 1
                                                 : -1;
  if (uIdx >= 0 && !g.hasOneUse())
    uIdx = -1;
  if (uIdx >= 0) {
    // g = u·x: (u·(1/scale))·x.
    b.setInsertionPoint(mul);
    Value u = arith::MulFOp::create(b, loc, mul.getOperand(uIdx), inv);
    mul->setOperand(uIdx, u);
  } else {
    b.setInsertionPoint(add);
    Value scaled =
        arith::MulFOp::create(b, loc, g, inv, arith::FastMathFlags::contract);
    add->setOperand(gIdx, scaled);
  }
  // One FMA a score with the multiplication before it.
  auto contract = [](Operation *op) {
    if (auto a = dyn_cast<arith::AddFOp>(op))
      a.setFastmath(a.getFastmath() | arith::FastMathFlags::contract);
    else if (auto s = dyn_cast<arith::SubFOp>(op))
      s.setFastmath(s.getFastmath() | arith::FastMathFlags::contract);
    else if (auto m = dyn_cast<arith::MulFOp>(op))
      m.setFastmath(m.getFastmath() | arith::FastMathFlags::contract);
  };
  contract(add);
  if (uIdx >= 0)
    contract(mul);
  return true;
}

Value mlir::attn::tiling::applyScoreMod(OpBuilder &b, Location loc, Block &body,
                                        const IRMapping &scalars, Value s,
                                        Value qStart, Value kvStart, Value nq,
                                        Value nk, bool masked, bool keyMajor,
                                        Value *tangent) {
  auto sType = cast<RankedTensorType>(s.getType());
  ArrayRef<int64_t> shape = sType.getShape();
  auto i32Tile = RankedTensorType::get(shape, b.getI32Type());
  IRMapping map = scalars;
  llvm::SmallPtrSet<Value, 16> tiles;
  auto mapTile = [&](Value from, Value to) {
    map.map(from, to);
    tiles.insert(to);
  };
  llvm::SmallPtrSet<Operation *, 8> varying = varyingOps(body);
  bool gathers = llvm::any_of(
      varying, [](Operation *op) { return isa<memref::LoadOp>(op); });
  ModArgs args(body);
  if (args.score)
    mapTile(args.score, s);
  // Query positions run along the rows of S (the columns of a key-major
  // Sᵀ), key positions along its columns.
  int64_t qDim = keyMajor ? 1 : 0;
  if (args.i && !args.i.use_empty())
    mapTile(args.i,
            IotaOp::create(b, loc, i32Tile, qStart, b.getI64IntegerAttr(qDim),
                           gathers ? nq : Value()));
  if (args.j && !args.j.use_empty())
    mapTile(args.j, IotaOp::create(b, loc, i32Tile, kvStart,
                                   b.getI64IntegerAttr(1 - qDim),
                                   gathers && masked ? nk : Value()));
  // A scalar operand of a tile op as a tile: a constant as a dense splat
  // constant (folds like the tiling's own constants), anything else as a
  // tensor.splat.
  auto asTile = [&](Value v) -> Value {
    Value m = map.lookupOrDefault(v);
    if (tiles.contains(m))
      return m;
    auto type = RankedTensorType::get(shape, m.getType());
    if (auto c = m.getDefiningOp<arith::ConstantOp>())
      return arith::ConstantOp::create(
          b, loc, type,
          DenseElementsAttr::get(type, cast<TypedAttr>(c.getValue())));
    return tensor::SplatOp::create(b, loc, type, m);
  };
  // The score's derivative of each body value (absent: 0).
  DenseMap<Value, Tangent> tangents;
  if (tangent && args.score)
    tangents[args.score] = Tangent::one();
  for (Operation &op : body.without_terminator()) {
    if (!varying.contains(&op))
      continue; // a per-program scalar, already in `scalars`
    if (auto cast = dyn_cast<arith::IndexCastOp>(op);
        cast && cast.getType().isIndex()) {
      // A per-score index stays the i32 tile it was cast from: only
      // attn.gather reads it (the verifier's rule).
      mapTile(cast.getResult(), map.lookup(cast.getIn()));
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      SmallVector<Value> indices;
      for (Value idx : load.getIndices())
        indices.push_back(map.lookupOrDefault(idx));
      auto type = RankedTensorType::get(shape, load.getType());
      mapTile(load.getResult(),
              GatherOp::create(b, loc, type, load.getMemRef(), indices));
      continue;
    }
    OperationState state(loc, op.getName());
    for (Value v : op.getOperands())
      state.addOperands(asTile(v));
    for (Type t : op.getResultTypes())
      state.addTypes(RankedTensorType::get(shape, t));
    state.addAttributes(op.getAttrs());
    Operation *tiled = b.create(state);
    for (auto [from, to] : llvm::zip(op.getResults(), tiled->getResults()))
      mapTile(from, to);
    if (!tangent || op.getNumResults() != 1 ||
        !isa<FloatType>(op.getResult(0).getType()) ||
        llvm::none_of(op.getOperands(),
                      [&](Value v) { return tangents.count(v); }))
      continue;
    TangentMath tm{b, loc,
                   cast<RankedTensorType>(tiled->getResult(0).getType())};
    Tangent d = differentiate(
        op, tiled->getResult(0), tm,
        [&](unsigned k) { return asTile(op.getOperand(k)); },
        [&](unsigned k) { return tangents.lookup(op.getOperand(k)); });
    if (d.kind != Tangent::Zero)
      tangents[op.getResult(0)] = d;
  }
  Value result = body.getTerminator()->getOperand(0);
  if (tangent) {
    // ∂mod/∂s; null where it is 1 (nothing to multiply by).
    Tangent d = tangents.lookup(result);
    *tangent = d.kind == Tangent::One
                   ? Value()
                   : TangentMath{b, loc, sType}.materialize(d);
  }
  return asTile(result);
}

namespace {

using Positions = PositionBias::Positions;
using Term = PositionBias::Term;

/// A float value of the body as PositionBias sees it: sCoef·s + Σ terms.
struct Affine {
  int64_t sCoef = 0;
  SmallVector<Term> terms;
};

// x ± y on the positions' integers.
Positions combine(const Positions &x, const Positions &y, int64_t sign) {
  Positions r = x;
  r.ci += sign * y.ci;
  r.cj += sign * y.cj;
  r.c += sign * y.c;
  for (auto [v, k] : y.scalars)
    r.scalars.push_back({v, sign * k});
  return r;
}

// x ± y on the body's floats.
Affine combine(const Affine &x, const Affine &y, bool subtract) {
  Affine r = x;
  r.sCoef += subtract ? -y.sCoef : y.sCoef;
  for (Term t : y.terms) {
    t.negate ^= subtract;
    r.terms.push_back(t);
  }
  return r;
}

/// i32 scalar `x` times `k` plus `acc` (null: 0).
Value addScaled(OpBuilder &b, Location loc, Value acc, Value x, int64_t k) {
  if (k != 1) {
    Value c = arith::ConstantIntOp::create(b, loc, k, 32);
    x = arith::MulIOp::create(b, loc, x, c);
  }
  return acc ? Value(arith::AddIOp::create(b, loc, acc, x)) : x;
}

/// c + Σ coefficient·scalar + ci·q0 as an i32 scalar (q0 an index, or null).
Value offsetOf(OpBuilder &b, Location loc, const Positions &p,
               const IRMapping &scalars, Value q0, int64_t ci) {
  Value acc = arith::ConstantIntOp::create(b, loc, p.c, 32);
  for (auto [v, k] : p.scalars)
    acc = addScaled(b, loc, acc, scalars.lookupOrDefault(v), k);
  if (q0 && ci) {
    Value q = arith::IndexCastOp::create(b, loc, b.getI32Type(), q0);
    acc = addScaled(b, loc, acc, q, ci);
  }
  return acc;
}

/// ±Π factors as an f32 scalar.
Value factorOf(OpBuilder &b, Location loc, const Term &t,
               const IRMapping &scalars) {
  Value a = arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                           APFloat(t.negate ? -1.0f : 1.0f));
  for (Value f : t.factors)
    a = arith::MulFOp::create(b, loc, a, scalars.lookupOrDefault(f));
  return a;
}

/// Σ over the terms of A_t·float(coef_t·iota + offset_t) on 1-d tiles of
/// `type`: `coef` and `offset` pick each term's integers (a null offset
/// skips the term).
Value sumTerms(OpBuilder &b, Location loc, ArrayRef<Term> terms,
               const IRMapping &scalars, RankedTensorType type, Value start,
               function_ref<int64_t(const Term &)> coef,
               function_ref<Value(const Term &)> offset) {
  auto i32Type = RankedTensorType::get(type.getShape(), b.getI32Type());
  // `reassoc`: a·(float(x) + C) may become a·float(x) + a·C on the GPU (the
  // layout's constant offsets then fold into one FMA an element).
  auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  Value total;
  for (const Term &t : terms) {
    Value off = offset(t);
    if (!off)
      continue;
    int64_t k = coef(t);
    Value pos = tensor::SplatOp::create(b, loc, i32Type, off);
    if (k) {
      Value iota = IotaOp::create(b, loc, i32Type, start,
                                  b.getI64IntegerAttr(0), /*clamp=*/Value());
      if (k == -1) {
        pos = arith::SubIOp::create(b, loc, pos, iota);
      } else {
        if (k != 1)
          iota = arith::MulIOp::create(
              b, loc, iota,
              arith::ConstantOp::create(
                  b, loc, i32Type,
                  DenseElementsAttr::get(i32Type, b.getI32IntegerAttr(k))));
        pos = arith::AddIOp::create(b, loc, iota, pos);
      }
    }
    Value f = arith::SIToFPOp::create(b, loc, type, pos);
    Value a =
        tensor::SplatOp::create(b, loc, type, factorOf(b, loc, t, scalars));
    f = arith::MulFOp::create(b, loc, a, f, flags);
    total = total ? Value(arith::AddFOp::create(b, loc, total, f, flags)) : f;
  }
  return total;
}

} // namespace

std::optional<PositionBias> PositionBias::match(Block &body) {
  ModArgs args(body);
  // (The score once: s + s − s is s only where s is finite.)
  if (!args.score || !args.score.getType().isF32() || !args.score.hasOneUse())
    return std::nullopt;
  llvm::SmallPtrSet<Operation *, 8> varying = varyingOps(body);
  DenseMap<Value, Positions> ints;
  DenseMap<Value, Affine> floats;
  floats[args.score].sCoef = 1;
  for (BlockArgument a : {args.i, args.j})
    if (a) {
      Positions p;
      (a == args.i ? p.ci : p.cj) = 1;
      ints[a] = p;
    }
  // A per-program value as a form; a varying one from the maps (none:
  // outside the form).
  auto intOf = [&](Value v) -> std::optional<Positions> {
    if (auto it = ints.find(v); it != ints.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    bool perProgram = (!def || !varying.contains(def)) && v != args.i &&
                      v != args.j && v != args.score;
    if (!perProgram || !v.getType().isInteger(32))
      return std::nullopt;
    Positions p;
    p.scalars.push_back({v, 1});
    return p;
  };
  auto floatOf = [&](Value v) -> std::optional<Affine> {
    if (auto it = floats.find(v); it != floats.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    bool perProgram = (!def || !varying.contains(def)) && v != args.score;
    if (!perProgram || !v.getType().isF32())
      return std::nullopt;
    Affine a;
    a.terms.push_back(Term{false, {v}, std::nullopt});
    return a;
  };
  for (Operation &op : body.without_terminator()) {
    if (!varying.contains(&op))
      continue;
    Value r = op.getResult(0);
    bool ok =
        llvm::TypeSwitch<Operation *, bool>(&op)
            .Case<arith::AddIOp, arith::SubIOp>([&](Operation *o) {
              auto x = intOf(o->getOperand(0)), y = intOf(o->getOperand(1));
              if (!x || !y)
                return false;
              ints[r] = combine(*x, *y, isa<arith::SubIOp>(o) ? -1 : 1);
              return true;
            })
            .Case([&](arith::MulIOp o) {
              // By an integer constant only.
              for (auto [x, c] : {std::pair{o.getLhs(), o.getRhs()},
                                  std::pair{o.getRhs(), o.getLhs()}}) {
                APInt k;
                auto p = intOf(x);
                if (!p || !matchPattern(c, m_ConstantInt(&k)))
                  continue;
                int64_t n = k.getSExtValue();
                Positions q;
                q.ci = p->ci * n;
                q.cj = p->cj * n;
                q.c = p->c * n;
                for (auto [v, m] : p->scalars)
                  q.scalars.push_back({v, m * n});
                ints[r] = q;
                return true;
              }
              return false;
            })
            .Case([&](arith::SIToFPOp o) {
              auto p = intOf(o.getIn());
              if (!p || !r.getType().isF32())
                return false;
              Affine a;
              a.terms.push_back(Term{false, {}, *p});
              floats[r] = a;
              return true;
            })
            .Case<arith::AddFOp, arith::SubFOp>([&](Operation *o) {
              auto x = floatOf(o->getOperand(0)), y = floatOf(o->getOperand(1));
              if (!x || !y)
                return false;
              floats[r] = combine(*x, *y, isa<arith::SubFOp>(o));
              return true;
            })
            .Case([&](arith::NegFOp o) {
              auto x = floatOf(o.getOperand());
              if (!x)
                return false;
              floats[r] = combine(Affine{}, *x, /*subtract=*/true);
              return true;
            })
            .Case([&](arith::MulFOp o) {
              // A sum without the score times a per-program scalar.
              for (auto [x, c] : {std::pair{o.getLhs(), o.getRhs()},
                                  std::pair{o.getRhs(), o.getLhs()}}) {
                auto a = floatOf(x);
                Operation *def = c.getDefiningOp();
                bool scalar = c.getType().isF32() && c != args.score &&
                              (!def || !varying.contains(def));
                if (!a || a->sCoef || !scalar)
                  continue;
                for (Term &t : a->terms)
                  t.factors.push_back(c);
                floats[r] = *a;
                return true;
              }
              return false;
            })
            .Default([](Operation *) { return false; });
    if (!ok)
      return std::nullopt;
  }
  auto result = floatOf(body.getTerminator()->getOperand(0));
  if (!result || result->sCoef != 1)
    return std::nullopt;
  PositionBias pb;
  pb.terms = std::move(result->terms);
  return pb;
}

Value PositionBias::columns(OpBuilder &b, Location loc,
                            const IRMapping &scalars, RankedTensorType type,
                            Value qStart, Value kvStart) const {
  // col(j) = cj·j + (ci·q0 + k): the terms that depend on j.
  return sumTerms(
      b, loc, terms, scalars, type, kvStart,
      [](const Term &t) { return t.positions->cj; },
      [&](const Term &t) -> Value {
        if (!t.positions || !t.positions->cj)
          return Value();
        return offsetOf(b, loc, *t.positions, scalars, qStart, t.positions->ci);
      });
}

Value PositionBias::rows(OpBuilder &b, Location loc, const IRMapping &scalars,
                         RankedTensorType type, Value qStart) const {
  // row(i) = ci·(i − q0), or the whole term where it has no j: ci·i + k;
  // a term without positions, A itself.
  IndexMath im{b, loc};
  Value zero = im.cst(0);
  Value total;
  auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  for (const Term &t : terms) {
    if (t.positions)
      continue;
    Value a =
        tensor::SplatOp::create(b, loc, type, factorOf(b, loc, t, scalars));
    total = total ? Value(arith::AddFOp::create(b, loc, total, a, flags)) : a;
  }
  SmallVector<Term> withJ, withoutJ;
  for (const Term &t : terms)
    if (t.positions)
      (t.positions->cj ? withJ : withoutJ).push_back(t);
  Value zeroI32 = arith::ConstantIntOp::create(b, loc, 0, 32);
  for (auto [list, start, whole] :
       {std::tuple{ArrayRef<Term>(withJ), zero, false},
        std::tuple{ArrayRef<Term>(withoutJ), qStart, true}}) {
    Value part = sumTerms(
        b, loc, list, scalars, type, start,
        [](const Term &t) { return t.positions->ci; },
        [&, whole = whole](const Term &t) -> Value {
          if (!t.positions->ci && !whole)
            return Value();
          return whole ? offsetOf(b, loc, *t.positions, scalars, Value(), 0)
                       : zeroI32;
        });
    if (part)
      total = total ? Value(arith::AddFOp::create(b, loc, total, part, flags))
                    : part;
  }
  return total;
}
