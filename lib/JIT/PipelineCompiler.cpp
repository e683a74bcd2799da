//===- PipelineCompiler.cpp - the attn pipeline, in process -----*- C++ -*-===//
#include "PipelineCompiler.h"

#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>

using namespace mlir;

namespace attn::jit {
namespace {

/// Diagnostics of the compile running on this thread. The context is shared
/// by every thread, so one handler serves them all and files each message
/// under the thread that raised it.
thread_local std::string *threadDiagnostics = nullptr;

/// The attn.attention of `r`, as the runtime launches it: Q, K, V, O (and
/// LSE) with run-time sizes and strides (the runtime takes any layout whose
/// head dim is contiguous; an identity layout would let the compiler fold
/// the row stride to D), and the scale as a run-time argument so that one
/// kernel serves every scale. The kernel is "<function name>_kernel"
/// (KernelABI.h, the memref ABI).
OwningOpRef<ModuleOp> buildProblem(MLIRContext &ctx, const KernelRequest &r) {
  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Type et = r.dtype == DType::F16 ? Type(b.getF16Type()) : b.getBF16Type();
  int64_t dyn = ShapedType::kDynamic;
  auto strided = StridedLayoutAttr::get(&ctx, dyn, {dyn, dyn, dyn, 1});
  auto qk = MemRefType::get({dyn, dyn, dyn, r.headDim}, et, strided);
  auto vo = MemRefType::get({dyn, dyn, dyn, r.headDimV}, et, strided);
  auto lseT = MemRefType::get({dyn, dyn, dyn}, b.getF32Type());
  SmallVector<Type> args = {qk, qk, vo, vo};
  if (r.withLse)
    args.push_back(lseT);
  args.push_back(b.getF32Type());
  std::string name = "attn_jit_" + std::string(dtypeName(r.dtype)) + "_d" +
                     std::to_string(r.headDim);
  if (r.headDimV != r.headDim)
    name += "v" + std::to_string(r.headDimV);
  name += r.causal ? "_causal" : "";
  name += r.withLse ? "" : "_nolse";
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto op = mlir::attn::AttentionOp::create(
      b, loc, entry->getArgument(0), entry->getArgument(1),
      entry->getArgument(2), entry->getArgument(3),
      r.withLse ? entry->getArgument(4) : Value(),
      /*dynamic_scale=*/entry->getArguments().back(), FloatAttr(), UnitAttr(),
      IntegerAttr(), IntegerAttr(), mlir::attn::TargetAttr(),
      /*split_kv=*/UnitAttr());
  op.setCausal(r.causal);
  func::ReturnOp::create(b, loc);
  return module;
}

} // namespace

struct PipelineCompiler::Impl {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
  std::once_flag loaded;

  /// A second, small context for canonicalIR: a cache hit in a new process
  /// must not pay for loading every dialect of the pipeline (~25 ms); this
  /// one holds attn's (and what it depends on), func and memref. One thread
  /// at a time (keyMu): printing a one-op module takes microseconds.
  std::mutex keyMu;
  std::unique_ptr<MLIRContext> keyCtx;
  MLIRContext &keyContext() {
    if (!keyCtx) {
      DialectRegistry r;
      r.insert<mlir::attn::AttnDialect, func::FuncDialect,
               memref::MemRefDialect>();
      keyCtx =
          std::make_unique<MLIRContext>(r, MLIRContext::Threading::DISABLED);
      keyCtx->loadAllAvailableDialects();
    }
    return *keyCtx;
  }

