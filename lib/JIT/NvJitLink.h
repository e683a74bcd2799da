//===- NvJitLink.h - PTX to SASS in process ---------------------*- C++ -*-===//
//
// Internal to libattn_jit. nvJitLink (the CUDA toolkit's in-process linker
// and PTX assembler) is opened with dlopen, like libcuda: a program that
// uses libattn_jit starts without it and falls back to the driver's PTX JIT.
// It needs no GPU, so the PTX -> SASS step is tested on any machine that
// has the toolkit.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_JIT_NVJITLINK_H
#define ATTN_LIB_JIT_NVJITLINK_H

#include "attn/runtime/Status.h"

#include <memory>
#include <string>

namespace attn::jit {

class NvJitLink {
public:
  /// Opens `library` (empty: the search of JitOptions::nvJitLinkLibrary).
  /// NoDriver-like failures (library missing, symbols missing) come back as
  /// Unsupported with the paths tried.
  static Status open(const std::string &library,
                     std::unique_ptr<NvJitLink> &out);
  ~NvJitLink();
  /// Assembles `ptx` for `arch` ("sm_90a", "sm_80", ...) at -O3.
  /// Thread-safe (each call has its own nvJitLink handle).
  Status assemble(const std::string &ptx, const std::string &arch,
                  std::string &cubin) const;
  /// "nvJitLink 13.0 (/usr/local/cuda/lib64/libnvJitLink.so.13)".
  const std::string &describe() const { return description; }

private:
  struct Api;
  NvJitLink() = default;
  std::unique_ptr<Api> api;
  void *handle = nullptr;
  std::string description;
};

} // namespace attn::jit

#endif // ATTN_LIB_JIT_NVJITLINK_H
