//===- LowerCPUBF16Contractions.cpp - bf16 products: AMX, AVX512-BF16 ---===//
//
// The CPU path's two products per key block, S = Q·Kᵀ and A += P·V, on the
// AMX tile unit (Sapphire Rapids and later): `tdpbf16ps` multiplies a 16×32
// bf16 tile by a 32×16 bf16 tile into a 16×16 f32 tile,
//
//   C[m][n] += Σ_k A[m][k]·B[k][n]      (products exact in f32, f32 sums),
//
// 16·16·32 multiply-adds per instruction, where AVX-512 FMAs do 16. The
// right tile is read in pairs along k (VNNI): its row r holds
// B[2r][n], B[2r+1][n] for n = 0..15, so B is repacked once per block:
//
//   Bp[r][2n + j] = B[2r + j][n]        (j ∈ {0, 1}).
//
// The contraction then walks C in 32×32 blocks: four accumulator tiles, two
// A and two B tiles per 32-wide k step — the eight tile registers.
//
//===----------------------------------------------------------------------===//
#include "CPUContractions.h"
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNLOWERCPUBF16CONTRACTIONS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// C[M,N] f32 += A[M,K] bf16 · B bf16, B stored [K,N] or (transposed) [N,K].
struct AMXContraction {
  linalg::GenericOp op;
  TypedValue<MemRefType> a, b, c;
  bool bTransposed;
  int64_t m, n, k;
};

/// C[M,N] f32 += Σ A[M,K/2,2] · Bp[K/2,N,2] over the last two dims: the
/// pair-interleaved contraction attn-vectorize-cpu-tiles{amx} builds, B
/// already packed.
struct PackedContraction {
  linalg::GenericOp op;
  TypedValue<MemRefType> a, b, c;
  int64_t m, n, k;
};