  /// The context, with every dialect the pipeline can create loaded up
  /// front: a pass that loads a dialect while another thread's pass manager
  /// runs would race (MLIRContext asserts against it), so none may load
  /// later. Multithreading stays enabled: it is what makes the context's
  /// uniquing of types and attributes safe for concurrent compiles.
  MLIRContext &context() {
    std::call_once(loaded, [&] {
      mlir::attn::registerAttnDialects(registry);
      ctx = std::make_unique<MLIRContext>(registry);
      ctx->loadAllAvailableDialects();
      ctx->getDiagEngine().registerHandler([](Diagnostic &diag) {
        if (!threadDiagnostics)
          return failure(); // to the default handler (stderr)
        llvm::raw_string_ostream os(*threadDiagnostics);
        os << diag.getLocation() << ": " << diag << "\n";
        for (const Diagnostic &note : diag.getNotes())
          os << note.getLocation() << ": note: " << note << "\n";
        return success();
      });
    });
    return *ctx;
  }
};

PipelineCompiler::PipelineCompiler() : impl(std::make_unique<Impl>()) {}
PipelineCompiler::~PipelineCompiler() = default;

Status PipelineCompiler::canonicalIR(const KernelRequest &request,
                                     std::string &out) {
  std::lock_guard<std::mutex> lock(impl->keyMu);
  OwningOpRef<ModuleOp> module = buildProblem(impl->keyContext(), request);
  out.clear();
  llvm::raw_string_ostream os(out);
  module->print(os, OpPrintingFlags().enableDebugInfo(false));
  return Status::success();
}

std::string PipelineCompiler::optionsKey(const std::string &chip) {
  mlir::attn::CodegenPipelineOptions opts;
  opts.chip = chip;
  std::string text;
  llvm::raw_string_ostream os(text);
  opts.print(os);
  return text;
}

Status PipelineCompiler::compile(const KernelRequest &request,
                                 const std::string &chip, PtxKernel &out) {
  if (request.dtype != DType::F16 && request.dtype != DType::BF16)
    return Status::error(StatusCode::Unsupported,
                         std::string("unsupported: dtype ") +
                             dtypeName(request.dtype) +
                             " on the GPU (f16 and bf16 only)");
  auto t0 = std::chrono::steady_clock::now();
  MLIRContext &ctx = impl->context();
  OwningOpRef<ModuleOp> module = buildProblem(ctx, request);
  out.buildMs = msSince(t0);

  std::string diagnostics;
  threadDiagnostics = &diagnostics;
  mlir::attn::CodegenPipelineOptions opts;
  opts.chip = chip;
  mlir::attn::CompileTimings timings;
  FailureOr<mlir::attn::CompiledKernel> k =
      mlir::attn::compileGPUKernel(*module, opts, &timings);
  threadDiagnostics = nullptr;
  out.passesMs = timings.passesMs;
  out.llvmMs = timings.llvmMs;
  if (failed(k)) {
    // What the code generator refuses is reported with "unsupported" in its
    // diagnostic; anything else is a compiler bug.
    bool unsupported = diagnostics.find("unsupported") != std::string::npos;
    return Status::error(
        unsupported ? StatusCode::Unsupported : StatusCode::Internal,
        "attn-jit cannot compile " + request.key() + ":\n" + diagnostics);
  }
  // The kernel as the runtime reads it: the compiler's manifest line
  // through the runtime's parser (Bundle.h, the format's one writer and
  // reader).
  Manifest m;
  Status parsed =
      parseManifest(mlir::attn::manifestLine(*k, "jit"), "attn-jit", m);
  if (!parsed.ok() || m.kernels.size() != 1)
    return Status::error(StatusCode::Internal,
                         "attn-jit: the compiler's manifest line for " +
                             request.key() +
                             " does not parse: " + parsed.message());
  out.entry = std::move(m.kernels[0]);
  const KernelEntry &e = out.entry;
  // What the kernel says it computes must be what was asked for: the
  // runtime launches it by these fields.
  if (e.dtype != request.dtype || e.headDim != request.headDim ||
      e.headDimV != request.headDimV || e.causal != request.causal ||
      e.abi != KernelABI::Memref || e.lse != request.withLse)
    return Status::error(StatusCode::Internal,
                         "attn-jit: the kernel compiled for " + request.key() +
                             " describes itself as " + formatManifestLine(e));
  out.ptx = std::move(k->ptx);
  return Status::success();
}

} // namespace attn::jit
