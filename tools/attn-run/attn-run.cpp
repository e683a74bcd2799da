//===- attn-run.cpp - compile and run one attention problem -----*- C++ -*-===//
//
// Compiles an attn.attention (built from the command line, or read from a
// .mlir file) for the CPU through the attn pipeline and MLIR's
// ExecutionEngine, runs it on fresh random inputs, and with --check compares
// the output and the log-sum-exp against a float64 reference.
//
//   attn-run --batch 2 --heads 8 --kv-heads 2 --seq-q 130 --seq-k 1000 \
//            --head-dim 128 --dtype bf16 --causal --check
//   attn-run examples/attention.mlir --batch 1 --heads 4 --seq-q 512 --check
//
// Exit status: 0 on success (and a passing check), 1 on any error or a
// failing check.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"
#include "attn/runtime/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::attn; // the runtime's host helpers (no MLIR)

static cl::OptionCategory category("attn-run options");
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[input .mlir file]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<int64_t> optBatch("batch", cl::desc("Batch size B"),
                                 cl::init(1), cl::cat(category));
static cl::opt<int64_t> optHeads("heads", cl::desc("Query heads Hq"),
                                 cl::init(1), cl::cat(category));
static cl::opt<int64_t>
    optKVHeads("kv-heads", cl::desc("Key/value heads Hkv (default: Hq)"),
               cl::init(0), cl::cat(category));
static cl::opt<int64_t> optSeqQ("seq-q", cl::desc("Query length Nq"),
                                cl::init(128), cl::cat(category));
static cl::opt<int64_t> optSeqK("seq-k",
                                cl::desc("Key/value length Nk (default: Nq)"),
                                cl::init(0), cl::cat(category));
static cl::opt<int64_t> optHeadDim("head-dim", cl::desc("Head dim D"),
                                   cl::init(64), cl::cat(category));
static cl::opt<int64_t>
    optHeadDimV("head-dim-v", cl::desc("Value head dim Dv (default: D)"),
                cl::init(0), cl::cat(category));
static cl::opt<std::string> optDType("dtype", cl::desc("f32, f16 or bf16"),
                                     cl::init("f32"), cl::cat(category));
static cl::opt<bool> optCausal("causal",
                               cl::desc("Causal mask (bottom-right aligned)"),
                               cl::init(false), cl::cat(category));
static cl::opt<double> optScale("scale",
                                cl::desc("Softmax scale (default 1/sqrt(D))"),
                                cl::init(0.0), cl::cat(category));
static cl::opt<bool> optLse("lse", cl::desc("Also compute the log-sum-exp"),
                            cl::init(true), cl::cat(category));
static cl::opt<uint64_t>
    optSeed("seed", cl::desc("Random seed (default: a fresh one each run)"),
            cl::init(0), cl::cat(category));
static cl::opt<std::string> optTarget("target", cl::desc("cpu or gpu"),
                                      cl::init("cpu"), cl::cat(category));
static cl::opt<bool> optCheck("check",
                              cl::desc("Compare with a float64 reference"),
                              cl::init(false), cl::cat(category));
static cl::opt<int64_t> optBlockQ("block-q",
                                  cl::desc("Query block rows (0: derive)"),
                                  cl::init(0), cl::cat(category));
static cl::opt<int64_t> optBlockKV("block-kv",
                                   cl::desc("Key/value block rows (0: derive)"),
                                   cl::init(0), cl::cat(category));
static cl::opt<bool>
    optNoFuse("no-fuse",
              cl::desc("Run the naive three-pass tiled softmax (no fusion)"),
              cl::init(false), cl::cat(category));
static cl::opt<bool> optPrintIR("print-ir",
                                cl::desc("Print the module before lowering"),
                                cl::init(false), cl::cat(category));

