//===- Chips.h - the GPUs attn generates code for -------------*- C++ -*-===//
//
// The one list of the chips the compiler targets, with what each rule of
// the compiler, the bundle and the runtime asks of a chip. Every chip
// check and every "expected ..." message derives from kChips; a new chip
// is a new row. Plain C++17, header only: the compiler, the MLIR-free
// runtime and the tools include it.
//
// Shared memory per block is each architecture's opt-in maximum (CUDA
// programming guide, "Technical Specifications per Compute Capability");
// the SM count is the flagship part's, a default for code compiled ahead
// of time: what runs on a device reads the device's own count.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_CHIPS_H
#define ATTN_RUNTIME_CHIPS_H

#include <string>
#include <string_view>

namespace attn {

struct ChipInfo {
  std::string_view name; ///< the compilation target: "sm_90a"
  int ccMajor, ccMinor;  ///< the compute capability it is built for
  /// Architecture-specific (sm_90a): its PTX runs on exactly this compute
  /// capability, and only it has wgmma and setmaxnreg.
  bool archSpecific;
  int smemPerBlock; ///< bytes one thread block may use (opt-in maximum)
  int numSms;       ///< multiprocessors of the flagship part
  /// Asynchronous warpgroup MMA (wgmma) and setmaxnreg: sm_90a.
  bool warpgroupMma;
  /// Bulk tensor copies (TMA, cp.async.bulk.tensor) and mbarrier
  /// transaction counts: sm_90 and later.
  bool bulkCopies;
  /// The bundle assembles SASS for it by default (attn-bundle
  /// --sass-chips): the chips whose PTX is not already served by a more
  /// specific row (sm_90 code runs as sm_90a's does, slower).
  bool bundleSass;
};

inline constexpr ChipInfo kChips[] = {
    // name     cc     arch-  smem    SMs  wgmma  TMA    SASS
    {"sm_80", 8, 0, false, 166912, 108, false, false, true},
    {"sm_86", 8, 6, false, 101376, 84, false, false, true},
    {"sm_89", 8, 9, false, 101376, 128, false, false, true},
    {"sm_90", 9, 0, false, 232448, 132, false, true, false},
    {"sm_90a", 9, 0, true, 232448, 132, true, true, true},
};

/// The chip a GPU compilation targets when none is named: the first row,
/// whose portable PTX runs on every GPU of the table.
inline constexpr std::string_view kDefaultChip = kChips[0].name;

/// The row of `name`, or null if attn does not generate code for it.
inline const ChipInfo *findChip(std::string_view name) {
  for (const ChipInfo &c : kChips)
    if (c.name == name)
      return &c;
  return nullptr;
}

/// Whether a device of compute capability ccMajor.x has grid dependency
/// control (griddepcontrol; programmatic dependent launch): sm_90 and
/// later. The compiler emits it and the runtime launches for it by this.
inline bool hasGridDependencyControl(int ccMajor) { return ccMajor >= 9; }

/// Whether a grid of `queryBlocks` programs is at least two waves of
/// `numSms` multiprocessors (0: unknown, any grid is): where a kernel tuned
/// for long sequences (a taller query block, min_seq_q=) serves. Over
/// fewer, its persistent programs leave multiprocessors idle in the last
/// wave where the shorter block's smaller programs (several an SM) spread:
/// D = 64 on an H200, 192 rows against 64, 96 and 192 query blocks -20%,
/// 344-3072 blocks +5..+10%. The runtime decides with the device's count,
/// attn-select-gpu-blocks (static shapes) with the chip table's.
inline bool fillsTwoWaves(long long queryBlocks, int numSms) {
  return numSms <= 0 || queryBlocks >= 2LL * numSms;
}

/// The chips as a message lists them: "sm_80, sm_86, sm_89, sm_90 or
/// sm_90a" (with `first` before them: "cpu, sm_80, ...").
inline std::string chipList(std::string_view first = {}) {
  std::string out(first);
  constexpr size_t n = sizeof(kChips) / sizeof(kChips[0]);
  for (size_t i = 0; i < n; ++i) {
    if (!out.empty())
      out += i + 1 == n ? " or " : ", ";
    out += kChips[i].name;
  }
  return out;
}

/// "unsupported chip 'NAME' (expected sm_80, ... or sm_90a)": the message
/// of every place that refuses a chip.
inline std::string unsupportedChipMessage(std::string_view name) {
  return "unsupported chip '" + std::string(name) + "' (expected " +
         chipList() + ")";
}

/// The chip to generate code for on a device of compute capability
/// ccMajor.ccMinor: its own row where there is one (the architecture-
/// specific one first: it has the most instructions), else the first row,
/// whose portable PTX (mma.sync, cp.async) runs on every later GPU. Null
/// for a device older than the first row.
inline const ChipInfo *codegenChipFor(int ccMajor, int ccMinor) {
  const ChipInfo *exact = nullptr;
  for (const ChipInfo &c : kChips)
    if (c.ccMajor == ccMajor && c.ccMinor == ccMinor &&
        (!exact || c.archSpecific))
      exact = &c;
  if (exact)
    return exact;
  const ChipInfo &base = kChips[0];
  bool later = ccMajor > base.ccMajor ||
               (ccMajor == base.ccMajor && ccMinor >= base.ccMinor);
  return later ? &base : nullptr;
}

} // namespace attn

#endif // ATTN_RUNTIME_CHIPS_H