/// A memref whose rows the tile unit can read: static shape, rank 2, unit
/// innermost stride (tileloadd takes any row stride).
bool tileReadable(MemRefType t) {
  if (t.getRank() != 2 || !t.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(t.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The body c + extf(a)·extf(b) (either order of each operation).
bool isWidenedMulAdd(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc   ? add.getRhs()
               : add.getRhs() == acc ? add.getLhs()
                                     : Value();
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto isExtOf = [](Value v, Value arg) {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == arg;
  };
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (isExtOf(mul.getLhs(), a) && isExtOf(mul.getRhs(), b)) ||
         (isExtOf(mul.getLhs(), b) && isExtOf(mul.getRhs(), a));
}

std::optional<AMXContraction> matchAMXContraction(linalg::GenericOp g) {
  std::optional<bool> transposed = matmulRhsTransposed(g);
  if (!g.hasPureBufferSemantics() || !transposed)
    return std::nullopt;
  auto a = dyn_cast<TypedValue<MemRefType>>(g.getDpsInputOperand(0)->get());
  auto b = dyn_cast<TypedValue<MemRefType>>(g.getDpsInputOperand(1)->get());
  auto c = dyn_cast<TypedValue<MemRefType>>(g.getDpsInitOperand(0)->get());
  if (!a || !b || !c || !a.getType().getElementType().isBF16() ||
      !b.getType().getElementType().isBF16() ||
      !c.getType().getElementType().isF32() || !tileReadable(a.getType()) ||
      !tileReadable(b.getType()) || !tileReadable(c.getType()) ||
      !isWidenedMulAdd(g))
    return std::nullopt;
  int64_t sm = a.getType().getDimSize(0), sk = a.getType().getDimSize(1);
  int64_t sn = c.getType().getDimSize(1);
  if (sm % 16 || sn % 16 || sk % 32)
    return std::nullopt;
  return AMXContraction{g, a, b, c, *transposed, sm, sn, sk};
}

std::optional<PackedContraction> matchPackedContraction(linalg::GenericOp g) {
  if (!g.hasPureBufferSemantics() || g.getNumLoops() != 4 ||
      g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1)
    return std::nullopt;
  auto it = g.getIteratorTypesArray();
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  if (it[0] != par || it[1] != par || it[2] != red || it[3] != red)
    return std::nullopt;
  MLIRContext *ctx = g.getContext();
  AffineExpr dm, dn, dr, dj;
  bindDims(ctx, dm, dn, dr, dj);
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(4, 0, {dm, dr, dj}, ctx) ||
      maps[1] != AffineMap::get(4, 0, {dr, dn, dj}, ctx) ||
      maps[2] != AffineMap::get(4, 0, {dm, dn}, ctx))
    return std::nullopt;
  auto a = dyn_cast<TypedValue<MemRefType>>(g.getDpsInputOperand(0)->get());
  auto b = dyn_cast<TypedValue<MemRefType>>(g.getDpsInputOperand(1)->get());
  auto c = dyn_cast<TypedValue<MemRefType>>(g.getDpsInitOperand(0)->get());
  if (!a || !b || !c || !a.getType().getElementType().isBF16() ||
      !b.getType().getElementType().isBF16() ||
      !c.getType().getElementType().isF32() || !a.getType().hasStaticShape() ||
      !b.getType().hasStaticShape() || !tileReadable(c.getType()) ||
      a.getType().getDimSize(2) != 2 || b.getType().getDimSize(2) != 2 ||
      !a.getType().areTrailingDimsContiguous(2) ||
      !b.getType().areTrailingDimsContiguous(2) || !isWidenedMulAdd(g))
    return std::nullopt;
  int64_t sm = c.getType().getDimSize(0), sn = c.getType().getDimSize(1);
  int64_t sk = 2 * a.getType().getDimSize(1);
  if (sm % 16 || sn % 16 || sk % 32)
    return std::nullopt;
  return PackedContraction{g, a, b, c, sm, sn, sk};
}

/// [R, C, 2] -> [R, 2C]: the 2-D rows tileloadd reads.
Value collapsePairs(OpBuilder &b, Location loc, Value v) {
  return memref::CollapseShapeOp::create(
      b, loc, v, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
}

/// Whether C's only content before `op` is a copy of an all-zero constant
/// (`memref.copy %zeros, %c` earlier in the same block, nothing else touching
/// %c in between: S = Q·Kᵀ starts from zero). Returns that copy, which the
/// caller replaces with zeroed accumulator tiles.
memref::CopyOp zeroInitCopy(linalg::GenericOp op, Value c) {
  memref::CopyOp copy;
  for (Operation *user : c.getUsers())
    if (auto cp = dyn_cast<memref::CopyOp>(user);
        cp && cp.getTarget() == c && cp->getBlock() == op->getBlock() &&
        cp->isBeforeInBlock(op))
      copy = cp;
  if (!copy)
    return {};
  auto global = copy.getSource().getDefiningOp<memref::GetGlobalOp>();
  if (!global)
    return {};
  auto decl = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      global, global.getNameAttr());
  auto init =
      decl ? dyn_cast_or_null<DenseFPElementsAttr>(decl.getInitialValueAttr())
           : DenseFPElementsAttr();
  if (!init || !init.isSplat() || !init.getSplatValue<APFloat>().isPosZero())
    return {};
  // Nothing between the copy and the product reads or writes C.
  for (Operation *it = copy->getNextNode(); it != op; it = it->getNextNode()) {
    bool touches = false;
    it->walk([&](Operation *nested) {
      touches |= llvm::is_contained(nested->getOperands(), c);
    });
    if (touches)
      return {};
  }
  return copy;
}

/// Where the packed copy of B lives: a stack buffer at the top of the grid
/// program (the scf.forall body, one per thread once it is an OpenMP loop),
/// else of the function — not inside the key/value loop, where each
/// iteration would take new stack.
OpBuilder::InsertPoint packedBufferPoint(Operation *op) {
  Operation *scope = op->getParentOfType<scf::ForallOp>();
  if (!scope)
    scope = op->getParentOfType<FunctionOpInterface>();
  Block &entry = scope->getRegion(0).front();
  return OpBuilder::InsertPoint(&entry, entry.begin());
}

/// Bp[r][2n + j] = B[2r + j][n] for B stored [K, N]: rows 2r and 2r + 1
/// interleaved element by element.
void packRows(OpBuilder &b, Location loc, Value src, Value packed, int64_t k,
              int64_t n) {
  int64_t width = n % 32 == 0 ? 32 : 16;
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto rowType = VectorType::get({width}, b.getBF16Type());
  scf::ForOp::create(b, loc, idx(0), idx(k / 2), idx(1), ValueRange{},
                     [&](OpBuilder &b, Location l, Value r, ValueRange) {
                       Value even = arith::MulIOp::create(b, l, r, idx(2));
                       Value odd = arith::AddIOp::create(b, l, even, idx(1));
                       for (int64_t c0 = 0; c0 < n; c0 += width) {
                         Value x0 = vector::LoadOp::create(
                             b, l, rowType, src, ValueRange{even, idx(c0)});
                         Value x1 = vector::LoadOp::create(
                             b, l, rowType, src, ValueRange{odd, idx(c0)});
                         Value pairs =
                             vector::InterleaveOp::create(b, l, x0, x1);
                         vector::StoreOp::create(b, l, pairs, packed,
                                                 ValueRange{r, idx(2 * c0)});
                       }
                       scf::YieldOp::create(b, l);
                     });
}

/// Bp[r][2n + j] = Bt[n][2r + j] for B stored transposed ([N, K], the K
/// tile of S = Q·Kᵀ): as 32-bit pairs Bp32[r][n] = Bt32[n][r], a transpose
/// of 32-bit elements, done in 16×16 blocks (16 row loads, the AVX-512
/// 16×16 shuffle network, 16 row stores).
void packTransposed(OpBuilder &b, Location loc, Value src, Value packed,
                    int64_t k, int64_t n) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Type i32 = b.getI32Type();
  auto bfRow = VectorType::get({32}, b.getBF16Type());
  auto pairRow = VectorType::get({16}, i32);
  auto block = VectorType::get({16, 16}, i32);
  scf::ForOp::create(
      b, loc, idx(0), idx(n), idx(16), ValueRange{},
      [&](OpBuilder &b, Location l, Value n0, ValueRange) {
        scf::ForOp::create(
            b, l, idx(0), idx(k / 2), idx(16), ValueRange{},
            [&](OpBuilder &b, Location l, Value r0, ValueRange) {
              Value col = arith::MulIOp::create(b, l, r0, idx(2));
              Value m = arith::ConstantOp::create(
                  b, l, block,
                  DenseElementsAttr::get(block, b.getI32IntegerAttr(0)));
              for (int64_t i = 0; i < 16; ++i) {
                Value row = arith::AddIOp::create(b, l, n0, idx(i));
                Value x = vector::LoadOp::create(b, l, bfRow, src,
                                                 ValueRange{row, col});
                x = vector::BitCastOp::create(b, l, pairRow, x);
                m = vector::InsertOp::create(b, l, x, m, ArrayRef<int64_t>{i});
              }
              Value t =
                  vector::TransposeOp::create(b, l, m, ArrayRef<int64_t>{1, 0});
              Value outCol = arith::MulIOp::create(b, l, n0, idx(2));
              for (int64_t i = 0; i < 16; ++i) {
                Value y =
                    vector::ExtractOp::create(b, l, t, ArrayRef<int64_t>{i});
                y = vector::BitCastOp::create(b, l, bfRow, y);
                Value row = arith::AddIOp::create(b, l, r0, idx(i));
                vector::StoreOp::create(b, l, y, packed,
                                        ValueRange{row, outCol});
              }
              scf::YieldOp::create(b, l);
            });
        scf::YieldOp::create(b, l);
      });
}

/// C += A·B on tiles, B packed: for each block of C (2×2 tiles of 16×16
/// where M and N allow, else 1 along that dim), accumulators loaded once,
/// k in steps of 32 unrolled, accumulators stored once; blocks ordered
/// N-chunk, M, N (see kBChunkBytes).
void emitTileProducts(OpBuilder &b, Location loc, Value cBuf, Value aBuf,
                      Value packed, int64_t m, int64_t n, int64_t k,
                      bool zeroInit) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t bm = m % 32 == 0 ? 2 : 1, bn = n % 32 == 0 ? 2 : 1;
  auto accType = amx::TileType::get({16, 16}, b.getF32Type());
  auto opType = amx::TileType::get({16, 32}, b.getBF16Type());
  // N in chunks whose packed B columns (K × chunk bf16) take at most 16 KB,
  // the m loop inside: each chunk of B stays in L1 while every 32-row strip
  // of A passes over it. With the m loop outside, all of B streams from L2
  // once per strip, 1/16 B per multiply-add (32 B a cycle at the unit's
  // rate). Against m outside (bf16, D = 128, N = 2k, Xeon, 2 threads, paired
  // rounds): 16 KB 0.85× and 0.94× the time, 32 KB 0.97×, 8 KB 1.07×.
  constexpr int64_t kBChunkBytes = 16 * 1024;
  int64_t step = 16 * bn;
  int64_t chunk = std::max<int64_t>(step, kBChunkBytes / (2 * k) / step * step);
  while (n % chunk)
    chunk -= step;
  scf::ForOp::create(
      b, loc, idx(0), idx(n), idx(chunk), ValueRange{},
      [&](OpBuilder &b, Location l, Value nc, ValueRange) {
        scf::ForOp::create(
            b, l, idx(0), idx(m), idx(16 * bm), ValueRange{},
            [&](OpBuilder &b, Location l, Value m0, ValueRange) {
              Value ncEnd = arith::AddIOp::create(b, l, nc, idx(chunk));
              scf::ForOp::create(
                  b, l, nc, ncEnd, idx(16 * bn), ValueRange{},
                  [&](OpBuilder &b, Location l, Value n0, ValueRange) {
                    SmallVector<Value> rows, cols, packedCols;
                    for (int64_t i = 0; i < bm; ++i)
                      rows.push_back(
                          arith::AddIOp::create(b, l, m0, idx(16 * i)));
                    for (int64_t j = 0; j < bn; ++j) {
                      Value col = arith::AddIOp::create(b, l, n0, idx(16 * j));
                      cols.push_back(col);
                      packedCols.push_back(
                          arith::MulIOp::create(b, l, col, idx(2)));
                    }
                    SmallVector<Value> acc;
                    for (int64_t i = 0; i < bm; ++i)
                      for (int64_t j = 0; j < bn; ++j)
                        acc.push_back(
                            zeroInit
                                ? Value(amx::TileZeroOp::create(b, l, accType))
                                : Value(amx::TileLoadOp::create(
                                      b, l, accType, cBuf,
                                      ValueRange{rows[i], cols[j]})));
                    for (int64_t k0 = 0; k0 < k; k0 += 32) {
                      SmallVector<Value> lhs, rhs;
                      for (int64_t i = 0; i < bm; ++i)
                        lhs.push_back(amx::TileLoadOp::create(
                            b, l, opType, aBuf, ValueRange{rows[i], idx(k0)}));
                      for (int64_t j = 0; j < bn; ++j)
                        rhs.push_back(amx::TileLoadOp::create(
                            b, l, opType, packed,
                            ValueRange{idx(k0 / 2), packedCols[j]}));
                      for (int64_t i = 0; i < bm; ++i)
                        for (int64_t j = 0; j < bn; ++j)
                          acc[i * bn + j] = amx::TileMulFOp::create(
                              b, l, accType, lhs[i], rhs[j], acc[i * bn + j]);
                    }
                    for (int64_t i = 0; i < bm; ++i)
                      for (int64_t j = 0; j < bn; ++j)
                        amx::TileStoreOp::create(b, l, cBuf,
                                                 ValueRange{rows[i], cols[j]},
                                                 acc[i * bn + j]);
                    scf::YieldOp::create(b, l);
                  });
              scf::YieldOp::create(b, l);
            });
        scf::YieldOp::create(b, l);
      });
}

