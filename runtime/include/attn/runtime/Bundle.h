//===- Bundle.h - kernel bundles: manifest and variant choice ---*- C++ -*-===//
//
// A kernel bundle is a directory that the compiler fills ahead of time: PTX
// files, cubins (SASS, machine code for one chip each) and a manifest.txt
// that describes them, one kernel per line:
//
//   # comment
//   kernel name=attn_fwd_bf16_d128_causal
//          ptx=attn_fwd_bf16_d128_causal.sm_80.ptx
//          chip=sm_80 dtype=bf16 head_dim=128 head_dim_v=128 causal=1
//          block_m=128 block_n=64 threads=256 smem=98304 abi=memref lse=1
//          sass=sm_80:attn_fwd_bf16_d128_causal.sm_80.cubin,
//               sm_86:attn_fwd_bf16_d128_causal.sm_86.cubin
//
// (one line in the file, no spaces in the sass= list). abi= (required,
// memref: the only ABI) says how the kernel takes its parameters
// (KernelABI.h); lse= (1, the default, or 0) whether it writes the LSE;
// sass= (optional) lists the cubins assembled from this line's PTX, one per
// chip; tensor_maps= (optional) the tensor maps the kernel takes
// after its memrefs (KernelABI.h). The same kernel may appear once per chip;
// the runtime picks the variant for the GPU it finds, then loads its SASS for
// that GPU if the line has it, else JIT-compiles the PTX. Everything here is
// pure (no CUDA) so that it can be tested on any machine.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_BUNDLE_H
#define ATTN_RUNTIME_BUNDLE_H

#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Reference.h"
#include "attn/runtime/Status.h"

#include <string>
#include <vector>

namespace attn {

/// A compilation target as written in the manifest: sm_80, sm_86, sm_90a,
/// sm_100f, ...
struct Chip {
  int major = 0, minor = 0;
  /// 0: portable PTX, which the driver JIT-compiles for this or any later
  /// architecture. 'a': architecture-specific (sm_90a), runs only on exactly
  /// that compute capability. 'f': family-specific (sm_100f), runs on the
  /// same major version with an equal or higher minor.
  char variant = 0;

  std::string str() const;
  bool operator==(const Chip &o) const {
    return major == o.major && minor == o.minor && variant == o.variant;
  }
};

/// Parses "sm_XY", "sm_XYa", "sm_XYf" (X may have two digits: sm_100a).
bool parseChip(const std::string &text, Chip &out);

/// Whether code built for `chip` can run on a device of compute capability
/// ccMajor.ccMinor.
bool chipRunsOn(const Chip &chip, int ccMajor, int ccMinor);

/// Picks the variant to run on a device of compute capability
/// ccMajor.ccMinor: among the chips that run there, the highest compute
/// capability wins and, for equal ones, the most specific ('a' over 'f' over
/// portable), so an exact architecture match comes first. Returns the index
/// into `chips`, or -1 if none runs there.
int selectVariant(const std::vector<Chip> &chips, int ccMajor, int ccMinor);

/// Whether PTX written for `ptx` can be assembled into SASS for `sass`:
/// chipRunsOn(ptx, sass's compute capability), and architecture-specific
/// PTX (sm_90a) only for that same chip (plain sm_90 lacks its
/// instructions).
bool canAssemble(const Chip &ptx, const Chip &sass);

/// The PTX chip (an index into `ptx`) to assemble SASS for `sass` from: of
/// those that canAssemble it, selectVariant's choice (the highest, then the
/// most specific); -1 if none. attn-bundle pairs its cubins so.
int bestPtxFor(const std::vector<Chip> &ptx, const Chip &sass);

/// Whether a cubin built for `sass` is the one to load on a device of
/// compute capability ccMajor.ccMinor: sm_XY and sm_XYa exactly on X.Y;
/// sm_XYf (a family cubin) on X.Z for Z >= Y. Exact, although a plain sm_80
/// cubin would also run on 8.6: ptxas schedules for the chip it is given, a
/// bundle that wants 8.6 carries sm_86, and a chip without its own cubin
/// gets the PTX JIT-compiled for exactly it.
bool sassRunsOn(const Chip &sass, int ccMajor, int ccMinor);

/// One cubin of a kernel: SASS for one chip, assembled from the PTX of the
/// manifest line that lists it.
struct SassImage {
  Chip chip;
  std::string file; ///< relative to the bundle directory (or absolute)
};

/// One line of the manifest.
struct KernelEntry {
  std::string name; ///< the PTX entry point
  std::string ptx;  ///< PTX file, relative to the bundle directory
  Chip chip;
  /// sass=: cubins of this kernel, at most one per chip, each for a chip
  /// that canAssemble from `chip`. Empty: the PTX is JIT-compiled wherever
  /// the kernel runs.
  std::vector<SassImage> sass;
  DType dtype = DType::BF16;
  int headDim = 0, headDimV = 0;
  bool causal = false;
  /// window=L,R: the kernel's sliding window (attn.attention's window_left
  /// and window_right, -1 for an absent bound); absent: none. A kernel
  /// serves only problems of exactly its window.
  int windowLeft = -1, windowRight = -1;
  /// softcap=C: the kernel's scores pass through C·tanh(S / C)
  /// (attn.attention's softcap, an f32); 0 (absent): none. A kernel serves
  /// only problems of exactly its cap.
  float softcap = 0;
  /// alibi=1: the kernel adds ALiBi's bias (attn.attention's alibi) and
  /// takes the slopes (KernelABI.h); absent: none. A kernel serves only
  /// problems that agree.
  bool alibi = false;
  /// bias=T (f32, f16 or bf16): the kernel adds a score bias [1|B, 1|Hq,
  /// Nq, Nk] of type T (attn.attention's bias) and takes it (KernelABI.h);
  /// absent: none. A kernel serves only problems of the same bias type.
  bool bias = false;
  DType biasType = DType::F32;
  /// dropout=1: the kernel drops P out (attn.attention's dropout) and takes
  /// the rate (f32), Philox key (i64) and offset (i32) after the scale.
  bool dropout = false;
  /// pdl=1: the kernel waits for the grids before it on the stream before
  /// it touches global memory (griddepcontrol.wait), so the launcher may
  /// start it while they still run (programmatic stream serialization,
  /// sm_90 and later); absent: launch it after them.
  bool dependentLaunch = false;
  int blockM = 0, blockN = 0, threads = 0;
  int smem = 0; ///< dynamic shared memory in bytes
  /// How the kernel takes its parameters (KernelABI.h); required, so that
  /// a bundle of the hand-written kernels (no abi=) is refused.
  KernelABI abi = KernelABI::Memref;
  /// Whether the kernel writes the LSE (lse=, default 1). A memref-ABI
  /// kernel has an lse argument exactly when this is set.
  bool lse = true;
  /// tensor_maps=: the CUtensorMaps the kernel takes after its memref
  /// parameters, one per memref it reads with bulk copies (KernelABI.h).
  std::vector<TensorMapSpec> tensorMaps;
  /// Whether the kernel reads its score bias by bulk copies (a tensor map
  /// of its biasArgument()): it then serves only biases those can read.
  bool readsBiasInBulk() const {
    for (const TensorMapSpec &m : tensorMaps)
      if (bias && m.arg == biasArgument(lse, alibi))
        return true;
    return false;
  }
  /// program=: what the kernel computes; absent: the forward. head_dim of a
  /// merge_splits kernel is its head_dim_v.
  Program program = Program::Attention;
  /// kv=: where the keys and values live (KernelABI.h); absent: dense. A
  /// seqlens or paged kernel takes the key counts (and the block table)
  /// after its outputs.
  KVLayout kv = KVLayout::Dense;
  /// page=: a paged kernel compiled for exactly this page size (its key
  /// block shrunk to it); 0 (absent): any page size that is a multiple of
  /// block_n.
  int pageSize = 0;
  /// grid=: the launch grid the kernel describes (KernelABI.h); empty when
  /// the manifest does not say.
  LaunchGrid grid;
  /// min_seq_q= / max_seq_q=: the kernel is tuned for problems of at least
  /// / at most this many query rows (a taller or shorter query block that
  /// pays only there; correct at any length); 0 (absent): no bound. Of the
  /// kernels that differ only in them, findKernels keeps one whose range
  /// holds the problem's rows, the narrowest (largest minimum, then
  /// smallest maximum).
  int minSeqQ = 0;
  int maxSeqQ = 0;
  int line = 0; ///< line in manifest.txt, for messages

