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
#include <cstdio>
#include <cstring>
#include <mutex>

using namespace mlir;

namespace attn::jit {
namespace {

/// Diagnostics of the compile running on this thread. The context is shared
/// by every thread, so one handler serves them all and files each message
/// under the thread that raised it.
thread_local std::string *threadDiagnostics = nullptr;

/// The element type of a request's dtype (f16, e4m3, f32; else bf16).
Type elementType(MLIRContext &ctx, DType t) {
  return t == DType::F16    ? Type(Float16Type::get(&ctx))
         : t == DType::E4M3 ? Type(Float8E4M3FNType::get(&ctx))
         : t == DType::F32  ? Type(Float32Type::get(&ctx))
                            : Type(BFloat16Type::get(&ctx));
}

/// The problem of `r` as the runtime launches it (Pipelines.h's
/// buildKernelProblem, the builder the bundle uses too); the kernel is
/// "<function name>_kernel" (KernelABI.h, the memref ABI).
OwningOpRef<ModuleOp> buildProblem(MLIRContext &ctx, const KernelRequest &r) {
  Type et = elementType(ctx, r.dtype);
  const bool grad = isBackwardProgram(r.program);
  std::string name = std::string("attn_jit_") +
                     (r.program == Program::SplitKV       ? "split_"
                      : r.program == Program::MergeSplits ? "merge_"
                      : grad                              ? "bwd_"
                                                          : "") +
                     dtypeName(r.dtype) + "_d" + std::to_string(r.headDim);
  if (r.headDimV != r.headDim)
    name += "v" + std::to_string(r.headDimV);
  name += r.causal ? "_causal" : "";
  name += r.withLse || grad ? "" : "_nolse";
  if (r.kv != KVLayout::Dense)
    name += std::string("_") + kvLayoutName(r.kv);
  if (r.pageSize > 0)
    name += std::to_string(r.pageSize);
  // A window's bounds, "n" for none: _w4096_0, _w4096_n.
  auto bound = [](int w) {
    return w < 0 ? std::string("n") : std::to_string(w);
  };
  if (r.windowLeft != -1 || r.windowRight != -1)
    name += "_w" + bound(r.windowLeft) + "_" + bound(r.windowRight);
  // A soft-cap by its f32 bits (a name cannot hold every spelling of a
  // float): _sc42480000 is 50.
  if (r.softcap != 0) {
    uint32_t bits;
    std::memcpy(&bits, &r.softcap, sizeof bits);
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", bits);
    name += std::string("_sc") + hex;
  }
  if (r.alibi)
    name += "_alibi";
  Type biasType;
  if (r.bias) {
    name += std::string("_bias") + dtypeName(r.biasType);
    biasType = elementType(ctx, r.biasType);
  }
  if (r.dropout)
    name += "_dropout";
  if (r.packHeads)
    name += "_gqa";
  return mlir::attn::buildKernelProblem(
      ctx, programName(r.program), et, r.headDim, r.headDimV, r.causal,
      r.withLse, kvLayoutName(r.kv), name, r.pageSize, r.windowLeft,
      r.windowRight, r.softcap, r.alibi, r.dropout, r.packHeads, biasType);
}

/// What no kernel can be: refused before a key is made or anything is built.
Status checkRequest(const KernelRequest &request) {
  if (request.dtype != DType::F16 && request.dtype != DType::BF16 &&
      request.dtype != DType::E4M3)
    return Status::error(StatusCode::Unsupported,
                         std::string("unsupported: dtype ") +
                             dtypeName(request.dtype) +
                             " on the GPU (f16, bf16 and e4m3 only)");
  // fp8 is FlashAttention-3's dense forward (the op's verifier refuses the
  // rest; the pipeline refuses chips without warpgroup products).
  if (request.dtype == DType::E4M3 &&
      (request.program != Program::Attention || request.kv != KVLayout::Dense ||
       request.windowLeft != -1 || request.windowRight != -1 ||
       request.softcap != 0))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": e4m3 (fp8) has the dense forward only (no "
                             "split-KV pair, KV cache, window or soft-cap)");
  if ((request.windowLeft != -1 || request.windowRight != -1) &&
      ((request.program != Program::Attention &&
        !isBackwardProgram(request.program)) ||
       request.kv != KVLayout::Dense))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a sliding window in a split-KV pair or over "
                             "a KV cache (not checked on a GPU yet)");
  if (request.alibi && ((request.program != Program::Attention &&
                         !isBackwardProgram(request.program)) ||
                        request.kv != KVLayout::Dense ||
                        request.dtype == DType::E4M3 || request.softcap != 0))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": ALiBi has the dense forward and backward only "
                             "(no split-KV pair, KV cache, fp8 or soft-cap)");
  if (request.bias &&
      (request.program != Program::Attention || request.kv != KVLayout::Dense ||
       request.dtype == DType::E4M3 || request.packHeads ||
       (request.biasType != DType::F32 && request.biasType != request.dtype)))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a score bias has the dense 16-bit forward "
                             "only (f32 or the inputs' type; no split-KV "
                             "pair, KV cache, fp8, packed heads or backward)");
  if (request.dropout &&
      ((request.program != Program::Attention &&
        !isBackwardProgram(request.program)) ||
       request.kv != KVLayout::Dense || request.dtype == DType::E4M3))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": dropout has the dense 16-bit forward and "
                             "backward only (no split-KV pair, KV cache or "
                             "fp8)");
  if (request.packHeads &&
      ((request.program != Program::Attention &&
        request.program != Program::SplitKV) ||
       request.kv == KVLayout::Varlen || request.dtype == DType::E4M3 ||
       request.alibi || request.dropout || request.windowLeft != -1 ||
       request.windowRight != -1))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": packed query heads are for the forward and "
                             "split-KV of 16-bit tensors with no window, "
                             "ALiBi or dropout, and no packed batch");
  if (request.program == Program::GradPrep ||
      request.program == Program::GradQueryOut)
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": the backward's dQ-workspace grids (grad_prep, "
                             "grad_q_out) are not compiled for the runtime "
                             "(it launches grad_q and grad_kv)");
  // The backward (either kernel of attn.attention_grad): dense, 16-bit,
  // the forward's window, soft-cap, ALiBi or dropout, reading the forward's
  // LSE.
  if (isBackwardProgram(request.program) &&
      (request.dtype == DType::E4M3 || request.kv != KVLayout::Dense ||
       !request.withLse))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": the backward is the dense problem of f16 or "
                             "bf16 tensors, from the forward's LSE (lse=1)");
  if (request.program == Program::SplitKV && !request.withLse)
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a split_kv kernel always writes its partial "
                             "LSE (lse=1)");
  if (request.program == Program::MergeSplits &&
      (request.causal || request.headDim != request.headDimV))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a merge_splits kernel has no mask and one "
                             "head dim (causal=0, head_dim = head_dim_v)");
  if (request.kv != KVLayout::Dense &&
      (request.program == Program::MergeSplits ||
       (request.kv == KVLayout::Varlen &&
        request.program != Program::Attention)))
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a merge reads no keys, and a packed batch "
                             "(kv=varlen) has only the forward");
  if (request.pageSize && request.kv != KVLayout::Paged)
    return Status::error(StatusCode::Unsupported,
                         "unsupported: " + request.key() +
                             ": a page size is for a paged cache (kv=paged)");
  return Status::success();
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
  // A request no kernel can be has no IR: refused here, before the caller
  // looks for a cache entry.
  if (Status s = checkRequest(request); !s.ok())
    return s;
  std::lock_guard<std::mutex> lock(impl->keyMu);
  OwningOpRef<ModuleOp> module = buildProblem(impl->keyContext(), request);
  if (!module)
    return Status::error(StatusCode::Internal,
                         "attn-jit: no problem for " + request.key());
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
  if (Status s = checkRequest(request); !s.ok())
    return s;
  auto t0 = std::chrono::steady_clock::now();
  MLIRContext &ctx = impl->context();
  OwningOpRef<ModuleOp> module = buildProblem(ctx, request);
  if (!module)
    return Status::error(StatusCode::Internal,
                         "attn-jit: no problem for " + request.key());
  out.buildMs = msSince(t0);

  std::string diagnostics;
  threadDiagnostics = &diagnostics;
  mlir::attn::CodegenPipelineOptions opts;
  opts.chip = chip;
  // A bias that bulk copies cannot read (rows not 16-byte aligned) is read
  // element by element.
  if (request.bias && !request.biasBulk)
    opts.stageWindows = false;
  mlir::attn::CompileTimings timings;
  // Every kernel of the problem (the backward makes two); the one of the
  // requested program is the image (its PTX module holds both).
  FailureOr<std::vector<mlir::attn::CompiledKernel>> ks =
      mlir::attn::compileGPUKernels(*module, opts, &timings);
  threadDiagnostics = nullptr;
  out.passesMs = timings.passesMs;
  out.llvmMs = timings.llvmMs;
  mlir::attn::CompiledKernel *k = nullptr;
  if (succeeded(ks))
    for (mlir::attn::CompiledKernel &c : *ks)
      if (c.program == programName(request.program))
        k = &c;
  if (succeeded(ks) && !k)
    return Status::error(StatusCode::Internal,
                         "attn-jit: no kernel of program " +
                             std::string(programName(request.program)) +
                             " in what " + request.key() + " compiled to");
  if (failed(ks)) {
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
      e.windowLeft != request.windowLeft ||
      e.windowRight != request.windowRight || e.softcap != request.softcap ||
      e.lse != request.withLse || e.program != request.program ||
      e.packsQueryHeads() != request.packHeads ||
      (e.readsBiasInBulk() && !request.biasBulk))
    return Status::error(StatusCode::Internal,
                         "attn-jit: the kernel compiled for " + request.key() +
                             " describes itself as " + formatManifestLine(e));
  out.ptx = std::move(k->ptx);
  return Status::success();
}

} // namespace attn::jit
