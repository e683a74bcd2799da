//===- KernelCompiler.cpp - kernels the bundle lacks ----------*- C++ -*-===//
#include "attn/runtime/KernelCompiler.h"
#include "attn/runtime/Chips.h"

namespace attn {

KernelCompiler::~KernelCompiler() = default;

std::string KernelRequest::chip() const {
  // The architecture-specific target where the chip table has one (wgmma
  // exists only in sm_90a), else the device's own sm_XY.
  for (const ChipInfo &c : kChips)
    if (c.archSpecific && c.ccMajor == ccMajor && c.ccMinor == ccMinor)
      return std::string(c.name);
  return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
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
         (pageSize > 0 ? " page=" + std::to_string(pageSize) : std::string()) +
         (windowLeft != -1 || windowRight != -1
              ? " window=" + formatWindow(windowLeft, windowRight)
              : std::string()) +
         (softcap != 0 ? " softcap=" + formatSoftcap(softcap) : std::string()) +
         (alibi ? " alibi=1" : "") +
         (bias ? std::string(" bias=") + dtypeName(biasType) : std::string()) +
         (bias && !biasBulk ? " bias_bulk=0" : "") +
         (dropout ? " dropout=1" : "") + (packHeads ? " pack_heads=1" : "");
}

} // namespace attn