  /// Whether the kernel packs the G query heads of a key/value head into
  /// the rows of its programs (attn.attention's pack_query_heads): its grid
  /// counts group_q_blocks. It serves only problems the runtime packs so
  /// (ForwardProblem::packHeads).
  bool packsQueryHeads() const {
    for (const auto &dim : grid.dims)
      for (GridFactor f : dim)
        if (f == GridFactor::GroupQBlocks)
          return true;
    return false;
  }
};

/// `k` as one manifest line (no newline): every key parseManifest reads,
/// sass= and tensor_maps= only where `k` has them. The one writer of the
/// format for whatever holds a KernelEntry (the JIT's cache, tools, tests).
std::string formatManifestLine(const KernelEntry &k);

/// A sliding window as the manifest's window= value ("L,R", -1 for an
/// absent bound); empty for none (both -1).
std::string formatWindow(int64_t left, int64_t right);

/// A soft-cap as the manifest's softcap= value (the f32 in 9 significant
/// digits, which read back exactly); empty for none (0).
std::string formatSoftcap(float cap);

struct Manifest {
  std::string dir; ///< the bundle directory; empty for parsed text
  std::vector<KernelEntry> kernels;
  /// Keys this runtime does not know (a newer compiler may add some): they
  /// are ignored, and listed here so a tool can show them.
  std::vector<std::string> warnings;
};

/// Parses manifest text. `source` names it in messages ("dir/manifest.txt").
/// A malformed line is an error that gives its line number; the output is
/// left empty then.
Status parseManifest(const std::string &text, const std::string &source,
                     Manifest &out);

/// Reads `dir`/manifest.txt, parses it, and checks that every PTX file it
/// names exists (an error otherwise: the PTX is what runs anywhere). A
/// missing cubin is not an error: it is dropped from its kernel's `sass`
/// with a warning in Manifest::warnings, and that chip gets the PTX.
Status loadBundle(const std::string &dir, Manifest &out);

/// The path of `file`, named by the manifest, inside the bundle directory
/// `dir` (an absolute `file` is taken as it is).
std::string bundleFilePath(const std::string &dir, const std::string &file);

/// The PTX path of `k` inside the bundle directory `dir`.
std::string ptxPath(const std::string &dir, const KernelEntry &k);

/// The cubin of `k` to load on a device of compute capability
/// ccMajor.ccMinor (sassRunsOn; if several match, sm_XYa before sm_XY
/// before a family cubin), as an index into k.sass; -1 if `k` has none for
/// that device, which then JIT-compiles k's PTX.
int selectSass(const KernelEntry &k, int ccMajor, int ccMinor);

} // namespace attn

#endif // ATTN_RUNTIME_BUNDLE_H
