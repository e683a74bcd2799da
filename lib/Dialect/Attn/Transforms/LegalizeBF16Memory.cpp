//===- LegalizeBF16Memory.cpp - bf16 vectors move through memory as i16 -===//
//
// On an x86 host without native bf16 (no AVX512-BF16 / AVX-NE-CONVERT; the
// development machine and most AVX2 servers) LLVM's backend splits a load
// or store of <N x bfloat> into N scalar 16-bit moves. The CPU path's bf16
// tiles (the zero-padded row copies of Q, K and V blocks) are such vectors:
// a 128-element row becomes 128 movzwl + 128 movw, and once the loop
// unroller replicates the copy loops (it does for -mcpu=znver3) one basic
// block holds ~18 000 memory instructions, on which the machine scheduler's
// alias analysis is quadratic: 12-16 s of JIT time for one bf16 kernel.
// The bytes are the same as an <N x i16>: load and store that, with a
// bitcast to and from bfloat beside the memory op. InstCombine then folds a
// load whose only use is a bitcast to i16 (the bf16 -> f32 conversion is
// integer shifts by now) and a copy's load/store pair into i16 moves.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNLEGALIZEBF16MEMORY
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;

namespace {
/// The integer vector of a bf16 vector's shape (vector<Nxbf16> ->
/// vector<Nxi16>), or null for any other type.
VectorType asI16(Type t) {
  auto v = dyn_cast<VectorType>(t);
  if (!v || !v.getElementType().isBF16() || v.isScalable())
    return {};
  return v.clone(IntegerType::get(t.getContext(), 16));
}

struct LegalizeBF16MemoryPass
    : public attn::impl::AttnLegalizeBF16MemoryBase<LegalizeBF16MemoryPass> {
  void runOnOperation() override {
    SmallVector<LLVM::LoadOp> loads;
    SmallVector<LLVM::StoreOp> stores;
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op); load && asI16(load.getType()))
        loads.push_back(load);
      else if (auto store = dyn_cast<LLVM::StoreOp>(op);
               store && asI16(store.getValue().getType()))
        stores.push_back(store);
    });
    // %v = llvm.load %p : vector<Nxbf16>
    //   -> %i = llvm.load %p : vector<Nxi16>; %v = llvm.bitcast %i
    // (the clone keeps alignment, volatile, ordering, ...).
    for (LLVM::LoadOp load : loads) {
      OpBuilder b(load);
      Type bf16Type = load.getType();
      Operation *wide = b.clone(*load);
      wide->getResult(0).setType(asI16(bf16Type));
      auto cast = LLVM::BitcastOp::create(b, load.getLoc(), bf16Type,
                                          wide->getResult(0));
      load.getResult().replaceAllUsesWith(cast.getResult());
      load.erase();
    }
    // llvm.store %v, %p : vector<Nxbf16>
    //   -> %i = llvm.bitcast %v : vector<Nxi16>; llvm.store %i, %p
    for (LLVM::StoreOp store : stores) {
      OpBuilder b(store);
      Value bits = LLVM::BitcastOp::create(b, store.getLoc(),
                                           asI16(store.getValue().getType()),
                                           store.getValue());
      store.getValueMutable().assign(bits);
    }
  }
};
} // namespace