namespace {

/// A memref descriptor as the C interface passes it.
template <int N> struct MemRefDesc {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

template <int N>
MemRefDesc<N> describe(void *data, std::array<int64_t, N> shape) {
  MemRefDesc<N> d{data, data, 0, {}, {}};
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    d.sizes[i] = shape[i];
    d.strides[i] = stride;
    stride *= shape[i];
  }
  return d;
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "attn-run: error: " << msg << "\n";
  return 1;
}

Type elementType(MLIRContext &ctx, rt::DType t) {
  switch (t) {
  case rt::DType::F16:
    return Float16Type::get(&ctx);
  case rt::DType::BF16:
    return BFloat16Type::get(&ctx);
  default:
    return Float32Type::get(&ctx);
  }
}

/// Builds `func.func @attention(q, k, v, o[, lse])` holding one
/// attn.attention for the command-line problem.
OwningOpRef<ModuleOp> buildModule(MLIRContext &ctx, const rt::Problem &p) {
  OpBuilder b(&ctx);
  Location loc = FileLineColLoc::get(&ctx, "<command line>", 1, 1);
  auto module = ModuleOp::create(loc);
  Type et = elementType(ctx, p.dtype);
  int64_t dyn = ShapedType::kDynamic;
  auto qType = MemRefType::get({dyn, dyn, dyn, p.headDim}, et);
  auto vType = MemRefType::get({dyn, dyn, dyn, p.headDimV}, et);
  SmallVector<Type> args = {qType, qType, vType, vType};
  if (optLse)
    args.push_back(MemRefType::get({dyn, dyn, dyn}, b.getF32Type()));
  b.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(b, loc, "attention",
                                 b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto op = mlir::attn::AttentionOp::create(
      b, loc, entry->getArgument(0), entry->getArgument(1),
      entry->getArgument(2), entry->getArgument(3),
      optLse ? entry->getArgument(4) : Value(), /*scale=*/FloatAttr(),
      /*causal=*/UnitAttr(), /*block_q=*/IntegerAttr(),
      /*block_kv=*/IntegerAttr(), /*target=*/mlir::attn::TargetAttr());
  if (p.causal)
    op.setCausal(true);
  if (optScale != 0)
    op.setScaleAttr(b.getF32FloatAttr(static_cast<float>(optScale)));
  func::ReturnOp::create(b, loc);
  return module;
}

/// Finds the function to run in a parsed module: one whose arguments are
/// exactly the operands (q, k, v, o[, lse]) of the attn.attention it holds.
LogicalResult findEntry(ModuleOp module, func::FuncOp &fn,
                        mlir::attn::AttentionOp &op) {
  SmallVector<mlir::attn::AttentionOp> ops;
  module.walk([&](mlir::attn::AttentionOp a) { ops.push_back(a); });
  if (ops.size() != 1)
    return module.emitError() << "attn-run needs exactly one attn.attention, "
                                 "found "
                              << ops.size();
  op = ops.front();
  fn = op->getParentOfType<func::FuncOp>();
  SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue(),
                                 op.getOutput()};
  if (op.getLse())
    operands.push_back(op.getLse());
  if (!fn || fn.getNumArguments() != operands.size() ||
      fn.getNumResults() != 0)
    return op.emitError() << "unsupported: attn-run runs a function whose "
                             "arguments are exactly (q, k, v, o[, lse])";
  for (auto [i, v] : llvm::enumerate(operands))
    if (v != fn.getArgument(i))
      return op.emitError() << "unsupported: function argument " << i
                            << " must be operand " << i
                            << " of attn.attention";
  return success();
}

/// Fills `p` from the op's static facts and the command line; a dimension
/// that is static in the IR must agree with the command line if given.
LogicalResult problemFromOp(mlir::attn::AttentionOp op, rt::Problem &p) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto k = cast<MemRefType>(op.getKey().getType());
  Type et = op.getElementType();
  p.dtype = et.isF16() ? rt::DType::F16
                       : et.isBF16() ? rt::DType::BF16 : rt::DType::F32;
  if (optDType.getNumOccurrences() && optDType != rt::dtypeName(p.dtype))
    return op.emitError() << "--dtype " << optDType
                          << " disagrees with the IR's element type " << et;
  p.headDim = op.getHeadDim();
  p.headDimV = op.getValueHeadDim();
  p.causal = op.getCausal();
  p.scale = op.getScaleValue();
  struct Dim {
    const char *flag;
    cl::opt<int64_t> &opt;
    int64_t irDim;
    int64_t *dst;
  } dims[] = {{"batch", optBatch, q.getDimSize(0), &p.batch},
              {"heads", optHeads, q.getDimSize(1), &p.headsQ},
              {"kv-heads", optKVHeads, k.getDimSize(1), &p.headsKV},
              {"seq-q", optSeqQ, q.getDimSize(2), &p.seqQ},
              {"seq-k", optSeqK, k.getDimSize(2), &p.seqK}};
  for (Dim &d : dims) {
    bool given = d.opt.getNumOccurrences() > 0;
    if (!ShapedType::isDynamic(d.irDim)) {
      if (given && d.opt != d.irDim)
        return op.emitError() << "--" << d.flag << " " << d.opt
                              << " disagrees with the IR's static size "
                              << d.irDim;
      *d.dst = d.irDim;
    } else if (given || d.opt != 0) {
      *d.dst = d.opt;
    }
  }
  // Defaults that follow other flags.
  if (ShapedType::isDynamic(k.getDimSize(1)) && !optKVHeads.getNumOccurrences())
    p.headsKV = p.headsQ;
  if (ShapedType::isDynamic(k.getDimSize(2)) && !optSeqK.getNumOccurrences())
    p.seqK = p.seqQ;
  return success();
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attn-run: compile and run one attention problem, optionally checked "
      "against a float64 reference\n");

  if (optTarget == "gpu")
    return fail("unsupported: --target gpu needs the GPU code generator and "
                "CUDA runtime, which this build does not have yet; use "
                "--target cpu");
  if (optTarget != "cpu")
    return fail("unknown --target '" + optTarget + "' (expected cpu or gpu)");

  DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  rt::Problem p;
  OwningOpRef<ModuleOp> module;
  std::string entryName = "attention";
  if (inputFile.empty()) {
    if (!rt::parseDType(optDType, p.dtype))
      return fail("unknown --dtype '" + optDType +
                  "' (expected f32, f16 or bf16)");
    p.batch = optBatch;
    p.headsQ = optHeads;
    p.headsKV = optKVHeads.getNumOccurrences() ? int64_t(optKVHeads)
                                               : int64_t(optHeads);
    p.seqQ = optSeqQ;
    p.seqK = optSeqK.getNumOccurrences() ? int64_t(optSeqK) : int64_t(optSeqQ);
    p.headDim = optHeadDim;
    p.headDimV = optHeadDimV.getNumOccurrences() ? int64_t(optHeadDimV)
                                                 : int64_t(optHeadDim);
    p.causal = optCausal;
    p.scale = optScale;
    if (std::string why = p.validate(); !why.empty())
      return fail(why);
    module = buildModule(ctx, p);
    if (failed(mlir::verify(module->getOperation())))
      return fail("the problem does not form a valid attn.attention");
  } else {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
    module = parseSourceFile<ModuleOp>(inputFile, sourceMgr,
                                       ParserConfig(&ctx));
    if (!module)
      return 1; // the parser reported where
    func::FuncOp fn;
    mlir::attn::AttentionOp op;
    if (failed(findEntry(*module, fn, op)) || failed(problemFromOp(op, p)))
      return 1;
    if (optCausal.getNumOccurrences() && optCausal != p.causal)
      return fail("--causal disagrees with the IR");
    if (std::string why = p.validate(); !why.empty())
      return fail(why);
    entryName = fn.getSymName().str();
    optLse.setValue(static_cast<bool>(op.getLse()));
  }

  // Expose the C interface (_mlir_ciface_<name>) for the JIT call.
  module->walk([&](func::FuncOp fn) {
    if (fn.getSymName() == entryName)
      fn->setAttr("llvm.emit_c_interface", UnitAttr::get(&ctx));
  });
  if (optPrintIR)
    module->print(llvm::outs());

  llvm::outs() << "attn-run: target=cpu dtype=" << rt::dtypeName(p.dtype)
               << " B=" << p.batch << " Hq=" << p.headsQ
               << " Hkv=" << p.headsKV << " Nq=" << p.seqQ
               << " Nk=" << p.seqK << " D=" << p.headDim
               << " Dv=" << p.headDimV << " causal=" << p.causal
               << " scale=" << p.effectiveScale()
               << (optNoFuse ? " (naive three-pass softmax)" : "") << "\n";

  // Compile: attn pipeline to the LLVM dialect, then LLVM at O3.
  auto t0 = std::chrono::steady_clock::now();
  {
    PassManager pm(&ctx);
    mlir::attn::TilingPipelineOptions opts;
    opts.target = "cpu";
    opts.blockQ = optBlockQ;
    opts.blockKV = optBlockKV;
    opts.fuse = !optNoFuse;
    mlir::attn::buildCPUPipeline(pm, opts);
    if (failed(pm.run(*module)))
      return fail("compilation failed");
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return fail("cannot detect the host: " +
                llvm::toString(tmBuilder.takeError()));
  tmBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return fail("cannot create a target machine: " +
                llvm::toString(tm.takeError()));
  // ExecutionEngineOptions holds a function_ref: keep the callee alive.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(3, 0, tm->get());
  ExecutionEngineOptions eo;
  eo.transformer = optimize;
  eo.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // memrefCopy and, on CPUs without native bf16, __truncsfbf2.
  std::string libDir = ATTN_MLIR_LIB_DIR;
  std::string runnerUtils = libDir + "/libmlir_c_runner_utils.so";
  std::string f16Utils = libDir + "/libmlir_float16_utils.so";
  SmallVector<StringRef> libs = {f16Utils, runnerUtils};
  eo.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*module, eo);
  if (!engine)
    return fail("JIT failed: " + llvm::toString(engine.takeError()));
  std::string symbol = "_mlir_ciface_" + entryName;
  if (auto fn = (*engine)->lookupPacked(symbol); !fn)
    return fail("JIT failed: " + llvm::toString(fn.takeError()));
  double compileMs = msSince(t0);

  // Fresh random inputs (N(0,1), rounded to the dtype); poisoned outputs.
  uint64_t seed = optSeed.getNumOccurrences() ? uint64_t(optSeed)
                                              : std::random_device{}();
  std::vector<double> qv, kv, vv;
  std::vector<uint8_t> qs, ks, vs, os, lses;
  rt::fillRandom(p.dtype, seed, p.numQ(), qv, qs);
  rt::fillRandom(p.dtype, seed + 1, p.numK(), kv, ks);
  rt::fillRandom(p.dtype, seed + 2, p.numV(), vv, vs);
  rt::fillNaN(p.dtype, p.numO(), os);
  rt::fillNaN(rt::DType::F32, p.numLse(), lses);

  auto qd = describe<4>(qs.data(), {p.batch, p.headsQ, p.seqQ, p.headDim});
  auto kd = describe<4>(ks.data(), {p.batch, p.headsKV, p.seqK, p.headDim});
  auto vd = describe<4>(vs.data(), {p.batch, p.headsKV, p.seqK, p.headDimV});
  auto od = describe<4>(os.data(), {p.batch, p.headsQ, p.seqQ, p.headDimV});
  auto ld = describe<3>(lses.data(), {p.batch, p.headsQ, p.seqQ});
  void *qp = &qd, *kp = &kd, *vp = &vd, *op = &od, *lp = &ld;
  SmallVector<void *> args = {&qp, &kp, &vp, &op};
  if (optLse)
    args.push_back(&lp);

  auto t1 = std::chrono::steady_clock::now();
  if (llvm::Error err = (*engine)->invokePacked(symbol, args))
    return fail("run failed: " + llvm::toString(std::move(err)));
  double runMs = msSince(t1);
  double flops = 4.0 * p.batch * p.headsQ * p.seqQ * p.seqK *
                 double(p.headDim + p.headDimV) / 2.0 *
                 (p.causal ? 0.5 : 1.0);
  llvm::outs() << llvm::format("  seed=%llu compile=%.1f ms run=%.2f ms "
                               "(%.2f GFLOP/s)\n",
                               (unsigned long long)seed, compileMs, runMs,
                               flops / runMs * 1e-6);
  if (!optCheck)
    return 0;

  std::vector<double> refO, refLse;
  rt::referenceAttention(p, qv, kv, vv, refO, refLse);
  rt::ErrorStats eo2 =
      rt::compare(rt::decode(p.dtype, os.data(), p.numO()), refO);
  double tol = rt::tolerance(p.dtype);
  bool ok = eo2.nonFinite == 0 && eo2.relative <= tol;
  llvm::outs() << llvm::format("  check O:   max_abs=%.3e rel=%.3e "
                               "non_finite=%zu (tolerance rel %.0e)\n",
                               eo2.maxAbs, eo2.relative, eo2.nonFinite, tol);
  if (optLse) {
    rt::ErrorStats el = rt::compare(
        rt::decode(rt::DType::F32, lses.data(), p.numLse()), refLse);
    // The LSE is computed in f32 whatever the inputs: hold it to the f32
    // bound scaled by the score magnitude, and to the dtype's bound.
    bool lseOk = el.nonFinite == 0 && el.relative <= std::max(tol, 1e-5);
    llvm::outs() << llvm::format("  check LSE: max_abs=%.3e rel=%.3e "
                                 "non_finite=%zu\n",
                                 el.maxAbs, el.relative, el.nonFinite);
    ok = ok && lseOk;
  }
  llvm::outs() << (ok ? "  PASS\n" : "  FAIL\n");
  return ok ? 0 : 1;
}
