//===- Jit.h - libattn_jit: compile what the bundle lacks -------*- C++ -*-===//
//
// libattn_jit compiles, in process and for the GPU that is present, the
// kernels a runtime's bundle does not hold, and keeps them in a disk cache:
//
//   std::unique_ptr<attn::Runtime> rt;
//   attn::jit::JitOptions jit;              // cache: $ATTN_CACHE_DIR, else
//                                           // $XDG_CACHE_HOME/attn, else
//                                           // ~/.cache/attn
//   if (attn::Status s = attn::jit::createRuntime({}, jit, rt); !s.ok()) ...
//   attn::ForwardProblem p;                 // head dim 80: not bundled
//   p.headDim = p.headDimV = 80;
//   rt->forward(p, q, k, v, o, nullptr, stream);   // compiles once, then
//                                                  // cached in memory and
//                                                  // on disk
//
// A request goes: the disk cache (key: SHA-256 of the problem's canonical
// attn IR, the chip, the compiler's version and the code-generation options)
// -> on a miss, the attn pipeline to PTX (the same passes as attn-opt
// --attn-codegen; one MLIR context per compiler, reused) -> PTX to SASS with
// nvJitLink from the CUDA toolkit (loaded with dlopen, like libcuda; if it
// is missing the PTX goes to the driver's JIT instead, with a warning) ->
// the cache (written atomically) -> the runtime loads the image.
//
// This header needs no MLIR: programs include it and link attn::attn_jit.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_JIT_JIT_H
#define ATTN_JIT_JIT_H

#include "attn/runtime/KernelCompiler.h"
#include "attn/runtime/Runtime.h"

#include <functional>
#include <memory>
#include <string>

namespace attn::jit {

enum class CacheMode {
  ReadWrite, ///< look up, and store what was compiled
  ReadOnly,  ///< look up only (a shared, pre-filled cache)
  Off,       ///< always compile
};

struct JitOptions {
  /// The cache directory; empty: $ATTN_CACHE_DIR, else $XDG_CACHE_HOME/attn,
  /// else $HOME/.cache/attn.
  std::string cacheDir;
  CacheMode cache = CacheMode::ReadWrite;
  /// PTX to SASS in process with nvJitLink (true), or leave the PTX to the
  /// driver's JIT when the kernel is loaded (false; also what happens, with
  /// a warning, when nvJitLink cannot be loaded).
  bool useNvJitLink = true;
  /// The nvJitLink library to dlopen; empty: $ATTN_NVJITLINK, else
  /// libnvJitLink.so.13 on the loader's path, else under $CUDA_HOME,
  /// $CUDA_PATH and /usr/local/cuda (lib64).
  std::string nvJitLinkLibrary;
  /// Receives each warning (a corrupt cache entry rebuilt, an unwritable
  /// cache, no nvJitLink); null: printed to stderr as
  /// "attn-jit: warning: ...".
  std::function<void(const std::string &)> onWarning;
};

/// A compiler for Runtime (RuntimeOptions::compiler). Fails only for bad
/// options; nvJitLink and the cache directory are looked at on first use.
Status createCompiler(const JitOptions &options,
                      std::shared_ptr<KernelCompiler> &out);

/// Runtime::create with a compiler from `jit`.
Status createRuntime(const RuntimeOptions &options, const JitOptions &jit,
                     std::unique_ptr<Runtime> &out);

/// The version part of every cache key: attn's version, a hash of the
/// compiler's own code (its libraries as built) and LLVM's version.
const std::string &compilerVersion();

/// The cache directory `options` resolves to (see JitOptions::cacheDir).
std::string cacheDirectory(const JitOptions &options);

} // namespace attn::jit

#endif // ATTN_JIT_JIT_H
