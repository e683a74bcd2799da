//===- attn-fuzz.cpp - libFuzzer target over attn-opt's stages --*- C++ -*-===//
//
// Feeds arbitrary bytes to what attn-opt does with a file: parse, verify,
// then one of the attn passes or pipelines. The first byte picks the stage
// (byte % number of stages), the rest is the MLIR text. Any input may be
// rejected with diagnostics; what must never happen is a crash, an abort,
// a failed assertion, a sanitizer report or a hang (libFuzzer's -timeout).
//
// Built only with clang and -DATTN_ENABLE_FUZZER=ON
// (tools/scripts/hardening.sh fuzz); tools/scripts/hardening.sh builds a seed
// corpus from test/'s inputs.
//
//===----------------------------------------------------------------------===//
#include "attn/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The stages, as textual pipelines anchored on the module; the empty one is
/// parse + verify only. Index = first input byte % count.
const char *const kStages[] = {
    "",
    "attn-tile-attention",
    "attn-tile-attention,attn-fuse-online-softmax",
    "attn-fuse-online-softmax",
    "attn-tile-pipeline",
    "attn-cpu-pipeline",
    "attn-select-gpu-blocks",
    "attn-assign-layouts",
    "attn-defer-row-sums",
    "attn-tile-attention,attn-fuse-online-softmax,attn-defer-row-sums",
    "attn-pipeline-kv-loop",
    "convert-attn-gpu-to-nvvm",
    "attn-assign-layouts,attn-pipeline-kv-loop,convert-attn-gpu-to-nvvm",
    "convert-attn-to-linalg",
    // One stage, split over two lines (the parentheses say so to clang).
    ("attn-tile-pipeline{target=sm_80},attn-select-gpu-blocks,"
     "attn-assign-layouts,attn-pipeline-kv-loop,convert-attn-gpu-to-nvvm"),
    "attn-codegen{chip=sm_80}",
    "attn-codegen{chip=sm_90a}",
};
constexpr size_t kNumStages = sizeof(kStages) / sizeof(kStages[0]);

DialectRegistry *registry;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerAllPasses();
  attn::registerAllAttnPasses();
  registry = new DialectRegistry();
  attn::registerAttnDialects(*registry);
  // Every stage must parse: a typo here would make the fuzzer test nothing.
  MLIRContext ctx(*registry);
  for (const char *stage : kStages) {
    if (!*stage)
      continue;
    PassManager pm(&ctx);
    std::string text = std::string("builtin.module(") + stage + ")";
    if (failed(parsePassPipeline(text, pm, llvm::errs()))) {
      std::fprintf(stderr, "attn-fuzz: bad stage pipeline '%s'\n", stage);
      std::abort();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *stage = kStages[data[0] % kNumStages];
  // A copy: MLIR's lexer reads up to the buffer's terminating NUL, which
  // files read by attn-opt have and libFuzzer's data does not.
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);

  MLIRContext ctx(*registry);
  // Threads would make a crash's stack and the run's speed depend on the
  // scheduler; the fuzzer wants neither.
  ctx.disableMultithreading();
  // Diagnostics are the expected outcome of most inputs: swallow them
  // (ATTN_FUZZ_VERBOSE=1 prints them, to see what an input reaches).
  static const bool verbose = std::getenv("ATTN_FUZZ_VERBOSE") != nullptr;
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &d) {
    if (verbose)
      llvm::errs() << d.getLocation() << ": " << d << "\n";
    return success();
  });

  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module) {
    if (verbose)
      llvm::errs() << "attn-fuzz: the input does not parse\n";
    return 0;
  }
  if (!*stage)
    return 0;
  PassManager pm(&ctx);
  std::string pipeline = std::string("builtin.module(") + stage + ")";
  if (failed(parsePassPipeline(pipeline, pm, llvm::nulls())))
    std::abort();
  LogicalResult result = pm.run(*module);
  if (verbose)
    llvm::errs() << "attn-fuzz: stage '" << stage << "': "
                 << (succeeded(result) ? "ok" : "failed") << "\n";
  return 0;
}