/// C += A·Bp with AVX512-BF16 (hosts without the tile unit), A and Bp 2-D
/// [M, K] and [K/2, 2N] (Bp pair-interleaved): register tiles of 8 rows ×
/// `width` (32 or 16) columns of f32, loaded once; for each pair r of k,
///   C[m][n0 + l] += A[m][2r]·Bp[r][2(n0+l)] + A[m][2r+1]·Bp[r][2(n0+l)+1]
/// as one vdpbf16ps per row and 16 columns: the A pair broadcast as a
/// 32-bit lane, the Bp row loaded once per 16 columns for all 8 rows.
void emitDotProducts(OpBuilder &b, Location loc, Value cBuf, Value aBuf,
                     Value packed, int64_t m, int64_t n, int64_t k,
                     bool zeroInit) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  constexpr int64_t rowsPerTile = 8;
  int64_t width = n % 32 == 0 ? 32 : 16, vecs = width / 16;
  auto f32x16 = VectorType::get({16}, b.getF32Type());
  auto bf16x32 = VectorType::get({32}, b.getBF16Type());
  auto bf16x2 = VectorType::get({2}, b.getBF16Type());
  auto i32x1 = VectorType::get({1}, b.getI32Type());
  auto i32x16 = VectorType::get({16}, b.getI32Type());
  scf::ForOp::create(
      b, loc, idx(0), idx(m), idx(rowsPerTile), ValueRange{},
      [&](OpBuilder &b, Location l, Value m0, ValueRange) {
        scf::ForOp::create(
            b, l, idx(0), idx(n), idx(width), ValueRange{},
            [&](OpBuilder &b, Location l, Value n0, ValueRange) {
              SmallVector<Value> rows, cols, acc;
              for (int64_t i = 0; i < rowsPerTile; ++i)
                rows.push_back(arith::AddIOp::create(b, l, m0, idx(i)));
              for (int64_t j = 0; j < vecs; ++j)
                cols.push_back(arith::AddIOp::create(b, l, n0, idx(16 * j)));
              Value zeros =
                  arith::ConstantOp::create(b, l, b.getZeroAttr(f32x16));
              for (int64_t i = 0; i < rowsPerTile; ++i)
                for (int64_t j = 0; j < vecs; ++j)
                  acc.push_back(zeroInit ? zeros
                                         : Value(vector::LoadOp::create(
                                               b, l, f32x16, cBuf,
                                               ValueRange{rows[i], cols[j]})));
              auto kLoop = scf::ForOp::create(
                  b, l, idx(0), idx(k / 2), idx(1), acc,
                  [&](OpBuilder &b, Location l, Value r, ValueRange args) {
                    SmallVector<Value> next(args.begin(), args.end());
                    Value pair = arith::MulIOp::create(b, l, r, idx(2));
                    SmallVector<Value> bRows;
                    for (int64_t j = 0; j < vecs; ++j) {
                      Value col = arith::MulIOp::create(b, l, cols[j], idx(2));
                      bRows.push_back(vector::LoadOp::create(
                          b, l, bf16x32, packed, ValueRange{r, col}));
                    }
                    for (int64_t i = 0; i < rowsPerTile; ++i) {
                      Value a = vector::LoadOp::create(
                          b, l, bf16x2, aBuf, ValueRange{rows[i], pair});
                      a = vector::BitCastOp::create(b, l, i32x1, a);
                      a = vector::BroadcastOp::create(b, l, i32x16, a);
                      a = vector::BitCastOp::create(b, l, bf16x32, a);
                      for (int64_t j = 0; j < vecs; ++j)
                        next[i * vecs + j] = x86vector::DotBF16Op::create(
                            b, l, f32x16, next[i * vecs + j], a, bRows[j]);
                    }
                    scf::YieldOp::create(b, l, next);
                  });
              for (int64_t i = 0; i < rowsPerTile; ++i)
                for (int64_t j = 0; j < vecs; ++j)
                  vector::StoreOp::create(b, l, kLoop.getResult(i * vecs + j),
                                          cBuf, ValueRange{rows[i], cols[j]});
              scf::YieldOp::create(b, l);
            });
        scf::YieldOp::create(b, l);
      });
}

