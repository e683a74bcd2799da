//===- KernelCompiler.cpp - kernels the bundle lacks --------------*- C++
//-*-===//
#include "attn/runtime/KernelCompiler.h"

namespace attn {

KernelCompiler::~KernelCompiler() = default;

std::string KernelRequest::chip() const {
  std::string chip = "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
  // wgmma and TMA exist only in the architecture-specific target of 9.0.
  if (ccMajor == 9 && ccMinor == 0)
    chip += "a";
  return chip;
}

std::string KernelRequest::key() const {
  return std::string("dtype=") + dtypeName(dtype) +
         " head_dim=" + std::to_string(headDim) +
         " head_dim_v=" + std::to_string(headDimV) +
         " causal=" + (causal ? "1" : "0") + " lse=" + (withLse ? "1" : "0") +
         " chip=" + chip() +
         (program == Program::Attention
              ? std::string()
              : std::string(" program=") + programName(program)) +
         (kv == KVLayout::Dense ? std::string()
                                : std::string(" kv=") + kvLayoutName(kv)) +
         (pageSize > 0 ? " page=" + std::to_string(pageSize) : std::string());
}

} // namespace attn
