//===- attn-bundle.cpp - ahead-of-time kernels for the runtime --*- C++ -*-===//
//
// Compiles one attn.attention per configuration (dtype × head dim × causal)
// through the attn-codegen pipeline for each chip, and writes a bundle the
// runtime loads: one PTX file per (kernel, chip) and a manifest.txt line
// with what the launcher needs (taken from the kernel's attn.kernel
// attribute):
//
//   kernel name=... ptx=... chip=sm_80 dtype=bf16 head_dim=128
//          head_dim_v=128 causal=1 block_m=128 block_n=64 threads=256
//          smem=65536
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> outDir("out-dir", cl::desc("Bundle directory"),
                                   cl::Required);
static cl::list<std::string> chips("chips", cl::desc("GPU chips"),
                                   cl::CommaSeparated);
static cl::list<std::string> dtypes("dtypes", cl::desc("f16, bf16"),
                                    cl::CommaSeparated);
static cl::list<int64_t> headDims("head-dims", cl::desc("Head dims"),
                                  cl::CommaSeparated);
// Tuning knobs (defaults: the compiler's heuristics), for benchmarking
// variants against each other.
static cl::opt<int64_t> blockQ("block-q", cl::desc("Query block rows"),
                               cl::init(0));
static cl::opt<int64_t> blockKV("block-kv", cl::desc("Key/value block rows"),
                                cl::init(0));
static cl::opt<int64_t> mTiles("m-tiles", cl::desc("16-row m-tiles per warp"),
                               cl::init(0));
static cl::opt<int64_t> qInRegisters("q-in-registers",
                                     cl::desc("Q fragments in registers"),
                                     cl::init(-1));
static cl::opt<int64_t>
    kvStages("kv-stages", cl::desc("K/V shared-memory stages"), cl::init(0));

namespace {
OwningOpRef<ModuleOp> buildProblem(MLIRContext &ctx, Type et, int64_t d,
                                   bool causal, bool withLse) {
  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  auto module = ModuleOp::create(loc);
  int64_t dyn = ShapedType::kDynamic;
  // Q, K, V, O with run-time strides (the runtime takes any layout whose
  // head dim is contiguous): an identity layout would let the compiler fold
  // the row stride to D.
  auto strided = StridedLayoutAttr::get(&ctx, dyn, {dyn, dyn, dyn, 1});
  auto t = MemRefType::get({dyn, dyn, dyn, d}, et, strided);
  auto lseT = MemRefType::get({dyn, dyn, dyn}, b.getF32Type());
  b.setInsertionPointToEnd(module.getBody());
  // The kernel takes this function's arguments (the memref ABI of
  // runtime/include/attn/runtime/KernelABI.h): (q, k, v, o[, lse], scale),
  // the scale a run-time value so that one kernel serves every scale. Its
  // name says the configuration; the kernel is "<name>_kernel".
  SmallVector<Type> args = {t, t, t, t};
  if (withLse)
    args.push_back(lseT);
  args.push_back(b.getF32Type());
  std::string name =
      (llvm::Twine("attn_fwd_") + (et.isBF16() ? "bf16" : "f16") + "_d" +
       llvm::Twine(d) + (causal ? "_causal" : "") + (withLse ? "" : "_nolse"))
          .str();
  auto fn = func::FuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto op = attn::AttentionOp::create(
      b, loc, entry->getArgument(0), entry->getArgument(1),
      entry->getArgument(2), entry->getArgument(3),
      withLse ? entry->getArgument(4) : Value(),
      /*dynamic_scale=*/entry->getArguments().back(), FloatAttr(), UnitAttr(),
      IntegerAttr(), IntegerAttr(), attn::TargetAttr());
  op.setCausal(causal);
  func::ReturnOp::create(b, loc);
  return module;
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "attn-bundle: error: " << msg << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "attn-bundle: ahead-of-time GPU kernels\n");
  if (chips.empty())
    chips.push_back("sm_80");
  if (dtypes.empty()) {
    dtypes.push_back("f16");
    dtypes.push_back("bf16");
  }
  if (headDims.empty())
    for (int64_t d : {64, 96, 128, 256})
      headDims.push_back(d);
  for (const std::string &c : chips)
    if (!attn::isSupportedChip(c))
      return fail("unsupported chip '" + c + "'");
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create " + outDir + ": " + ec.message());

  DialectRegistry registry;
  attn::registerAttnDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  std::string manifest =
      "# attn kernel bundle: one line per (kernel, chip). Written by "
      "attn-bundle.\n";
  for (const std::string &chip : chips)
    for (const std::string &dt : dtypes)
      for (int64_t d : headDims)
        for (bool causal : {false, true})
          for (bool withLse : {true, false}) {
            Type et;
            if (dt == "f16")
              et = Float16Type::get(&ctx);
            else if (dt == "bf16")
              et = BFloat16Type::get(&ctx);
            else
              return fail("unsupported dtype '" + dt + "' (f16, bf16)");
            OwningOpRef<ModuleOp> module =
                buildProblem(ctx, et, d, causal, withLse);
            attn::CodegenPipelineOptions opts;
            opts.chip = chip;
            opts.blockQ = blockQ;
            opts.blockKV = blockKV;
            opts.mTiles = mTiles;
            opts.qInRegisters = qInRegisters;
            opts.kvStages = kvStages;
            FailureOr<mlir::attn::CompiledKernel> k =
                mlir::attn::compileGPUKernel(*module, opts);
            if (failed(k))
              return fail("kernel generation failed for " + dt + " d" +
                          llvm::Twine(d));
            std::string file = k->name + "." + chip + ".ptx";
            SmallString<256> path(outDir);
            llvm::sys::path::append(path, file);
            std::error_code ec;
            llvm::raw_fd_ostream os(path, ec);
            if (ec)
              return fail("cannot write " + path + ": " + ec.message());
            os << k->ptx;
            manifest += mlir::attn::manifestLine(*k, file);
          }
  SmallString<256> mpath(outDir);
  llvm::sys::path::append(mpath, "manifest.txt");
  std::error_code ec;
  llvm::raw_fd_ostream os(mpath, ec);
  if (ec)
    return fail("cannot write " + mpath + ": " + ec.message());
  os << manifest;
  llvm::outs() << "attn-bundle: wrote " << mpath << "\n";
  return 0;
}