struct LowerCPUBF16ContractionsPass
    : public attn::impl::AttnLowerCPUBF16ContractionsBase<
          LowerCPUBF16ContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<AMXContraction> found;
    SmallVector<PackedContraction> packedOnes;
    func.walk([&](linalg::GenericOp g) {
      if (std::optional<AMXContraction> c = matchAMXContraction(g))
        found.push_back(*c);
      else if (std::optional<PackedContraction> p = matchPackedContraction(g))
        packedOnes.push_back(*p);
    });
    // Without the tile unit only the packed contractions are taken (their
    // right operand packed already); a plain one stays for the loops.
    if (!amx)
      found.clear();
    if (found.empty() && packedOnes.empty())
      return;
    OpBuilder b(&getContext());
    // One packed buffer per shape and scope: each is filled right before its
    // product and dead after it, so the products of a program share it.
    DenseMap<std::pair<Block *, Type>, Value> buffers;
    for (AMXContraction &c : found) {
      Location loc = c.op.getLoc();
      // The packed B: K/2 rows of 2N bf16, 64-byte aligned (tile rows).
      OpBuilder::InsertPoint at = packedBufferPoint(c.op);
      auto packedType = MemRefType::get({c.k / 2, 2 * c.n}, b.getBF16Type());
      Value &packed = buffers[{at.getBlock(), packedType}];
      if (!packed) {
        b.restoreInsertionPoint(at);
        packed = memref::AllocaOp::create(b, loc, packedType, ValueRange{},
                                          b.getI64IntegerAttr(64));
      }
      b.setInsertionPoint(c.op);
      if (c.bTransposed)
        packTransposed(b, loc, c.b, packed, c.k, c.n);
      else
        packRows(b, loc, c.b, packed, c.k, c.n);
      memref::CopyOp zeros = zeroInitCopy(c.op, c.c);
      emitTileProducts(b, loc, c.c, c.a, packed, c.m, c.n, c.k,
                       /*zeroInit=*/bool(zeros));
      if (zeros)
        zeros.erase();
      c.op.erase();
    }
    for (PackedContraction &c : packedOnes) {
      Location loc = c.op.getLoc();
      b.setInsertionPoint(c.op);
      Value a = collapsePairs(b, loc, c.a), packed = collapsePairs(b, loc, c.b);
      memref::CopyOp zeros = zeroInitCopy(c.op, c.c);
      if (amx)
        emitTileProducts(b, loc, c.c, a, packed, c.m, c.n, c.k,
                         /*zeroInit=*/bool(zeros));
      else
        emitDotProducts(b, loc, c.c, a, packed, c.m, c.n, c.k,
                        /*zeroInit=*/bool(zeros));
      if (zeros)
        zeros.erase();
      c.op.erase();
    }
    // The packing's 16×16 transposes as AVX-512 shuffles; the 2-D vectors
    // around them as rows.
    RewritePatternSet p(&getContext());
    vector::populateVectorTransposeLoweringPatterns(
        p, vector::VectorTransposeLowering::Shuffle16x16);
    vector::populateVectorShapeCastLoweringPatterns(p);
    if (failed(applyPatternsGreedily(func, std::move(p))))
      return signalPassFailure();
  }
};

} // namespace
