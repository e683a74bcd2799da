//===- KernelCompiler.h - kernels the bundle lacks, compiled on demand -*-===//
//
// The runtime launches kernels from its bundle. A problem the bundle does
// not hold (another head dim, a chip it has no code for) can still run when
// the runtime is given a KernelCompiler: the runtime asks it for the kernel
// variant (dtype, head dims, mask, LSE) for the device's chip, loads the
// image it returns (a cubin, or PTX for the driver to compile) and caches
// the module per (variant, device) like a bundled one.
//
// The runtime has no compiler of its own (it stays free of MLIR and LLVM):
// libattn_jit (attn/JIT/Jit.h) provides one that runs the attn pipeline in
// process and keeps its results in a disk cache. Any other implementation
// (a remote compile service, a test double) plugs in the same way.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_KERNELCOMPILER_H
#define ATTN_RUNTIME_KERNELCOMPILER_H

#include "attn/runtime/Bundle.h"
#include "attn/runtime/Status.h"
#include "attn/runtime/attn.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attn {

/// What selects a kernel: the fields of a ForwardProblem that a kernel is
/// specialised for (batch, heads, lengths, strides and the scale are run-time
/// arguments of every kernel), and the chip to compile for.
struct KernelRequest {
  DType dtype = DType::BF16;
  int headDim = 0, headDimV = 0;
  bool causal = false;
  /// A sliding window's bounds (ForwardProblem's); -1: none.
  int windowLeft = -1, windowRight = -1;
  /// The soft-cap (ForwardProblem's, as the kernel's f32); 0: none.
  float softcap = 0;
  /// ALiBi (ForwardProblem's): the kernel takes the slopes.
  bool alibi = false;
  /// A score bias (ForwardProblem's) of biasType: the kernel takes it.
  bool bias = false;
  DType biasType = DType::F32;
  /// Whether bulk tensor copies can read the bias (ForwardProblem::
  /// biasBulk); false: the kernel must read it element by element.
  bool biasBulk = true;
  /// Dropout (ForwardProblem's): the kernel takes rate, key and offset.
  bool dropout = false;
  /// GQA packing (ForwardProblem's packHeads): the kernel packs the query
  /// heads of a key/value head into its rows (the forward and split_kv).
  bool packHeads = false;
  bool withLse = false;
  /// What the kernel computes (KernelABI.h): the forward, or the split-KV
  /// pair of a decoding forward (a split_kv kernel always has its partial
  /// LSE: withLse is true; a merge_splits kernel has no mask: causal is
  /// false and headDim is headDimV).
  Program program = Program::Attention;
  /// Where the keys and values live (KernelABI.h). A paged request with
  /// pageSize > 0 is for that page size (the kernel's key block shrinks to
  /// it); 0 serves any multiple of the kernel's block_n.
  KVLayout kv = KVLayout::Dense;
  int pageSize = 0;
  /// The device's compute capability; chip() names the code to generate.
  int ccMajor = 0, ccMinor = 0;

  /// The chip table's architecture-specific target for this compute
  /// capability ("sm_90a" for 9.0: wgmma needs it), else
  /// "sm_<major><minor>".
  std::string chip() const;
  /// A canonical one-line description, e.g.
  /// "dtype=bf16 head_dim=80 head_dim_v=80 causal=1 lse=0 chip=sm_90a"
  /// (" program=split_kv" or " program=merge_splits" appended for the
  /// split-KV pair, " kv=..." and " page=N" for a KV cache); equal requests
  /// have equal keys.
  std::string key() const;
};

/// A kernel compiled for a request.
struct CompiledImage {
  /// What the launcher needs (entry point name, block shape, shared memory,
  /// ABI, LSE), as a bundle's manifest line would give it; `ptx` names
  /// where the image came from, for messages.
  KernelEntry entry;
  /// The image for cuModuleLoadDataEx: a cubin for the request's chip, or
  /// PTX (then the driver compiles it when it is loaded).
  std::string image;
  bool isPtx = false;
  /// Where it came from, for tools and logs: "compiled", "disk cache", ...
  std::string origin;
  /// Milliseconds per stage ("key", "build", "passes", "llvm", "sass",
  /// "cache-read", "cache-write", ...; names without spaces), in order; the
  /// runtime appends "load".
  std::vector<std::pair<std::string, double>> stageMs;
};

class KernelCompiler {
public:
  virtual ~KernelCompiler();
  /// Compiles (or finds) the kernel for `request`. Thread-safe: the runtime
  /// calls it from any thread that runs a problem the bundle lacks.
  /// Unsupported: the compiler cannot generate this variant (the message
  /// says why).
  virtual Status compile(const KernelRequest &request, CompiledImage &out) = 0;
  /// A short name for messages ("attn-jit (cache: /root/.cache/attn)").
  virtual std::string describe() const = 0;
};

namespace detail {
/// For libraries that extend the C API (libattn_jit): records a failed
/// status as the calling thread's attn_last_error_message() and returns its
/// attn_status code (ATTN_OK for success).
attn_status reportToC(const Status &status);
} // namespace detail

} // namespace attn

/// The C API's handle for a compiler (attn.h declares it opaque): libattn_jit
/// creates one (attn_jit_create), attn_runtime_create_with_compiler shares it.
struct attn_compiler {
  std::shared_ptr<attn::KernelCompiler> impl;
};

#endif // ATTN_RUNTIME_KERNELCOMPILER_H
