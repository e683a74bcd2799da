//===- PipelineCompiler.h - the attn pipeline, in process -------*- C++ -*-===//
//
// Internal to libattn_jit: builds the attn.attention of a KernelRequest and
// runs the GPU code generator on it (attn-codegen), in one MLIR context that
// lives as long as the compiler and is shared by every thread.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_JIT_PIPELINECOMPILER_H
#define ATTN_LIB_JIT_PIPELINECOMPILER_H

#include "attn/runtime/KernelCompiler.h"

#include <chrono>
#include <memory>
#include <string>

namespace attn::jit {

/// Milliseconds since `t0` (the JIT's stage timings).
inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

struct PtxKernel {
  KernelEntry entry; ///< entry.ptx is left empty
  std::string ptx;
  double buildMs = 0, passesMs = 0, llvmMs = 0;
};

class PipelineCompiler {
public:
  PipelineCompiler();
  ~PipelineCompiler();
  /// The problem as attn IR (one func holding one attn.attention, printed
  /// without locations): the part of a cache key that says what is
  /// computed.
  Status canonicalIR(const KernelRequest &request, std::string &out);
  /// The code-generation options for `chip`, as text, for the cache key.
  static std::string optionsKey(const std::string &chip);
  /// attn-codegen for `chip`: PTX and its launch parameters. Thread-safe;
  /// compiles on different threads run in parallel.
  Status compile(const KernelRequest &request, const std::string &chip,
                 PtxKernel &out);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace attn::jit

#endif // ATTN_LIB_JIT_PIPELINECOMPILER_H
