//===- attn-run.cpp - compile and run one attention problem -----*- C++ -*-===//
//
// Compiles an attn.attention (built from the command line, or read from a
// .mlir file) for the CPU through the attn pipeline and MLIR's
// ExecutionEngine, runs it on fresh random inputs, and with --check compares
// the output and the log-sum-exp against a float64 reference.
//
//   attn-run --batch 2 --heads 8 --kv-heads 2 --seq-q 130 --seq-k 1000 \
//            --head-dim 128 --dtype bf16 --causal --check
//   attn-run examples/attention.mlir --batch 1 --heads 4 --seq-q 512 --check
//
// Exit status: 0 on success (and a passing check), 1 on any error or a
// failing check.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/Chips.h"
#include "attn/runtime/Reference.h"
#ifdef ATTN_HAVE_RUNTIME
#include "attn/runtime/Runtime.h"
#ifdef ATTN_HAVE_RUNTIME
#include "attn/JIT/Jit.h"
#endif
#endif

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::attn; // the runtime's host helpers (no MLIR)
#ifdef ATTN_HAVE_RUNTIME
namespace jit = ::attn::jit;
#endif

static cl::OptionCategory category("attn-run options");
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[input .mlir file]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<int64_t> optBatch("batch", cl::desc("Batch size B"), cl::init(1),
                                 cl::cat(category));
static cl::opt<int64_t> optHeads("heads", cl::desc("Query heads Hq"),
                                 cl::init(1), cl::cat(category));
static cl::opt<int64_t>
    optKVHeads("kv-heads", cl::desc("Key/value heads Hkv (default: Hq)"),
               cl::init(0), cl::cat(category));
static cl::opt<int64_t> optSeqQ("seq-q", cl::desc("Query length Nq"),
                                cl::init(128), cl::cat(category));
static cl::opt<int64_t> optSeqK("seq-k",
                                cl::desc("Key/value length Nk (default: Nq)"),
                                cl::init(0), cl::cat(category));
static cl::opt<int64_t> optHeadDim("head-dim", cl::desc("Head dim D"),
                                   cl::init(64), cl::cat(category));
static cl::opt<int64_t> optHeadDimV("head-dim-v",
                                    cl::desc("Value head dim Dv (default: D)"),
                                    cl::init(0), cl::cat(category));
static cl::opt<std::string> optDType("dtype",
                                     cl::desc("f32, f16, bf16 or e4m3 (fp8: "
                                              "the GPU runtime's forward on "
                                              "sm_90, O in bf16)"),
                                     cl::init("f32"), cl::cat(category));
static cl::opt<bool> optCausal("causal",
                               cl::desc("Causal mask (bottom-right aligned)"),
                               cl::init(false), cl::cat(category));
static cl::opt<double>
    optScale("scale",
             cl::desc("Softmax scale (default 1/sqrt(D)); for an "
                      "attn.attention that takes scale(%s), the value passed"),
             cl::init(0.0), cl::cat(category));
static cl::opt<int64_t> optCpuTileM(
    "cpu-tile-m",
    cl::desc("CPU: rows of a contraction's register tile (0: the pipeline's "
             "default)"),
    cl::init(0), cl::cat(category));
static cl::opt<int64_t> optCpuTileN(
    "cpu-tile-n",
    cl::desc("CPU: columns of a contraction's register tile (0: the "
             "pipeline's default)"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string> optCpuFeatures(
    "cpu-features",
    cl::desc("CPU: the instruction sets to compile for: avx2, avx512, "
             "avx512bf16 (bf16 products as vdpbf16ps) or amx (bf16 products "
             "on AMX tiles), at most what the host has (default: the "
             "host's highest)"),
    cl::init(""), cl::cat(category));
static cl::opt<bool> optAlibi(
    "alibi",
    cl::desc("ALiBi with fresh per-head slopes in [0, 1): S' = S − "
             "slope[h]·|i + Nk − Nq − j| (FlashAttention's alibi_slopes; "
             "attn.attention's alibi operand; problem from flags, CPU path)"),
    cl::init(false), cl::cat(category));
static cl::opt<double> optSoftcap(
    "softcap",
    cl::desc("Soft-cap the scaled scores, S' = c·tanh(S / c) (Gemma 2's; "
             "attn.attention's softcap; problem from flags)"),
    cl::init(0.0), cl::cat(category));
static cl::opt<std::string> optWindow(
    "window",
    cl::desc("A sliding window L,R: query i sees key j only if i + (Nk-Nq) - "
             "L <= j <= i + (Nk-Nq) + R; -1 for no bound (with --causal, R "
             "must be -1). Problem from flags"),
    cl::init(""), cl::cat(category));
static cl::opt<bool> optLse("lse", cl::desc("Also compute the log-sum-exp"),
                            cl::init(true), cl::cat(category));
static cl::opt<bool> optBackward(
    "backward",
    cl::desc("Run the backward pass (attn.attention_grad) instead: fresh Q, "
             "K, V and dO, O and the LSE from the float64 forward, dQ, dK and "
             "dV written (on the GPU through the runtime's kernels, else on "
             "the CPU path; with --check compared with float64 gradients, "
             "and a later run must be bit-identical)"),
    cl::init(false), cl::cat(category));
static cl::opt<uint64_t>
    optSeed("seed", cl::desc("Random seed (default: a fresh one each run)"),
            cl::init(0), cl::cat(category));
static cl::opt<std::string>
    optTarget("target",
              cl::desc("cpu, gpu, or auto (the GPU when one is usable, else "
                       "the CPU)"),
              cl::init("cpu"), cl::cat(category));
static cl::opt<std::string>
    optChip("chip", cl::desc("GPU chip to compile for (--target gpu/auto)"),
            cl::init(mlir::attn::defaultChip()), cl::cat(category));
static cl::opt<int>
    optRepeat("repeat",
              cl::desc("Timed runs, median reported: on the GPU after 3 "
                       "warm-ups (default 10); on the CPU after 1 warm-up "
                       "(not given or 1: one cold call)"),
              cl::init(10), cl::cat(category));
static cl::list<int64_t> optMoreSeq(
    "more-seq",
    cl::desc("CPU, problem from flags: after the run at --seq-q, run the same "
             "compiled kernel at each of these query lengths (key lengths "
             "too, unless --seq-k is given), each on fresh inputs and with "
             "its own --check: one compile for several shapes"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<int64_t> optKVSplits(
    "kv-splits",
    cl::desc("Split the keys into this many chunks (flash-decoding): "
             "attn.attention {split_kv} into f32 partials, then "
             "attn.merge_splits (CPU path, problem from flags; 0: no split)"),
    cl::init(0), cl::cat(category));
static cl::list<int64_t> optKVLens(
    "kv-lens",
    cl::desc("A KV cache: the key count of each sequence (B values, each in "
             "[0, --seq-k]; --seq-k is the cache's capacity): "
             "attn.attention kv_lens(...) (CPU path, problem from flags)"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<int64_t> optPaged(
    "paged",
    cl::desc("A paged KV cache of pages of this many rows (a power of two): "
             "K and V as pages [P, Hkv, page, D] in a shuffled order, spare "
             "pages and unused rows poisoned, a block table [B, "
             "ceil(seq-k / page)] whose unused entries are out of range: "
             "attn.attention pages(...) (CPU path, problem from flags; "
             "without --kv-lens every sequence has --seq-k keys)"),
    cl::init(0), cl::cat(category));
static cl::list<int64_t> optVarlen(
    "varlen",
    cl::desc("A packed batch of sequences of these query lengths (and key "
             "lengths, unless --varlen-k gives them): attn.attention "
             "varlen(...) over [1, H, total, D] tensors (CPU path, problem "
             "from flags; --batch, --seq-q and --seq-k follow from the "
             "lengths)"),
    cl::CommaSeparated, cl::cat(category));
static cl::list<int64_t>
    optVarlenK("varlen-k",
               cl::desc("With --varlen: the key length of each sequence"),
               cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> optBias(
    "bias",
    cl::desc("An additive score bias [B, Hq, Nq, Nk] (f32, fresh N(0, 1) "
             "values): attn.attention bias(...) (with an input file the "
             "op's own bias operand is filled so; on the GPU through the "
             "runtime's bias kernels)"),
    cl::init(false), cl::cat(category));
static cl::opt<double> optDropout(
    "dropout",
    cl::desc("Attention dropout of this rate in [0, 1) (attn.attention "
             "dropout(p, seed, offset); CPU path). The reference drops "
             "exactly the scores the op's Philox mask drops"),
    cl::init(-1.0), cl::cat(category));
static cl::opt<uint64_t> optDropoutSeed(
    "dropout-seed",
    cl::desc("With --dropout (or a file whose attn.attention takes "
             "dropout(...)): the Philox key (default: a fresh one each run)"),
    cl::cat(category));
static cl::opt<uint32_t>
    optDropoutOffset("dropout-offset",
                     cl::desc("With --dropout: the Philox counter's last "
                              "word (default 0)"),
                     cl::init(0), cl::cat(category));
static cl::opt<double> optBlockMaskDrop(
    "block-mask-drop",
    cl::desc("With an input file whose attn.attention takes block_mask(...): "
             "the fraction of its visible key blocks left out of the lists "
             "attn-run builds (their keys are then masked, in the reference "
             "too), and of its invisible ones listed; 0 lists exactly the "
             "blocks that hold a visible key"),
    cl::init(0.0), cl::cat(category));
static cl::opt<bool> optGenerateBlockLists(
    "generate-block-lists",
    cl::desc("With an input file whose attn.attention takes block_mask(...) "
             "and a mask_mod: the program builds its lists itself "
             "(attn-generate-block-lists: attn.block_lists before the op, on "
             "the CPU path) into poisoned buffers; with --check they must "
             "equal the lists attn-run builds from the same masks"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> optCheck("check",
                              cl::desc("Compare with a float64 reference"),
                              cl::init(false), cl::cat(category));
static cl::opt<int64_t> optBlockQ("block-q",
                                  cl::desc("Query block rows (0: derive)"),
                                  cl::init(0), cl::cat(category));
static cl::opt<int64_t> optBlockKV("block-kv",
                                   cl::desc("Key/value block rows (0: derive)"),
                                   cl::init(0), cl::cat(category));
static cl::opt<bool>
    optNoFuse("no-fuse",
              cl::desc("Run the naive three-pass tiled softmax (no fusion)"),
              cl::init(false), cl::cat(category));
static cl::opt<double> optRescaleThreshold(
    "rescale-threshold",
    cl::desc("CPU path: the fused softmax moves a row's reference max only "
             "when a key block raises it by more than this many powers of "
             "two (0: always; the GPU pipeline uses 8)"),
    cl::init(0.0), cl::cat(category));
static cl::opt<uint64_t> optHostMemoryMiB(
    "host-memory-limit",
    cl::desc("Refuse problems whose host buffers need more than this many "
             "MiB (0: physical memory less 1/8)"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string> optBundle(
    "bundle",
    cl::desc("--target gpu: the kernel bundle (default: the runtime's "
             "default bundle; 'none': every kernel through the JIT)"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string>
    optCacheDir("cache-dir",
                cl::desc("--target gpu: the JIT's kernel cache (default: "
                         "$ATTN_CACHE_DIR, else $XDG_CACHE_HOME/attn, else "
                         "~/.cache/attn)"),
                cl::init(""), cl::cat(category));
static cl::opt<std::string>
    optCache("cache",
             cl::desc("--target gpu: the JIT's cache: rw (default), ro "
                      "(look up only) or off"),
             cl::init("rw"), cl::cat(category));
static cl::opt<bool> optNoNvJitLink(
    "no-nvjitlink",
    cl::desc("--target gpu: hand the JIT's PTX to the driver instead of "
             "assembling it in process with nvJitLink"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> optPrintIR("print-ir",
                                cl::desc("Print the module before lowering"),
                                cl::init(false), cl::cat(category));

namespace {

/// A memref descriptor as the C interface passes it.
template <int N> struct MemRefDesc {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

template <int N>
MemRefDesc<N> describe(void *data, std::array<int64_t, N> shape) {
  MemRefDesc<N> d{data, data, 0, {}, {}};
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    d.sizes[i] = shape[i];
    d.strides[i] = stride;
    stride *= shape[i];
  }
  return d;
}

/// `p` at --more-seq length n: Nq = n, and Nk = n unless --seq-k fixed it.
rt::Problem atSeq(const rt::Problem &p, int64_t n) {
  rt::Problem q = p;
  q.seqQ = n;
  if (!optSeqK.getNumOccurrences())
    q.seqK = n;
  return q;
}

/// Linux hands a process the AMX tile state (8 KB of registers per thread)
/// only on request: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
/// before the first tile instruction, else that instruction faults. Empty
/// on success, else why not.
std::string requestAMXTiles() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long archReqXcompPerm = 0x1023, xfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, archReqXcompPerm, xfeatureXtiledata) != 0)
    return std::string("the kernel refused the tile state (arch_prctl: ") +
           std::strerror(errno) + ")";
  return "";
#else
  return "AMX needs Linux on x86-64";
#endif
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "attn-run: error: " << msg << "\n";
  return 1;
}

/// A double as printf's %g writes it (1e-300, 0.125).
std::string formatDouble(double x) {
  std::string str;
  llvm::raw_string_ostream(str) << llvm::format("%g", x);
  return str;
}

/// What is wrong with an explicit --scale, or "". `--scale 0` is not "use
/// the default": the op keeps the scale as a positive finite f32, so the
/// value must be positive and finite and stay so when rounded to f32.
std::string checkScaleFlag() {
  double x = optScale;
  if (!(x > 0) || !std::isfinite(x))
    return "scale must be positive and finite, got " + formatDouble(x);
  float f = static_cast<float>(x);
  if (f == 0.0f)
    return "scale " + formatDouble(x) +
           " underflows to 0 in f32, the type the op keeps it in (the "
           "smallest positive f32 is 1.4e-45)";
  if (std::isinf(f))
    return "scale " + formatDouble(x) +
           " overflows f32, the type the op keeps it in (the largest f32 is "
           "3.4e+38)";
  return "";
}

Type elementType(MLIRContext &ctx, rt::DType t) {
  switch (t) {
  case rt::DType::F16:
    return Float16Type::get(&ctx);
  case rt::DType::BF16:
    return BFloat16Type::get(&ctx);
  case rt::DType::E4M3:
    return Float8E4M3FNType::get(&ctx);
  default:
    return Float32Type::get(&ctx);
  }
}

/// The fraction of the Nq·Nk (query, key) pairs a problem computes, for
/// its FLOP count: one half with a causal mask alone (the usual
/// convention), else counted row by row for a sliding window.
double visibleFraction(const rt::Problem &p) {
  if (!p.hasWindow())
    return p.causal ? 0.5 : 1.0;
  double pairs = 0;
  for (int64_t i = 0; i < p.seqQ; ++i) {
    const rt::KeyRange keys = rt::visibleKeys(i, p.seqQ, p.seqK, p.causal,
                                              p.windowLeft, p.windowRight);
    pairs += double(std::max<int64_t>(keys.end - keys.first, 0));
  }
  return pairs / (double(p.seqQ) * double(p.seqK));
}

/// Builds `func.func @attention(q, k, v, o[, lse])` holding one
/// attn.attention for the command-line problem.
OwningOpRef<ModuleOp> buildModule(MLIRContext &ctx, const rt::Problem &p) {
  OpBuilder b(&ctx);
  Location loc = FileLineColLoc::get(&ctx, "<command line>", 1, 1);
  auto module = ModuleOp::create(loc);
  Type et = elementType(ctx, p.dtype);
  int64_t dyn = ShapedType::kDynamic;
  // fp8: O in bf16 and V transposed [B, Hkv, Dv, Nk] (rt::valueTransposed).
  const bool fp8 = p.dtype == rt::DType::E4M3;
  Type ot = elementType(ctx, rt::outputDType(p.dtype));
  // --alibi: static sequence lengths (its expansion's diagonal offset
  // Nk − Nq is then a constant of the region).
  const int64_t nq = optAlibi ? p.seqQ : dyn;
  auto qType = MemRefType::get({dyn, dyn, nq, p.headDim}, et);
  auto vType = MemRefType::get({dyn, dyn, nq, p.headDimV}, ot);
  // --paged: K and V are pages [P, Hkv, page, D] of a static page size.
  int64_t page = optPaged > 0 ? int64_t(optPaged) : optAlibi ? p.seqK : dyn;
  auto kType = MemRefType::get({dyn, dyn, page, p.headDim}, et);
  auto vpType = fp8 ? MemRefType::get({dyn, dyn, p.headDimV, dyn}, et)
                    : MemRefType::get({dyn, dyn, page, p.headDimV}, et);
  SmallVector<Type> args = {qType, kType, vpType, vType};
  auto lseType = MemRefType::get({dyn, dyn, dyn}, b.getF32Type());
  if (optLse)
    args.push_back(lseType);
  // --bias: [B, Hq, Nq, Nk] f32.
  unsigned biasIdx = args.size();
  if (optBias)
    args.push_back(MemRefType::get({dyn, dyn, dyn, dyn}, b.getF32Type()));
  // --alibi: the slopes [Hq] (f32), which attn-run fills as a capture of
  // the region the built-in becomes.
  unsigned slopesArg = args.size();
  if (optAlibi)
    args.push_back(MemRefType::get({p.headsQ}, b.getF32Type()));
  // A KV cache: lens [B] and, paged, the table [B, max_pages] (i32).
  bool cache = !p.kvLens.empty();
  unsigned lensArg = args.size();
  if (cache)
    args.push_back(MemRefType::get({dyn}, b.getI32Type()));
  if (optPaged > 0)
    args.push_back(MemRefType::get({dyn, dyn}, b.getI32Type()));
  // A packed batch: the offsets cu_q, cu_k [B + 1] (i32).
  bool varlen = !p.varlenQ.empty();
  unsigned cuArg = args.size();
  if (varlen) {
    args.push_back(MemRefType::get({dyn}, b.getI32Type()));
    args.push_back(MemRefType::get({dyn}, b.getI32Type()));
  }
  // --kv-splits: the split partials are the trailing arguments,
  // O_s [S, B, Hq, Nq, Dv] and LSE_s [S, B, Hq, Nq] (f32).
  bool split = optKVSplits > 0;
  if (split) {
    args.push_back(
        MemRefType::get({dyn, dyn, dyn, dyn, p.headDimV}, b.getF32Type()));
    args.push_back(MemRefType::get({dyn, dyn, dyn, dyn}, b.getF32Type()));
  }
  // fp8: q_descale, k_descale, v_descale (f32), last.
  if (fp8)
    args.append(3, b.getF32Type());
  // --dropout: p (f32), seed (i64), offset (i32), last (never with fp8).
  const bool dropout = optDropout >= 0;
  if (dropout)
    args.append({b.getF32Type(), b.getI64Type(), b.getI32Type()});
  b.setInsertionPointToEnd(module.getBody());
  auto fn =
      func::FuncOp::create(b, loc, "attention", b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned nargs = entry->getNumArguments();
  // The split partials end the arguments but for dropout's three.
  const unsigned splitEnd = nargs - (dropout ? 3 : 0);
  Value lse = optLse ? entry->getArgument(4) : Value();
  auto op = mlir::attn::AttentionOp::create(
      b, loc, entry->getArgument(0), entry->getArgument(1),
      entry->getArgument(2),
      split ? entry->getArgument(splitEnd - 2) : entry->getArgument(3),
      split ? entry->getArgument(splitEnd - 1) : lse,
      /*dynamic_scale=*/Value(),
      /*kv_lens=*/cache ? entry->getArgument(lensArg) : Value(),
      /*page_table=*/optPaged > 0 ? entry->getArgument(lensArg + 1) : Value(),
      /*cu_seqlens_q=*/varlen ? entry->getArgument(cuArg) : Value(),
      /*cu_seqlens_k=*/varlen ? entry->getArgument(cuArg + 1) : Value(),
      /*q_descale=*/fp8 ? entry->getArgument(nargs - 3) : Value(),
      /*k_descale=*/fp8 ? entry->getArgument(nargs - 2) : Value(),
      /*v_descale=*/fp8 ? entry->getArgument(nargs - 1) : Value(),
      /*alibi_slopes=*/optAlibi ? entry->getArgument(slopesArg) : Value(),
      /*block_counts=*/Value(), /*block_indices=*/Value(),
      /*full_counts=*/Value(), /*full_indices=*/Value(),
      /*bias=*/optBias ? entry->getArgument(biasIdx) : Value(),
      /*dropout_rate=*/dropout ? entry->getArgument(nargs - 3) : Value(),
      /*dropout_seed=*/dropout ? entry->getArgument(nargs - 2) : Value(),
      /*dropout_offset=*/dropout ? entry->getArgument(nargs - 1) : Value(),
      /*scale=*/FloatAttr(),
      /*causal=*/UnitAttr(), /*window_left=*/IntegerAttr(),
      /*window_right=*/IntegerAttr(), /*block_q=*/IntegerAttr(),
      /*block_kv=*/IntegerAttr(), /*target=*/mlir::attn::TargetAttr(),
      /*split_kv=*/split ? b.getUnitAttr() : UnitAttr(),
      /*softcap=*/FloatAttr(),
      /*v_transposed=*/fp8 ? b.getUnitAttr() : UnitAttr(),
      /*mask_block=*/DenseI64ArrayAttr(),
      /*pack_query_heads=*/UnitAttr());
  if (p.causal)
    op.setCausal(true);
  if (p.windowLeft >= 0)
    op.setWindowLeftAttr(b.getI64IntegerAttr(p.windowLeft));
  if (p.windowRight >= 0)
    op.setWindowRightAttr(b.getI64IntegerAttr(p.windowRight));
  if (optScale.getNumOccurrences())
    op.setScaleAttr(b.getF32FloatAttr(static_cast<float>(optScale)));
  // The built-in soft-cap (the kernel's parameter; the runtime serves it).
  if (p.softcap > 0)
    op.setSoftcapAttr(b.getF32FloatAttr(static_cast<float>(p.softcap)));
  if (split)
    mlir::attn::MergeSplitsOp::create(b, loc, entry->getArgument(splitEnd - 2),
                                      entry->getArgument(splitEnd - 1),
                                      entry->getArgument(3), lse,
                                      /*block_q=*/IntegerAttr(),
                                      /*target=*/mlir::attn::TargetAttr());
  func::ReturnOp::create(b, loc);
  return module;
}

/// --backward: func @attention(dO, Q, K, V, O, LSE, dQ, dK, dV, delta
/// [, dropout's p, seed, offset]) with one attn.attention_grad; every dim but
/// the head dims dynamic.
OwningOpRef<ModuleOp> buildGradModule(MLIRContext &ctx, const rt::Problem &p) {
  OpBuilder b(&ctx);
  Location loc = FileLineColLoc::get(&ctx, "<command line>", 1, 1);
  auto module = ModuleOp::create(loc);
  Type et = elementType(ctx, p.dtype);
  int64_t dyn = ShapedType::kDynamic;
  auto dType = MemRefType::get({dyn, dyn, dyn, p.headDim}, et);
  auto dvType = MemRefType::get({dyn, dyn, dyn, p.headDimV}, et);
  auto rowType = MemRefType::get({dyn, dyn, dyn}, b.getF32Type());
  SmallVector<Type> args = {dvType,  dType, dType, dvType, dvType,
                            rowType, dType, dType, dvType, rowType};
  // --dropout: the forward's p (f32), seed (i64), offset (i32); then
  // --alibi's slopes [Hq], last.
  const bool withDropout = optDropout.getNumOccurrences() > 0;
  if (withDropout)
    args.append({b.getF32Type(), b.getI64Type(), b.getI32Type()});
  if (optAlibi)
    args.push_back(MemRefType::get({dyn}, b.getF32Type()));
  b.setInsertionPointToEnd(module.getBody());
  auto fn =
      func::FuncOp::create(b, loc, "attention", b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto a = [&](unsigned i) { return entry->getArgument(i); };
  Value dropout[3];
  if (withDropout)
    for (unsigned i = 0; i < 3; ++i)
      dropout[i] = a(10 + i);
  auto op = mlir::attn::AttentionGradOp::create(
      b, loc, a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9),
      /*dq_accum=*/Value(), /*dynamic_scale=*/Value(), dropout[0], dropout[1],
      dropout[2],
      /*alibi_slopes=*/optAlibi ? a(args.size() - 1) : Value(),
      /*scale=*/FloatAttr(),
      /*causal=*/UnitAttr(),
      /*block_q=*/IntegerAttr(), /*block_kv=*/IntegerAttr(),
      /*target=*/mlir::attn::TargetAttr(), /*window_left=*/IntegerAttr(),
      /*window_right=*/IntegerAttr(), /*softcap=*/FloatAttr());
  if (p.causal)
    op.setCausal(true);
  if (optScale.getNumOccurrences())
    op.setScaleAttr(b.getF32FloatAttr(static_cast<float>(optScale)));
  // The forward's window and soft-cap (the reference's too).
  if (p.windowLeft >= 0)
    op.setWindowLeftAttr(b.getI64IntegerAttr(p.windowLeft));
  if (p.windowRight >= 0)
    op.setWindowRightAttr(b.getI64IntegerAttr(p.windowRight));
  if (p.softcap > 0)
    op.setSoftcapAttr(b.getF32FloatAttr(static_cast<float>(p.softcap)));
  func::ReturnOp::create(b, loc);
  return module;
}

/// The built-in ALiBi as the score_mod region it is (attn-expand-alibi, the
/// pipelines' first pass), so that the captures, the float64 reference and
/// the CPU path all see a region reading the slopes. The sequence dims must
/// be static: the region then holds Nk − Nq as a constant.
/// Whether expandAlibi rewrote an ALiBi (the reference then applies ALiBi's
/// own definition, not the region).
bool alibiExpanded = false;
/// The function argument that held ALiBi's slopes (a capture of the region
/// once expanded): the reference reads that capture's values.
Value alibiSlopesArg;
LogicalResult expandAlibi(ModuleOp module) {
  bool any = false;
  LogicalResult ok = success();
  module.walk([&](Operation *o) {
    if (auto a = dyn_cast<mlir::attn::AttentionOp>(o); a && a.getAlibiSlopes())
      alibiSlopesArg = a.getAlibiSlopes();
    if (auto g = dyn_cast<mlir::attn::AttentionGradOp>(o);
        g && g.getAlibiSlopes())
      alibiSlopesArg = g.getAlibiSlopes();
  });
  // The backward's ALiBi (--backward --alibi): the reference applies ALiBi
  // itself (rt::Problem::alibi), so the region may read the dims at run
  // time.
  module.walk([&](mlir::attn::AttentionGradOp op) {
    any |= static_cast<bool>(op.getAlibiSlopes());
  });
  module.walk([&](mlir::attn::AttentionOp op) {
    if (!op.getAlibiSlopes())
      return;
    any = true;
    auto q = cast<MemRefType>(op.getQuery().getType());
    auto k = cast<MemRefType>(op.getKey().getType());
    if (q.isDynamicDim(2) || k.isDynamicDim(2)) {
      op.emitError() << "unsupported: attn-run runs alibi(...) from a file "
                        "with static sequence lengths (dim 2 of Q and K), or "
                        "from flags with --alibi";
      ok = failure();
    }
  });
  if (!any || failed(ok))
    return ok;
  alibiExpanded = true;
  PassManager pm(module.getContext());
  pm.addPass(mlir::attn::createAttnExpandAlibi());
  return pm.run(module);
}

/// A memref the score_mod region reads (a captured function argument):
/// attn-run fills it with random values and hands the same buffer to the
/// kernel and to the reference.
struct Capture {
  BlockArgument arg;
  bool isFloat = true; // f32, else i32
  SmallVector<int64_t> shape;
  std::vector<float> f;
  std::vector<int32_t> i;
  /// The descriptor the C interface takes: allocated, aligned, offset,
  /// sizes, strides (8 bytes each).
  std::vector<int64_t> desc;
  void *descPtr = nullptr;
};
std::vector<Capture> captures;
/// A bias operand [1|B, 1|Hq, Nq, Nk] (f32): attn-run fills it with fresh
/// N(0, 1) values and hands the same buffer to the kernel and, through
/// biasAt, to the reference.
struct BiasArg {
  bool present = false;
  rt::DType dtype = rt::DType::F32;
  int64_t irB = ShapedType::kDynamic, irH = ShapedType::kDynamic;
  int64_t nb = 0, nh = 0, nq = 0, nk = 0;
  /// The values (as the kernel reads them, in double) and their bytes.
  std::vector<double> data;
  std::vector<uint8_t> bytes;
  std::vector<int64_t> desc;
  void *ptr = nullptr;
};
BiasArg biasArg;

/// Whether the op takes dropout(p, seed, offset): the trailing function
/// arguments (f32, i64, i32); their values are the problem's (dropoutRate,
/// dropoutSeed, dropoutOffset), which the reference applies too.
bool dropoutPresent = false;

/// Sizes the bias for problem `p` ([1|B, 1|Hq, Nq, Nk]: the IR's static
/// dims, else the problem's) and fills it with fresh N(0, 1) values of its
/// type, contiguous.
void fillBias(BiasArg &x, const rt::Problem &p, uint64_t seed) {
  x.nb = ShapedType::isDynamic(x.irB) ? p.batch : x.irB;
  x.nh = ShapedType::isDynamic(x.irH) ? p.headsQ : x.irH;
  x.nq = p.seqQ;
  x.nk = p.seqK;
  rt::fillRandom(x.dtype, seed, size_t(x.nb * x.nh * x.nq * x.nk), x.data,
                 x.bytes);
}

double biasAt(int64_t b, int64_t h, int64_t i, int64_t j) {
  const BiasArg &x = biasArg;
  int64_t bb = x.nb == 1 ? 0 : b, hh = x.nh == 1 ? 0 : h;
  return x.data[size_t(((bb * x.nh + hh) * x.nq + i) * x.nk + j)];
}

/// A block_mask(counts, indices) operand pair, and full_blocks(...) where
/// the op takes them: attn-run builds the lists (buildBlockLists) and hands
/// the same buffers to the kernel and, through blockKind, to the reference.
struct BlockMaskArgs {
  bool present = false, full = false;
  /// The mask block (the op's getMaskBlockSizes()).
  int64_t bq = 0, bk = 0;
  /// The IR's static dims of the lists (kDynamic where dynamic): batch,
  /// heads, query blocks, entries.
  int64_t irB = ShapedType::kDynamic, irH = ShapedType::kDynamic,
          irQB = ShapedType::kDynamic, irK = ShapedType::kDynamic;
  /// The built lists' dims.
  int64_t nb = 0, nh = 0, nqb = 0, nk = 0, kvBlocks = 0;
  /// One list: its counts and indices, and their descriptors.
  struct List {
    std::vector<int32_t> counts, indices;
    /// --generate-block-lists: attn-run's own lists, to compare.
    std::vector<int32_t> hostCounts, hostIndices;
    std::vector<int64_t> countsDesc, indicesDesc;
    void *countsPtr = nullptr, *indicesPtr = nullptr;
  } partial, fullList;
  /// kind[((b' * nh + h') * nqb + qb) * kvBlocks + kb]: 0 unlisted, 1 in the
  /// block_mask list, 2 in the full_blocks list.
  std::vector<uint8_t> kind;
};
BlockMaskArgs blockMask;

/// The list key j's block is in for query i of (b, h): 0 none, 1 the
/// block_mask list, 2 the full_blocks list.
int blockKind(int64_t b, int64_t h, int64_t i, int64_t j) {
  const BlockMaskArgs &m = blockMask;
  int64_t bb = m.nb == 1 ? 0 : b, hh = m.nh == 1 ? 0 : h;
  size_t at =
      size_t(((bb * m.nh + hh) * m.nqb + i / m.bq) * m.kvBlocks + j / m.bk);
  return m.kind[at];
}

/// The op's own score_mod and mask_mod (without the block lists), for
/// buildBlockLists and the reference.
std::function<double(double, int64_t, int64_t, int64_t, int64_t)> rawScoreMod;
std::function<bool(int64_t, int64_t, int64_t, int64_t)> maskMod;

/// Builds the block lists of `p` on fresh choices. A key block is visible to
/// a query block if any of its (b, h, i, j) is (causal, window, the
/// score_mod not -inf at a score of 0 or 1, the mask_mod true; over every b
/// and h a list row covers), and full if the mask_mod holds for all of its
/// keys (with full_blocks: those go to the full list). With --block-mask-drop
/// P each visible block is left out, each invisible one listed, and each
/// visible partial one listed as full (its mask_mod then skipped), each with
/// probability P. The order is shuffled and the entries past a row's count
/// hold other valid block indices (a kernel that read them would see other
/// keys). Fails with a message where the IR's static dims do not fit.
std::string buildBlockLists(const rt::Problem &p, uint64_t seed) {
  BlockMaskArgs &m = blockMask;
  int64_t qBlocks = (p.seqQ + m.bq - 1) / m.bq;
  m.kvBlocks = (p.seqK + m.bk - 1) / m.bk;
  auto dimOf = [](int64_t ir, int64_t full, const char *what,
                  int64_t &out) -> std::string {
    if (ShapedType::isDynamic(ir)) {
      out = full;
      return "";
    }
    if (ir != 1 && ir != full)
      return llvm::formatv("block_mask's {0} dim is {1}, not 1 or the "
                           "problem's {2}",
                           what, ir, full)
          .str();
    out = ir;
    return "";
  };
  if (std::string e = dimOf(m.irB, p.batch, "batch", m.nb); !e.empty())
    return e;
  if (std::string e = dimOf(m.irH, p.headsQ, "heads", m.nh); !e.empty())
    return e;
  if (!ShapedType::isDynamic(m.irQB) && m.irQB != qBlocks)
    return llvm::formatv("block_mask has {0} query blocks; {1} query rows in "
                         "blocks of {2} need {3}",
                         m.irQB, p.seqQ, m.bq, qBlocks)
        .str();
  m.nqb = qBlocks;
  m.nk = ShapedType::isDynamic(m.irK) ? m.kvBlocks : m.irK;
  if (optGenerateBlockLists && m.nk < m.kvBlocks)
    return llvm::formatv("the lists hold {0} entries a row, fewer than the "
                         "{1} key blocks the generated lists may need",
                         m.nk, m.kvBlocks)
        .str();
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  const double drop = optBlockMaskDrop;
  auto chance = [&] { return drop > 0 && coin(gen) < drop; };
  size_t rows = size_t(m.nb * m.nh * m.nqb);
  m.kind.assign(rows * size_t(m.kvBlocks), 0);
  for (BlockMaskArgs::List *l : {&m.partial, &m.fullList}) {
    l->counts.assign(rows, 0);
    l->indices.assign(rows * size_t(m.nk), 0);
  }
  constexpr double ninf = -std::numeric_limits<double>::infinity();
  // visible: some key seen; allKept: the mask_mod true for every key.
  std::vector<uint8_t> visible(size_t(m.kvBlocks)), allKept(size_t(m.kvBlocks));
  for (int64_t bb = 0; bb < m.nb; ++bb)
    for (int64_t hh = 0; hh < m.nh; ++hh)
      for (int64_t qb = 0; qb < m.nqb; ++qb) {
        std::fill(visible.begin(), visible.end(), 0);
        std::fill(allKept.begin(), allKept.end(), 1);
        for (int64_t b = m.nb == 1 ? 0 : bb; b < (m.nb == 1 ? p.batch : bb + 1);
             ++b)
          for (int64_t h = m.nh == 1 ? 0 : hh;
               h < (m.nh == 1 ? p.headsQ : hh + 1); ++h)
            for (int64_t i = qb * m.bq; i < std::min(p.seqQ, (qb + 1) * m.bq);
                 ++i) {
              if (maskMod)
                for (int64_t j = 0; j < p.seqK; ++j)
                  if (allKept[size_t(j / m.bk)] && !maskMod(b, h, i, j))
                    allKept[size_t(j / m.bk)] = 0;
              rt::KeyRange keys = rt::visibleKeys(i, p.seqQ, p.seqK, p.causal,
                                                  p.windowLeft, p.windowRight);
              for (int64_t j = keys.first; j < keys.end; ++j) {
                if (visible[size_t(j / m.bk)])
                  continue;
                // (The generated lists see the mask_mod only: attn-run's
                // match them there.)
                if ((!maskMod || maskMod(b, h, i, j)) &&
                    (!rawScoreMod || optGenerateBlockLists ||
                     rawScoreMod(0.0, b, h, i, j) != ninf ||
                     rawScoreMod(1.0, b, h, i, j) != ninf))
                  visible[size_t(j / m.bk)] = 1;
              }
            }
        std::vector<int32_t> part, full;
        for (int64_t kb = 0; kb < m.kvBlocks; ++kb) {
          int kind = 0;
          if (visible[size_t(kb)] && !chance())
            kind = m.full && (allKept[size_t(kb)] || chance()) ? 2 : 1;
          else if (!visible[size_t(kb)] && chance())
            kind = 1;
          std::vector<int32_t> &to = kind == 2 ? full : part;
          if (kind && int64_t(to.size()) < m.nk)
            to.push_back(int32_t(kb));
        }
        size_t r = size_t((bb * m.nh + hh) * m.nqb + qb);
        std::uniform_int_distribution<int32_t> any(0, int32_t(m.kvBlocks - 1));
        for (auto [l, list, kind] : {std::tuple{&m.partial, &part, 1},
                                     std::tuple{&m.fullList, &full, 2}}) {
          std::shuffle(list->begin(), list->end(), gen);
          l->counts[r] = int32_t(list->size());
          for (int64_t t = 0; t < m.nk; ++t)
            l->indices[r * size_t(m.nk) + size_t(t)] =
                t < int64_t(list->size()) ? (*list)[size_t(t)] : any(gen);
          for (int32_t kb : *list)
            m.kind[r * size_t(m.kvBlocks) + size_t(kb)] = uint8_t(kind);
        }
      }
  auto desc = [](std::vector<int64_t> &d, int32_t *data,
                 std::vector<int64_t> shape) {
    int64_t rank = int64_t(shape.size());
    d.assign(size_t(3 + 2 * rank), 0);
    d[0] = d[1] = int64_t(reinterpret_cast<intptr_t>(data));
    int64_t stride = 1;
    for (int64_t x = rank - 1; x >= 0; --x) {
      d[size_t(3 + x)] = shape[size_t(x)];
      d[size_t(3 + rank + x)] = stride;
      stride *= shape[size_t(x)];
    }
  };
  for (BlockMaskArgs::List *l : {&m.partial, &m.fullList}) {
    desc(l->countsDesc, l->counts.data(), {m.nb, m.nh, m.nqb});
    desc(l->indicesDesc, l->indices.data(), {m.nb, m.nh, m.nqb, m.nk});
    l->countsPtr = l->countsDesc.data();
    l->indicesPtr = l->indicesDesc.data();
  }
  return "";
}

/// --generate-block-lists: the program's lists against attn-run's (the same
/// blocks in each row, in increasing order: the helper's order); "" when
/// equal, else where they first differ.
std::string compareGeneratedLists() {
  const BlockMaskArgs &m = blockMask;
  size_t rows = size_t(m.nb * m.nh * m.nqb);
  for (auto [l, name] : {std::pair{&m.partial, "block_mask"},
                         std::pair{&m.fullList, "full_blocks"}}) {
    if (l == &m.fullList && !m.full)
      continue;
    for (size_t r = 0; r < rows; ++r) {
      int32_t want = l->hostCounts[r], got = l->counts[r];
      std::vector<int32_t> a(l->hostIndices.begin() + r * size_t(m.nk),
                             l->hostIndices.begin() + r * size_t(m.nk) +
                                 size_t(want));
      llvm::sort(a);
      bool same = got == want;
      for (int32_t t = 0; same && t < want; ++t)
        same = l->indices[r * size_t(m.nk) + size_t(t)] == a[size_t(t)];
      if (!same) {
        std::string list;
        for (int32_t t = 0; t < std::clamp<int32_t>(got, 0, int32_t(m.nk)); ++t)
          list += (t ? " " : "") +
                  std::to_string(l->indices[r * size_t(m.nk) + size_t(t)]);
        std::string wantList;
        for (int32_t x : a)
          wantList += (wantList.empty() ? "" : " ") + std::to_string(x);
        return llvm::formatv("the generated {0} list of row (b {1}, h {2}, "
                             "query block {3}) is [{4}] (count {5}), "
                             "attn-run's [{6}]",
                             name, int64_t(r) / (m.nh * m.nqb),
                             (int64_t(r) / m.nqb) % m.nh, int64_t(r) % m.nqb,
                             list, got, wantList)
            .str();
      }
    }
  }
  return "";
}

/// Set by the reference's score_mod when a load leaves its capture.
std::shared_ptr<std::string> scoreModFault = std::make_shared<std::string>();

/// The capture that holds ALiBi's slopes (expandAlibi's argument), or null.
const Capture *alibiCapture() {
  for (const Capture &c : captures)
    if (Value(c.arg) == alibiSlopesArg && c.isFloat)
      return &c;
  return nullptr;
}

/// Fills every capture with fresh random values (floats uniform in [0, 1),
/// integers uniform in [0, 4)) and builds its descriptor.
void fillCaptures(uint64_t seed) {
  std::mt19937_64 gen(seed);
  for (Capture &c : captures) {
    int64_t n = 1;
    for (int64_t d : c.shape)
      n *= d;
    void *data;
    if (c.isFloat) {
      std::uniform_real_distribution<float> dist(0.0f, 1.0f);
      c.f.resize(size_t(n));
      for (float &x : c.f)
        x = dist(gen);
      data = c.f.data();
    } else {
      std::uniform_int_distribution<int32_t> dist(0, 3);
      c.i.resize(size_t(n));
      for (int32_t &x : c.i)
        x = dist(gen);
      data = c.i.data();
    }
    int64_t rank = int64_t(c.shape.size());
    c.desc.assign(size_t(3 + 2 * rank), 0);
    c.desc[0] = c.desc[1] = int64_t(reinterpret_cast<intptr_t>(data));
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      c.desc[size_t(3 + d)] = c.shape[size_t(d)];
      c.desc[size_t(3 + rank + d)] = stride;
      stride *= c.shape[size_t(d)];
    }
    c.descPtr = c.desc.data();
  }
}

/// The op's score_mod as a float64 function for the reference: the region's
/// scalar ops evaluated in order (floats in float64, integers exactly at
/// their width), copied out of the IR (the pipeline lowers the module in
/// place before the reference runs); loads read the captures' buffers. Fails
/// (with a diagnostic) on an op it does not know; attn-run then cannot
/// check the problem. A load out of its capture's bounds sets `oob`.
/// A value of the reference's evaluation of a region: f for floats, i for
/// integers (sign-extended from its width).
struct RegionVal {
  double f = 0;
  int64_t i = 0;
};
using RegionFn =
    std::function<RegionVal(double, int64_t, int64_t, int64_t, int64_t)>;

/// A score_mod or mask_mod body (`regionName`) as a function of (score, b, h,
/// i, j) for the reference (a mask_mod ignores the score).
LogicalResult regionFunction(Block &body, StringRef regionName, RegionFn &out,
                             std::shared_ptr<std::string> oob) {
  using Val = RegionVal;
  using Slots = std::vector<Val>;
  using Step = std::function<void(Slots &)>;
  llvm::DenseMap<Value, unsigned> slot;
  for (BlockArgument a : body.getArguments())
    slot[a] = a.getArgNumber();
  std::vector<Step> steps;
  unsigned next = body.getNumArguments();
  // x truncated to `width` bits and sign-extended (i1 stays 0 or -1: read
  // as a condition, any non-zero is true).
  auto wrap = [](int64_t x, unsigned width) -> int64_t {
    if (width >= 64)
      return x;
    uint64_t m = (uint64_t(1) << width) - 1;
    uint64_t u = uint64_t(x) & m;
    if (u >> (width - 1))
      u |= ~m;
    return int64_t(u);
  };
  auto widthOf = [](Type t) -> unsigned {
    return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
  };
  using FBin = double (*)(double, double);
  static const llvm::StringMap<FBin> kFloat = {
      {"arith.addf", [](double x, double y) { return x + y; }},
      {"arith.subf", [](double x, double y) { return x - y; }},
      {"arith.mulf", [](double x, double y) { return x * y; }},
      {"arith.divf", [](double x, double y) { return x / y; }},
      {"arith.negf", [](double x, double) { return -x; }},
      {"arith.maximumf", [](double x, double y) { return std::max(x, y); }},
      {"arith.maxnumf", [](double x, double y) { return std::max(x, y); }},
      {"arith.minimumf", [](double x, double y) { return std::min(x, y); }},
      {"arith.minnumf", [](double x, double y) { return std::min(x, y); }},
      {"math.tanh", [](double x, double) { return std::tanh(x); }},
      {"math.exp", [](double x, double) { return std::exp(x); }},
      {"math.exp2", [](double x, double) { return std::exp2(x); }},
      {"math.log", [](double x, double) { return std::log(x); }},
      {"math.sqrt", [](double x, double) { return std::sqrt(x); }},
      {"math.absf", [](double x, double) { return std::fabs(x); }},
      {"arith.extf", [](double x, double) { return x; }},
      {"arith.truncf", [](double x, double) { return x; }}};
  // Integer ops on sign-extended values; unsigned ones reinterpret them at
  // the operands' width (u below). Division by zero and INT64_MIN / -1 are
  // undefined in the IR: the reference gives 0 and INT64_MIN (no trap).
  using IBin = int64_t (*)(int64_t, int64_t, uint64_t, uint64_t);
  static const llvm::StringMap<IBin> kInt = {
      {"arith.addi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         return int64_t(uint64_t(x) + uint64_t(y));
       }},
      {"arith.subi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         return int64_t(uint64_t(x) - uint64_t(y));
       }},
      {"arith.muli",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         return int64_t(uint64_t(x) * uint64_t(y));
       }},
      {"arith.divsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         return !y ? 0 : y == -1 ? int64_t(0 - uint64_t(x)) : x / y;
       }},
      {"arith.remsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         return !y || y == -1 ? int64_t(0) : x % y;
       }},
      {"arith.floordivsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         if (!y)
           return int64_t(0);
         if (y == -1)
           return int64_t(0 - uint64_t(x));
         int64_t q = x / y;
         return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
       }},
      {"arith.ceildivsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) {
         if (!y)
           return int64_t(0);
         if (y == -1)
           return int64_t(0 - uint64_t(x));
         int64_t q = x / y;
         return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
       }},
      {"arith.divui", [](int64_t, int64_t, uint64_t u,
                         uint64_t v) { return v ? int64_t(u / v) : 0; }},
      {"arith.remui", [](int64_t, int64_t, uint64_t u,
                         uint64_t v) { return v ? int64_t(u % v) : 0; }},
      {"arith.maxsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) { return std::max(x, y); }},
      {"arith.minsi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) { return std::min(x, y); }},
      {"arith.maxui", [](int64_t, int64_t, uint64_t u,
                         uint64_t v) { return int64_t(std::max(u, v)); }},
      {"arith.minui", [](int64_t, int64_t, uint64_t u,
                         uint64_t v) { return int64_t(std::min(u, v)); }},
      {"arith.andi",
       [](int64_t x, int64_t y, uint64_t, uint64_t) { return x & y; }},
      {"arith.ori",
       [](int64_t x, int64_t y, uint64_t, uint64_t) { return x | y; }},
      {"arith.xori",
       [](int64_t x, int64_t y, uint64_t, uint64_t) { return x ^ y; }},
      {"arith.shli",
       [](int64_t x, int64_t y, uint64_t, uint64_t v) {
         return v < 64 ? int64_t(uint64_t(x) << v) : 0;
       }},
      {"arith.shrsi",
       [](int64_t x, int64_t, uint64_t, uint64_t v) {
         return x >> std::min<uint64_t>(v, 63);
       }},
      {"arith.shrui", [](int64_t, int64_t, uint64_t u,
                         uint64_t v) { return v < 64 ? int64_t(u >> v) : 0; }},
      {"math.absi", [](int64_t x, int64_t, uint64_t, uint64_t) {
         return x < 0 ? int64_t(0 - uint64_t(x)) : x;
       }}};
  for (Operation &o : body.without_terminator()) {
    StringRef name = o.getName().getStringRef();
    SmallVector<unsigned> in;
    for (Value v : o.getOperands()) {
      if (isa<MemRefType>(v.getType()))
        continue;
      auto it = slot.find(v);
      if (it == slot.end())
        return o.emitError()
               << "unsupported: attn-run --check evaluates " << regionName
               << " bodies whose scalar operands come from the "
                  "region";
      in.push_back(it->second);
    }
    unsigned res = next++;
    slot[o.getResult(0)] = res;
    Type rt = o.getResult(0).getType();
    unsigned rw = rt.isIntOrIndex() ? widthOf(rt) : 64;
    unsigned ow = o.getNumOperands() && o.getOperand(0).getType().isIntOrIndex()
                      ? widthOf(o.getOperand(0).getType())
                      : 64;
    uint64_t umask = ow >= 64 ? ~uint64_t(0) : (uint64_t(1) << ow) - 1;
    if (auto k = dyn_cast<arith::ConstantOp>(o)) {
      Val c;
      if (auto f = dyn_cast<FloatAttr>(k.getValue()))
        c.f = f.getValueAsDouble();
      else
        c.i =
            wrap(cast<IntegerAttr>(k.getValue()).getValue().getSExtValue(), rw);
      steps.push_back([res, c](Slots &v) { v[res] = c; });
    } else if (auto it = kFloat.find(name); it != kFloat.end()) {
      FBin fn = it->second;
      unsigned a = in[0], b = in.size() > 1 ? in[1] : in[0];
      steps.push_back([=](Slots &v) { v[res].f = fn(v[a].f, v[b].f); });
    } else if (auto it = kInt.find(name); it != kInt.end()) {
      IBin fn = it->second;
      unsigned a = in[0], b = in.size() > 1 ? in[1] : in[0];
      steps.push_back([=](Slots &v) {
        v[res].i = wrap(fn(v[a].i, v[b].i, uint64_t(v[a].i) & umask,
                           uint64_t(v[b].i) & umask),
                        rw);
      });
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(o)) {
      // Arith's own predicate semantics, at the operands' width.
      auto pred = cmp.getPredicate();
      unsigned a = in[0], b = in[1];
      steps.push_back([=](Slots &v) {
        APInt x(ow, uint64_t(v[a].i), /*isSigned=*/true);
        APInt y(ow, uint64_t(v[b].i), /*isSigned=*/true);
        v[res].i = arith::applyCmpPredicate(pred, x, y) ? -1 : 0;
      });
    } else if (auto cmp = dyn_cast<arith::CmpFOp>(o)) {
      auto pred = cmp.getPredicate();
      unsigned a = in[0], b = in[1];
      steps.push_back([=](Slots &v) {
        v[res].i =
            arith::applyCmpPredicate(pred, APFloat(v[a].f), APFloat(v[b].f))
                ? -1
                : 0;
      });
    } else if (isa<arith::SelectOp>(o)) {
      unsigned c = in[0], a = in[1], b = in[2];
      steps.push_back([=](Slots &v) { v[res] = v[c].i ? v[a] : v[b]; });
    } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(o)) {
      bool isUnsigned = isa<arith::UIToFPOp>(o);
      unsigned a = in[0];
      steps.push_back([=](Slots &v) {
        v[res].f =
            isUnsigned ? double(uint64_t(v[a].i) & umask) : double(v[a].i);
      });
    } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(o)) {
      unsigned a = in[0];
      steps.push_back(
          [=](Slots &v) { v[res].i = wrap(int64_t(std::trunc(v[a].f)), rw); });
    } else if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(o)) {
      unsigned a = in[0];
      steps.push_back([=](Slots &v) { v[res].i = wrap(v[a].i, rw); });
    } else if (isa<arith::ExtUIOp>(o)) {
      unsigned a = in[0];
      steps.push_back(
          [=](Slots &v) { v[res].i = int64_t(uint64_t(v[a].i) & umask); });
    } else if (auto load = dyn_cast<memref::LoadOp>(o)) {
      auto arg = dyn_cast<BlockArgument>(load.getMemRef());
      auto c = llvm::find_if(captures,
                             [&](const Capture &x) { return x.arg == arg; });
      if (c == captures.end())
        return o.emitError()
               << "unsupported: attn-run --check reads " << regionName
               << " loads from function arguments only";
      size_t ci = size_t(c - captures.begin());
      std::string what;
      llvm::raw_string_ostream(what) << load.getMemRef().getType();
      steps.push_back([=](Slots &v) {
        const Capture &cap = captures[ci];
        int64_t flat = 0;
        for (size_t d = 0; d < in.size(); ++d) {
          int64_t x = v[in[d]].i;
          if (x < 0 || x >= cap.shape[d]) {
            if (oob->empty())
              *oob = regionName.str() + " reads index " + std::to_string(x) +
                     " of dim " + std::to_string(d) + " of its " + what +
                     " capture, outside the memref";
            v[res] = Val{};
            return;
          }
          flat = flat * cap.shape[d] + x;
        }
        if (cap.isFloat)
          v[res].f = cap.f[size_t(flat)];
        else
          v[res].i = cap.i[size_t(flat)];
      });
    } else {
      return o.emitError() << "unsupported: attn-run --check cannot evaluate '"
                           << name << "' in a " << regionName;
    }
  }
  unsigned result = slot.lookup(body.getTerminator()->getOperand(0));
  unsigned nslots = next;
  // Arguments: (score), (score, b, h, i, j) or a mask_mod's (b, h, i, j).
  unsigned nargs = body.getNumArguments();
  out = [steps, result, nslots, nargs](double s, int64_t b, int64_t h,
                                       int64_t i, int64_t j) {
    std::vector<Val> v(nslots);
    unsigned pos = nargs == 4 ? 0 : 1;
    if (nargs != 4)
      v[0].f = s;
    if (nargs >= 4) {
      v[pos].i = b;
      v[pos + 1].i = h;
      v[pos + 2].i = i;
      v[pos + 3].i = j;
    }
    for (const Step &st : steps)
      st(v);
    return v[result];
  };
  return success();
}

/// The op's score_mod as a float64 function for the reference.
LogicalResult scoreModFunction(
    Block &body,
    std::function<double(double, int64_t, int64_t, int64_t, int64_t)> &out,
    std::shared_ptr<std::string> oob) {
  RegionFn fn;
  if (failed(regionFunction(body, "score_mod", fn, oob)))
    return failure();
  out = [fn](double s, int64_t b, int64_t h, int64_t i, int64_t j) {
    return fn(s, b, h, i, j).f;
  };
  return success();
}

/// The op's mask_mod for the reference: whether key j is visible to query i.
LogicalResult
maskModFunction(Block &body,
                std::function<bool(int64_t, int64_t, int64_t, int64_t)> &out,
                std::shared_ptr<std::string> oob) {
  RegionFn fn;
  if (failed(regionFunction(body, "mask_mod", fn, oob)))
    return failure();
  out = [fn](int64_t b, int64_t h, int64_t i, int64_t j) {
    return fn(0.0, b, h, i, j).i != 0;
  };
  return success();
}

/// Reports a problem with the module as a whole: at the module's location
/// when the file spells the module out, else as "<file>: error: ..." (the
/// implicit module's location is <file>:0:0, which points nowhere).
LogicalResult emitModuleError(ModuleOp module, const llvm::Twine &msg) {
  auto loc = dyn_cast<FileLineColLoc>(module.getLoc());
  if (loc && loc.getLine() > 0)
    return module.emitError(msg);
  llvm::errs() << (loc ? loc.getFilename().getValue() : StringRef(inputFile))
               << ": error: " << msg << "\n";
  return failure();
}

/// Finds the function to run in a parsed module: one whose arguments are
/// exactly the operands (q, k, v, o[, lse][, scale]) of the attn.attention
/// it holds (a run-time scale is the trailing f32 argument), and whose body
/// is that op and a return (attn-run compares the outputs with the
/// attention alone, so any other op would make the check lie).
/// A function argument the regions read, which attn-run fills (static
/// shape, f32 or i32 elements; the caller checked).
void addCapture(BlockArgument a, MemRefType t) {
  Capture c;
  c.arg = a;
  c.isFloat = t.getElementType().isF32();
  c.shape.assign(t.getShape().begin(), t.getShape().end());
  captures.push_back(std::move(c));
}

/// Whether `fn` holds only `op` and a return (anything else would run too).
LogicalResult onlyOpAndReturn(func::FuncOp fn, Operation *op) {
  for (Block &block : fn.getBody())
    for (Operation &other : block)
      if (&other != op && !isa<func::ReturnOp>(other))
        return other.emitError()
               << "unsupported: attn-run runs a function that holds only the "
               << op->getName() << " and a return, but this '"
               << other.getName() << "' would run too";
  return success();
}

LogicalResult findEntry(ModuleOp module, func::FuncOp &fn,
                        mlir::attn::AttentionOp &op) {
  SmallVector<mlir::attn::AttentionOp> ops;
  module.walk([&](mlir::attn::AttentionOp a) { ops.push_back(a); });
  if (ops.empty())
    return emitModuleError(
        module, "attn-run needs exactly one attn.attention, found 0");
  if (ops.size() != 1)
    return ops[1].emitError() << "attn-run needs exactly one attn.attention, "
                                 "found "
                              << ops.size();
  op = ops.front();
  if (op.isFp8())
    return op.emitError() << "unsupported: attn-run runs fp8 attention from "
                             "flags (--dtype e4m3 --target gpu, through the "
                             "runtime), not from an input file";
  fn = op->getParentOfType<func::FuncOp>();
  SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue(),
                                 op.getOutput()};
  if (op.getLse())
    operands.push_back(op.getLse());
  // A bias attn-run fills.
  biasArg = BiasArg();
  if (Value bias = op.getBias()) {
    operands.push_back(bias);
    auto t = cast<MemRefType>(bias.getType());
    // Contiguous, as attn-run allocates it: an identity layout, or run-time
    // strides over contiguous keys (the runtime's kernel ABI).
    SmallVector<int64_t> strides;
    int64_t offset;
    bool contiguousKeys =
        succeeded(t.getStridesAndOffset(strides, offset)) &&
        (offset == 0 || ShapedType::isDynamic(offset)) && strides.size() == 4 &&
        strides[3] == 1 &&
        llvm::all_of(ArrayRef(strides).drop_back(), ShapedType::isDynamic);
    if ((!t.getLayout().isIdentity() && !contiguousKeys) || t.getMemorySpace())
      return op.emitError() << "unsupported: attn-run passes a contiguous "
                               "bias (identity layout, or run-time strides "
                               "over contiguous keys), not "
                            << t;
    biasArg.present = true;
    Type bt = t.getElementType();
    biasArg.dtype = bt.isF16()    ? rt::DType::F16
                    : bt.isBF16() ? rt::DType::BF16
                                  : rt::DType::F32;
    biasArg.irB = t.getDimSize(0);
    biasArg.irH = t.getDimSize(1);
  }
  // Block sparsity: the lists attn-run builds.
  blockMask = BlockMaskArgs();
  if (op.hasBlockMask()) {
    operands.push_back(op.getBlockCounts());
    operands.push_back(op.getBlockIndices());
    if (op.hasFullBlocks()) {
      operands.push_back(op.getFullCounts());
      operands.push_back(op.getFullIndices());
    }
    for (Value v : {op.getBlockCounts(), op.getBlockIndices()}) {
      auto t = cast<MemRefType>(v.getType());
      if (!t.getLayout().isIdentity() || t.getMemorySpace())
        return op.emitError() << "unsupported: attn-run passes block_mask "
                                 "lists of identity layout, not "
                              << t;
    }
    auto c = cast<MemRefType>(op.getBlockCounts().getType());
    auto x = cast<MemRefType>(op.getBlockIndices().getType());
    auto pick = [](int64_t a, int64_t b) {
      return ShapedType::isDynamic(a) ? b : a;
    };
    blockMask.present = true;
    blockMask.full = op.hasFullBlocks();
    std::tie(blockMask.bq, blockMask.bk) = op.getMaskBlockSizes();
    blockMask.irB = pick(c.getDimSize(0), x.getDimSize(0));
    blockMask.irH = pick(c.getDimSize(1), x.getDimSize(1));
    blockMask.irQB = pick(c.getDimSize(2), x.getDimSize(2));
    blockMask.irK = x.getDimSize(3);
  }
  // Then the memrefs the score_mod region reads (captures), then the scale.
  size_t numCaptures = 0;
  if (fn && fn.getNumArguments() > operands.size())
    for (BlockArgument a : fn.getArguments().drop_front(operands.size())) {
      if (!isa<MemRefType>(a.getType()) || a.use_empty() ||
          !llvm::all_of(a.getUsers(), [&](Operation *u) {
            return op.getScoreMod().isAncestor(u->getParentRegion()) ||
                   op.getMaskMod().isAncestor(u->getParentRegion());
          }))
        break;
      ++numCaptures;
    }
  size_t firstCapture = operands.size();
  if (op.getDynamicScale())
    operands.push_back(op.getDynamicScale());
  dropoutPresent = false;
  if (op.hasDropout()) {
    operands.push_back(op.getDropoutRate());
    operands.push_back(op.getDropoutSeed());
    operands.push_back(op.getDropoutOffset());
    dropoutPresent = true;
  }
  if (!fn || fn.getNumArguments() != operands.size() + numCaptures ||
      fn.getNumResults() != 0)
    return op.emitError() << "unsupported: attn-run runs a function whose "
                             "arguments are exactly (q, k, v, o[, lse]), "
                             "then the block_mask lists if the op takes "
                             "them, then the memrefs its score_mod reads, "
                             "then the f32 scale if the op takes scale(...), "
                             "then dropout's rate, seed and offset if it "
                             "takes dropout(...)";
  for (auto [i, v] : llvm::enumerate(operands)) {
    size_t argNo = i < firstCapture ? i : i + numCaptures;
    if (v != fn.getArgument(unsigned(argNo)))
      return op.emitError() << "unsupported: function argument " << argNo
                            << " must be operand " << i << " of attn.attention";
  }
  // attn-run fills the captures: it must know their shapes and elements.
  captures.clear();
  for (BlockArgument a :
       fn.getArguments().slice(unsigned(firstCapture), unsigned(numCaptures))) {
    auto t = cast<MemRefType>(a.getType());
    if (!t.hasStaticShape() || !t.getLayout().isIdentity() ||
        t.getMemorySpace() ||
        !(t.getElementType().isF32() || t.getElementType().isInteger(32)))
      return op.emitError()
             << "unsupported: attn-run fills score_mod captures of static "
                "shape, identity layout and f32 or i32 elements, not "
             << t;
    addCapture(a, t);
  }
  return onlyOpAndReturn(fn, op);
}

/// --backward from a file: the module's one attn.attention_grad, in a
/// function of exactly (dO, q, k, v, o, lse, dQ, dK, dV, delta), then the
/// memrefs its score_mod / mask_mod read (captures attn-run fills), with a
/// compile-time scale and no dQ workspace or dropout.
LogicalResult findGradEntry(ModuleOp module, func::FuncOp &fn,
                            mlir::attn::AttentionGradOp &op) {
  SmallVector<mlir::attn::AttentionGradOp> ops;
  module.walk([&](mlir::attn::AttentionGradOp a) { ops.push_back(a); });
  bool forward = false;
  module.walk([&](mlir::attn::AttentionOp) { forward = true; });
  if (ops.size() != 1 || forward)
    return emitModuleError(module,
                           "attn-run --backward needs exactly one "
                           "attn.attention_grad and no "
                           "attn.attention, found " +
                               llvm::Twine(ops.size()) +
                               (forward ? " and an attn.attention" : ""));
  op = ops.front();
  if (op.getDqAccum() || op.getDynamicScale() || op.getDropoutRate())
    return op.emitError() << "unsupported: attn-run --backward from a file "
                             "runs an attn.attention_grad with a "
                             "compile-time scale and no dq_accum or dropout "
                             "(--dropout from flags runs dropout)";
  fn = op->getParentOfType<func::FuncOp>();
  Value operands[] = {op.getGradOutput(), op.getQuery(),   op.getKey(),
                      op.getValue(),      op.getOutput(),  op.getLse(),
                      op.getGradQuery(),  op.getGradKey(), op.getGradValue(),
                      op.getDelta()};
  const unsigned n = std::size(operands);
  if (!fn || fn.getNumArguments() < n || fn.getNumResults() != 0 ||
      !llvm::all_of(llvm::enumerate(operands), [&](auto iv) {
        return iv.value() == fn.getArgument(unsigned(iv.index()));
      }))
    return op.emitError() << "unsupported: attn-run --backward runs a "
                             "function whose arguments are (dO, q, k, v, o, "
                             "lse, dQ, dK, dV, delta) in the op's order, then "
                             "the memrefs its score_mod and mask_mod read";
  captures.clear();
  for (BlockArgument a : fn.getArguments().drop_front(n)) {
    auto t = dyn_cast<MemRefType>(a.getType());
    bool inRegions = llvm::all_of(a.getUsers(), [&](Operation *u) {
      return op.getScoreMod().isAncestor(u->getParentRegion()) ||
             op.getMaskMod().isAncestor(u->getParentRegion());
    });
    if (!t || a.use_empty() || !inRegions || !t.hasStaticShape() ||
        !t.getLayout().isIdentity() || t.getMemorySpace() ||
        !(t.getElementType().isF32() || t.getElementType().isInteger(32)))
      return op.emitError()
             << "unsupported: attn-run --backward fills the memrefs the "
                "regions read (static shape, identity layout, f32 or i32), "
                "not argument "
             << a.getArgNumber() << " of type " << a.getType();
    addCapture(a, t);
  }
  return onlyOpAndReturn(fn, op);
}

/// Fills `p` from the op's static facts and the command line; a dimension
/// that is static in the IR must agree with the command line if given, and
/// flags for what the IR fixes (element type, head dims, a constant scale,
/// LSE) must repeat it. A run-time scale comes from --scale. The op is an
/// attn.attention or (--backward) an attn.attention_grad.
template <typename OpTy> LogicalResult problemFromOp(OpTy op, rt::Problem &p) {
  constexpr bool forward = std::is_same_v<OpTy, mlir::attn::AttentionOp>;
  if constexpr (forward)
    if (op.getKvLens() || op.isVarlen())
      return op.emitError() << "unsupported: attn-run builds KV cache and "
                               "packed-batch problems (kv_lens, pages, "
                               "varlen) from flags (--kv-lens, --paged, "
                               "--varlen), not from an input file";
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto k = cast<MemRefType>(op.getKey().getType());
  Type et = op.getElementType();
  p.dtype = et.isF16()    ? rt::DType::F16
            : et.isBF16() ? rt::DType::BF16
                          : rt::DType::F32;
  if (optDType.getNumOccurrences() && optDType != rt::dtypeName(p.dtype))
    return op.emitError() << "--dtype " << optDType
                          << " disagrees with the IR's element type " << et;
  p.headDim = op.getHeadDim();
  p.headDimV = op.getValueHeadDim();
  p.causal = op.getCausal();
  p.windowLeft = op.getWindowLeft().value_or(-1);
  p.windowRight = op.getWindowRight().value_or(-1);
  if (FloatAttr cap = op.getSoftcapAttr())
    p.softcap = cap.getValueAsDouble();
  // A run-time scale is what attn-run passes: --scale rounded to the f32 the
  // function takes (the reference uses the same value), else 0 for
  // 1/sqrt(D).
  if (op.getDynamicScale())
    p.scale = optScale.getNumOccurrences()
                  ? double(static_cast<float>(optScale))
                  : 0.0;
  else
    p.scale = op.getScaleValue();
  if (optHeadDim.getNumOccurrences() && optHeadDim != p.headDim)
    return op.emitError() << "--head-dim " << int64_t(optHeadDim)
                          << " disagrees with the IR's head dim " << p.headDim;
  if (optHeadDimV.getNumOccurrences() && optHeadDimV != p.headDimV)
    return op.emitError() << "--head-dim-v " << int64_t(optHeadDimV)
                          << " disagrees with the IR's value head dim "
                          << p.headDimV;
  // The kernel computes with the f32 scale: compare in f32.
  if (!op.getDynamicScale() && optScale.getNumOccurrences() &&
      static_cast<float>(optScale) != static_cast<float>(p.scale))
    return op.emitError() << "--scale " << formatDouble(optScale)
                          << " disagrees with the IR's scale "
                          << formatDouble(static_cast<float>(p.scale))
                          << (op.getScaleAttr() ? "" : " (1/sqrt(D))");
  if (forward && optLse.getNumOccurrences() &&
      optLse != static_cast<bool>(op.getLse()))
    return op.emitError() << "--lse disagrees with the IR, whose "
                             "attn.attention has "
                          << (op.getLse() ? "an" : "no") << " lse operand";
  struct Dim {
    const char *flag;
    cl::opt<int64_t> &opt;
    int64_t irDim;
    int64_t *dst;
  } dims[] = {{"batch", optBatch, q.getDimSize(0), &p.batch},
              {"heads", optHeads, q.getDimSize(1), &p.headsQ},
              {"kv-heads", optKVHeads, k.getDimSize(1), &p.headsKV},
              {"seq-q", optSeqQ, q.getDimSize(2), &p.seqQ},
              {"seq-k", optSeqK, k.getDimSize(2), &p.seqK}};
  for (Dim &d : dims) {
    bool given = d.opt.getNumOccurrences() > 0;
    if (!ShapedType::isDynamic(d.irDim)) {
      // Print the value, not the cl::opt (which would stream as a char).
      if (given && d.opt != d.irDim)
        return op.emitError()
               << "--" << d.flag << " " << int64_t(d.opt)
               << " disagrees with the IR's static size " << d.irDim;
      *d.dst = d.irDim;
    } else if (given || d.opt != 0) {
      *d.dst = d.opt;
    }
  }
  // Defaults that follow other flags.
  if (ShapedType::isDynamic(k.getDimSize(1)) && !optKVHeads.getNumOccurrences())
    p.headsKV = p.headsQ;
  if (ShapedType::isDynamic(k.getDimSize(2)) && !optSeqK.getNumOccurrences())
    p.seqK = p.seqQ;

  // The sizes came from Q, K and the flags; every operand's static sizes
  // (V, O and the LSE too) must match them, or the kernel would index the
  // buffers attn-run allocates with the wrong extents.
  struct ProblemDim {
    const char *flag;
    int64_t value;
    bool given;
    const char *defaultNote;
  };
  ProblemDim batch{"batch", p.batch, optBatch.getNumOccurrences() > 0,
                   "the default"},
      headsQ{"heads", p.headsQ, optHeads.getNumOccurrences() > 0,
             "the default"},
      headsKV{"kv-heads", p.headsKV, optKVHeads.getNumOccurrences() > 0,
              "the default: heads"},
      seqQ{"seq-q", p.seqQ, optSeqQ.getNumOccurrences() > 0, "the default"},
      seqK{"seq-k", p.seqK, optSeqK.getNumOccurrences() > 0,
           "the default: seq-q"},
      headDim{"head-dim", p.headDim, true, ""},
      headDimV{"head-dim-v", p.headDimV, true, ""};
  struct Operand {
    const char *name;
    Value value;
    SmallVector<const ProblemDim *, 4> dims;
  };
  SmallVector<Operand> operands = {
      {"query", op.getQuery(), {&batch, &headsQ, &seqQ, &headDim}},
      {"key", op.getKey(), {&batch, &headsKV, &seqK, &headDim}},
      {"value", op.getValue(), {&batch, &headsKV, &seqK, &headDimV}},
      {"output", op.getOutput(), {&batch, &headsQ, &seqQ, &headDimV}}};
  if (op.getLse())
    operands.push_back({"lse", op.getLse(), {&batch, &headsQ, &seqQ}});
  if constexpr (!forward) {
    operands.push_back({"grad_output",
                        op.getGradOutput(),
                        {&batch, &headsQ, &seqQ, &headDimV}});
    operands.push_back(
        {"grad_query", op.getGradQuery(), {&batch, &headsQ, &seqQ, &headDim}});
    operands.push_back(
        {"grad_key", op.getGradKey(), {&batch, &headsKV, &seqK, &headDim}});
    operands.push_back({"grad_value",
                        op.getGradValue(),
                        {&batch, &headsKV, &seqK, &headDimV}});
    operands.push_back({"delta", op.getDelta(), {&batch, &headsQ, &seqQ}});
  }
  for (const Operand &o : operands) {
    auto t = cast<MemRefType>(o.value.getType());
    for (auto [i, d] : llvm::enumerate(o.dims)) {
      int64_t ir = t.getDimSize(i);
      if (ShapedType::isDynamic(ir) || ir == d->value)
        continue;
      InFlightDiagnostic diag = op.emitError();
      if (d->given)
        diag << "--" << d->flag << " " << d->value;
      else
        diag << d->flag << " " << d->value << " (" << d->defaultNote << ")";
      diag << " disagrees with the IR's static size " << ir << " (dim " << i
           << " of " << o.name << ")";
      if (!d->given)
        diag << "; pass --" << d->flag << " " << ir;
      return diag;
    }
  }
  return success();
}

/// attn-run hands the kernel contiguous, offset-0 buffers in host memory.
/// A memref type that says otherwise (a static stride or offset that
/// differs, a memory space) would make the kernel read and write outside
/// them: refuse it. Dynamic strides and offsets take the descriptor's
/// values, so they are fine.
template <typename OpTy>
LogicalResult checkBufferLayouts(OpTy op, const rt::Problem &p) {
  struct Operand {
    const char *name;
    Value value;
    SmallVector<int64_t, 4> shape;
  };
  SmallVector<Operand> operands = {
      {"query", op.getQuery(), {p.batch, p.headsQ, p.seqQ, p.headDim}},
      {"key", op.getKey(), {p.batch, p.headsKV, p.seqK, p.headDim}},
      {"value", op.getValue(), {p.batch, p.headsKV, p.seqK, p.headDimV}},
      {"output", op.getOutput(), {p.batch, p.headsQ, p.seqQ, p.headDimV}}};
  if (op.getLse())
    operands.push_back({"lse", op.getLse(), {p.batch, p.headsQ, p.seqQ}});
  if constexpr (std::is_same_v<OpTy, mlir::attn::AttentionGradOp>) {
    operands.push_back({"grad_output",
                        op.getGradOutput(),
                        {p.batch, p.headsQ, p.seqQ, p.headDimV}});
    operands.push_back({"grad_query",
                        op.getGradQuery(),
                        {p.batch, p.headsQ, p.seqQ, p.headDim}});
    operands.push_back(
        {"grad_key", op.getGradKey(), {p.batch, p.headsKV, p.seqK, p.headDim}});
    operands.push_back({"grad_value",
                        op.getGradValue(),
                        {p.batch, p.headsKV, p.seqK, p.headDimV}});
    operands.push_back({"delta", op.getDelta(), {p.batch, p.headsQ, p.seqQ}});
  }
  for (auto [n, o] : llvm::enumerate(operands)) {
    auto t = cast<MemRefType>(o.value.getType());
    if (t.getMemorySpace())
      return op.emitError() << "unsupported: attn-run passes host buffers in "
                               "the default memory space; operand "
                            << n << " (" << o.name << ") has memory space "
                            << t.getMemorySpace();
    if (t.getLayout().isIdentity())
      continue;
    // Contiguous strides of the buffer attn-run allocates (row-major).
    SmallVector<int64_t, 4> contiguous(o.shape.size());
    int64_t stride = 1;
    for (int64_t i = o.shape.size() - 1; i >= 0; --i) {
      contiguous[i] = stride;
      stride *= o.shape[i];
    }
    SmallVector<int64_t> strides;
    int64_t offset;
    bool fits = succeeded(t.getStridesAndOffset(strides, offset)) &&
                (ShapedType::isDynamic(offset) || offset == 0);
    for (auto [s, c] : llvm::zip_equal(strides, contiguous))
      fits = fits && (ShapedType::isDynamic(s) || s == c);
    if (!fits)
      return op.emitError()
             << "unsupported: attn-run passes contiguous buffers; operand " << n
             << " (" << o.name << ") has layout " << t.getLayout()
             << ", but its buffer has layout "
             << StridedLayoutAttr::get(op.getContext(), 0, contiguous);
  }
  return success();
}

/// Bytes of host memory the run allocates: the inputs as float64 values and
/// in their dtype, the outputs, and with --check the reference and the
/// decoded outputs. A double, so that it cannot overflow.
double hostBytes(const rt::Problem &p, bool check) {
  double elem = rt::dtypeSize(p.dtype);
  double oElem = rt::dtypeSize(rt::outputDType(p.dtype));
  double in = double(p.numQ()) + double(p.numK()) + double(p.numV());
  double bytes =
      in * (8 + elem) + double(p.numO()) * oElem + double(p.numLse()) * 4;
  if (check) // reference O and LSE, decoded O and LSE
    bytes += 2 * 8 * (double(p.numO()) + double(p.numLse()));
  // --kv-splits: the f32 partials.
  bytes += 4 * double(std::max<int64_t>(optKVSplits, 0)) *
           (double(p.numO()) + double(p.numLse()));
  return bytes;
}

/// Host memory a run may use: --host-memory-limit, else physical memory
/// less 1/8 (for the OS, the compiler and the JIT); 0 if unknown.
double hostMemoryLimit() {
  if (optHostMemoryMiB != 0)
    return double(optHostMemoryMiB) * (1 << 20);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  double physical = double(pages) * double(pageSize);
  return physical - physical / 8;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

} // namespace

/// Compares O (and the LSE when computed) with the float64 reference;
/// prints the errors and PASS/FAIL; returns the exit code.
int checkOutputs(const rt::Problem &p, const std::vector<double> &qv,
                 const std::vector<double> &kv, const std::vector<double> &vv,
                 const std::vector<uint8_t> &os,
                 const std::vector<uint8_t> &lses) {
  std::vector<double> refO, refLse;
  rt::referenceAttention(p, qv, kv, vv, refO, refLse);
  if (!scoreModFault->empty()) {
    llvm::errs() << "attn-run: error: " << *scoreModFault
                 << " (the kernel's result is undefined)\n";
    return 1;
  }
  rt::ErrorStats eo = rt::compare(
      rt::decode(rt::outputDType(p.dtype), os.data(), p.numO()), refO);
  double tol = rt::tolerance(p.dtype);
  bool ok = eo.nonFinite == 0 && eo.relative <= tol;
  llvm::outs() << llvm::format("  check O:   max_abs=%.3e rel=%.3e "
                               "non_finite=%zu (tolerance rel %.0e)\n",
                               eo.maxAbs, eo.relative, eo.nonFinite, tol);
  if (optLse) {
    rt::ErrorStats el = rt::compare(
        rt::decode(rt::DType::F32, lses.data(), p.numLse()), refLse);
    // The LSE is computed in f32 whatever the inputs: hold it to the f32
    // bound (and the dtype's), relative to its size or, for an LSE near 0
    // (one key, say), absolute: an error δ in a log is a relative error δ
    // of the softmax's normaliser.
    // fp8: Hopper's fp8 products accumulate in less than f32 (the LSE off
    // by up to 1.7e-3 at D = 256): 5e-3.
    double lseTol = p.dtype == rt::DType::E4M3 ? 5e-3 : std::max(tol, 1e-5);
    bool lseOk =
        el.nonFinite == 0 && (el.relative <= lseTol || el.maxAbs <= lseTol);
    llvm::outs() << llvm::format("  check LSE: max_abs=%.3e rel=%.3e "
                                 "non_finite=%zu\n",
                                 el.maxAbs, el.relative, el.nonFinite);
    ok = ok && lseOk;
  }
  llvm::outs() << (ok ? "  PASS\n" : "  FAIL\n");
  return ok ? 0 : 1;
}

struct GPUOutcome {
  enum Kind { Ran, Failed, Unavailable } status;
  int exitCode;
  std::string why; ///< for Unavailable
};

/// The runtime's kernels take the softmax scale as their last parameter
/// (KernelABI.h): an attention with a compile-time scale gets it as a new
/// last argument of its function instead, which the runtime fills with the
/// same value (the problem's scale).
LogicalResult takeScaleAtRunTime(ModuleOp module) {
  WalkResult r = module.walk([&](mlir::attn::AttentionOp op) {
    if (op.getDynamicScale())
      return WalkResult::advance();
    auto fn = op->getParentOfType<func::FuncOp>();
    if (!fn)
      return WalkResult::interrupt();
    unsigned idx = fn.getNumArguments();
    if (failed(fn.insertArgument(idx, Float32Type::get(op.getContext()),
                                 DictionaryAttr(), op.getLoc())))
      return WalkResult::interrupt();
    op.getDynamicScaleMutable().assign(fn.getArgument(idx));
    op.removeScaleAttr();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

bool checkGradients(const rt::Problem &p, const std::vector<double> &qv,
                    const std::vector<double> &kv,
                    const std::vector<double> &vv,
                    const std::vector<double> &dov,
                    const std::vector<uint8_t> &dqs,
                    const std::vector<uint8_t> &dks,
                    const std::vector<uint8_t> &dvs);

#ifdef ATTN_HAVE_RUNTIME
/// Device copies of host buffers, each into its own new allocation on
/// device 0.
using Upload = std::pair<rt::DeviceBuffer *, const std::vector<uint8_t> *>;
rt::Status uploadAll(rt::Runtime &runtime, std::initializer_list<Upload> list) {
  for (auto [buf, host] : list) {
    if (rt::Status st =
            rt::DeviceBuffer::allocate(runtime, 0, host->size(), *buf);
        !st.ok())
      return st;
    if (rt::Status st =
            runtime.copyToDevice(buf->get(), host->data(), host->size());
        !st.ok())
      return st;
  }
  return rt::Status::success();
}

/// The median wall time in ms of max(--repeat, 1) synchronised calls of
/// `launch` after three warm-up calls (host clock; the benchmark scripts
/// time with CUDA events); -1 with `st` set if a call fails.
double medianLaunchMs(rt::Runtime &runtime,
                      const std::function<rt::Status()> &launch,
                      rt::Status &st) {
  std::vector<double> times;
  for (int i = 0; i < 3 + std::max(optRepeat.getValue(), 1); ++i) {
    auto t = std::chrono::steady_clock::now();
    if (!(st = launch()).ok() || !(st = runtime.synchronize(0)).ok())
      return -1;
    if (i >= 3)
      times.push_back(msSince(t));
  }
  llvm::sort(times);
  return times[times.size() / 2];
}

/// --backward on the GPU, through the runtime (Runtime::backward: the
/// bundle's grad_q and grad_kv kernels, else libattn_jit's): fresh Q, K, V
/// and dO, O (rounded to the dtype) and the LSE from the float64 forward,
/// dQ, dK, dV poisoned (NaN); --check compares them with float64 gradients
/// and runs again (the second run must write the same bits).
int runBackwardOnGPU(rt::Runtime &runtime, const rt::Problem &p) {
  rt::BackwardProblem bp;
  bp.shape() = p.shape();
  uint64_t seed =
      optSeed.getNumOccurrences() ? uint64_t(optSeed) : std::random_device{}();
  std::vector<double> qv, kv, vv, dov, ov, lsev;
  std::vector<uint8_t> qs, ks, vs, dos;
  rt::fillRandom(p.dtype, seed, p.numQ(), qv, qs);
  rt::fillRandom(p.dtype, seed + 1, p.numK(), kv, ks);
  rt::fillRandom(p.dtype, seed + 2, p.numV(), vv, vs);
  rt::fillRandom(p.dtype, seed + 3, p.numO(), dov, dos);
  rt::referenceAttention(p, qv, kv, vv, ov, lsev);
  std::vector<uint8_t> os = rt::encode(p.dtype, ov),
                       lses = rt::encode(rt::DType::F32, lsev);
  std::vector<uint8_t> dqs, dks, dvs;
  rt::fillNaN(p.dtype, p.numQ(), dqs);
  rt::fillNaN(p.dtype, p.numK(), dks);
  rt::fillNaN(p.dtype, p.numV(), dvs);
  rt::Status st;
  rt::DeviceBuffer dq, dk, dv, ddo, dout, dl, ddq, ddk, ddv;
  if (!(st = uploadAll(runtime, {{&dq, &qs},
                                 {&dk, &ks},
                                 {&dv, &vs},
                                 {&ddo, &dos},
                                 {&dout, &os},
                                 {&dl, &lses},
                                 {&ddq, &dqs},
                                 {&ddk, &dks},
                                 {&ddv, &dvs}}))
           .ok())
    return fail(st.message());
  auto launch = [&] {
    return runtime.backward(bp, ddo.get(), dq.get(), dk.get(), dv.get(),
                            dout.get(), static_cast<const float *>(dl.get()),
                            ddq.get(), ddk.get(), ddv.get(), nullptr);
  };
  auto read = [&](std::vector<uint8_t> &out) {
    for (auto [buf, host] : {std::pair{&ddq, &dqs}, std::pair{&ddk, &dks},
                             std::pair{&ddv, &dvs}}) {
      out.insert(out.end(), host->size(), 0);
      if (!(st = runtime.copyToHost(out.data() + out.size() - host->size(),
                                    buf->get(), host->size()))
               .ok())
        return false;
    }
    return true;
  };
  // The checked run writes into the poisoned buffers; it is also the first
  // call (it loads, or compiles, the two kernels).
  auto tFirst = std::chrono::steady_clock::now();
  if (!(st = launch()).ok() || !(st = runtime.synchronize(0)).ok())
    return fail(st.message());
  double firstMs = msSince(tFirst);
  std::vector<uint8_t> first;
  if (!read(first))
    return fail(st.message());
  const int runs = std::max(optRepeat.getValue(), 1);
  double ms = medianLaunchMs(runtime, launch, st);
  if (ms < 0)
    return fail(st.message());
  rt::KernelChoice choice;
  runtime.lastKernel(choice);
  // FlashAttention's count: 2.5 times the forward's FLOPs.
  double flops = 2.5 * 4.0 * p.batch * p.headsQ * p.seqQ * p.seqK *
                 double(p.headDim + p.headDimV) / 2.0 * visibleFraction(p);
  llvm::outs() << "attn-run: target=gpu (" << choice.device.name << ", "
               << choice.kernel.chip.str() << " "
               << (choice.image == "sass" ? "SASS" : "PTX") << " from "
               << (choice.origin.empty() ? "bundle" : choice.origin)
               << ") backward kernels=" << choice.kernel.name << ","
               << choice.mergeKernel << " dtype=" << rt::dtypeName(p.dtype)
               << " B=" << p.batch << " Hq=" << p.headsQ << " Hkv=" << p.headsKV
               << " Nq=" << p.seqQ << " Nk=" << p.seqK << " D=" << p.headDim
               << " Dv=" << p.headDimV << " causal=" << p.causal
               << " scale=" << p.effectiveScale() << "\n";
  llvm::outs() << llvm::format("  first call=%.1f ms\n", firstMs);
  llvm::outs() << llvm::format("  seed=%llu backward=%.3f ms median of %zu "
                               "(%.1f TFLOP/s)\n",
                               (unsigned long long)seed, ms, size_t(runs),
                               flops / ms * 1e-9);
  if (!optCheck)
    return 0;
  // The first (poisoned-buffer) run's gradients against float64; the
  // timed runs after it must have written the same bits.
  const size_t nq = dqs.size(), nk = dks.size();
  std::vector<uint8_t> gq(first.begin(), first.begin() + nq),
      gk(first.begin() + nq, first.begin() + nq + nk),
      gv(first.begin() + nq + nk, first.end());
  bool ok = checkGradients(p, qv, kv, vv, dov, gq, gk, gv);
  std::vector<uint8_t> latest;
  if (!read(latest))
    return fail(st.message());
  bool same = latest == first;
  llvm::outs() << "  deterministic: "
               << (same ? "later runs bit-identical\n" : "later runs DIFFER\n");
  ok = ok && same;
  llvm::outs() << (ok ? "  PASS\n" : "  FAIL\n");
  return ok ? 0 : 1;
}
#endif

/// Compiles this module's own kernel (attn-codegen with --chip and the
/// block flags, in process) into a one-kernel bundle in a new temporary
/// directory `dir`. nullopt on success.
std::optional<GPUOutcome> compileOwnKernel(ModuleOp module,
                                           SmallString<128> &dir,
                                           std::string &name,
                                           double &compileMs) {
  auto failed1 = [](const llvm::Twine &msg) {
    return GPUOutcome{GPUOutcome::Failed, fail(msg), ""};
  };
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("attn-run-bundle", dir))
    return failed1("cannot create a temporary directory: " + ec.message());
  auto t0 = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> gpuModule(cast<ModuleOp>(module->clone()));
  if (failed(takeScaleAtRunTime(*gpuModule)))
    return failed1("cannot give the kernel its scale parameter");
  mlir::attn::CodegenPipelineOptions opts;
  opts.chip = optChip;
  opts.blockQ = optBlockQ;
  opts.blockKV = optBlockKV;
  FailureOr<mlir::attn::CompiledKernel> kernel =
      mlir::attn::compileGPUKernel(*gpuModule, opts);
  if (mlir::failed(kernel)) {
    // What the GPU path does not support (reported above as
    // "unsupported: ...") still runs on the CPU under --target auto.
    if (optTarget == "auto")
      return GPUOutcome{GPUOutcome::Unavailable, 0,
                        "the GPU kernel generator does not support this "
                        "problem"};
    return failed1("GPU code generation failed");
  }
  compileMs = msSince(t0);
  name = kernel->name;
  std::error_code ec;
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name + ".ptx");
  llvm::raw_fd_ostream ptxOut(path, ec);
  if (ec)
    return failed1("cannot write " + path + ": " + ec.message());
  ptxOut << kernel->ptx;
  SmallString<128> mpath(dir);
  llvm::sys::path::append(mpath, "manifest.txt");
  llvm::raw_fd_ostream m(mpath, ec);
  if (ec)
    return failed1("cannot write " + mpath + ": " + ec.message());
  m << mlir::attn::manifestLine(*kernel, name + ".ptx");
  return std::nullopt;
}

/// --target gpu/auto: compiles the module's attention to PTX (the
/// attn-codegen pipeline, in process), hands it to the runtime as a
/// one-kernel bundle, and runs it on fresh inputs through the runtime.
GPUOutcome runOnGPU(MLIRContext &ctx, ModuleOp module, const rt::Problem &p) {
  auto failed1 = [](const llvm::Twine &msg) {
    return GPUOutcome{GPUOutcome::Failed, fail(msg), ""};
  };
#ifndef ATTN_HAVE_RUNTIME
  (void)ctx;
  (void)module;
  (void)p;
  return {GPUOutcome::Unavailable,
          fail("unsupported: this attn-run was built without the CUDA "
               "runtime (no cuda.h at build time)"),
          "built without the CUDA runtime"};
#else
  if (p.dtype == rt::DType::F32)
    return optTarget == "gpu"
               ? failed1("unsupported: --target gpu runs f16 and bf16 (the "
                         "tensor cores' inputs); f32 runs on --target cpu")
               : GPUOutcome{GPUOutcome::Unavailable, 0,
                            "f32 runs on the CPU path"};
  if (!mlir::attn::isSupportedChip(optChip))
    return failed1(::attn::unsupportedChipMessage(optChip));

  if (optNoFuse)
    return failed1("unsupported: --no-fuse on the GPU (the kernel generator "
                   "takes the fused online-softmax form); use --target cpu");
  if (optRescaleThreshold.getNumOccurrences())
    return failed1("unsupported: --rescale-threshold on the GPU (its "
                   "pipeline fixes it at 8); use --target cpu");

  // A problem given by flags runs as an application would run it: through
  // the runtime, from the bundle when it holds the kernel, else compiled by
  // libattn_jit (with its disk cache) for the GPU that is present. An IR
  // file or a tuning flag (--chip, --block-q, --block-kv) asks for this
  // module's own kernel: compiled here into a one-kernel bundle.
  const bool throughJit = inputFile.empty() && !optChip.getNumOccurrences() &&
                          !optBlockQ.getNumOccurrences() &&
                          !optBlockKV.getNumOccurrences();
  std::unique_ptr<rt::Runtime> runtime;
  std::string name;
  double compileMs = 0;
  SmallString<128> dir;
  llvm::scope_exit cleanup([&] {
    if (!dir.empty())
      (void)llvm::sys::fs::remove_directories(dir);
  });
  auto createRuntime =
      [&](rt::RuntimeOptions ropts,
          const jit::JitOptions *jo) -> std::optional<GPUOutcome> {
    rt::Status st = jo ? jit::createRuntime(ropts, *jo, runtime)
                       : rt::Runtime::create(ropts, runtime);
    if (st.ok())
      return std::nullopt;
    // On a machine without a usable GPU this is where --target auto turns
    // to the CPU.
    bool noGpu = st.code() == rt::StatusCode::NoDriver ||
                 st.code() == rt::StatusCode::NoDevice;
    if (noGpu && optTarget == "auto")
      return GPUOutcome{GPUOutcome::Unavailable, 0, st.message()};
    return failed1(st.message());
  };
  if (throughJit) {
    jit::JitOptions jo;
    jo.cacheDir = optCacheDir;
    if (optCache == "rw")
      jo.cache = jit::CacheMode::ReadWrite;
    else if (optCache == "ro")
      jo.cache = jit::CacheMode::ReadOnly;
    else if (optCache == "off")
      jo.cache = jit::CacheMode::Off;
    else
      return failed1("unknown --cache '" + optCache +
                     "' (expected rw, ro or off)");
    jo.useNvJitLink = !optNoNvJitLink;
    rt::RuntimeOptions ropts;
    ropts.bundleDir = optBundle;
    // 'none': no bundle, every kernel from the JIT.
    ropts.useBundle = optBundle != "none";
    if (auto out = createRuntime(ropts, &jo))
      return *out;
  } else if (auto out = compileOwnKernel(module, dir, name, compileMs)) {
    return *out;
  } else if (auto out2 = [&]() -> std::optional<GPUOutcome> {
               rt::RuntimeOptions ropts;
               ropts.bundleDir = dir.str().str();
               return createRuntime(ropts, nullptr);
             }()) {
    return *out2;
  }

  if (optBackward)
    return {GPUOutcome::Ran, runBackwardOnGPU(*runtime, p), ""};

  rt::Status st;
  rt::ForwardProblem fp;
  fp.shape() = p.shape();
  fp.withLse = optLse;

  uint64_t seed =
      optSeed.getNumOccurrences() ? uint64_t(optSeed) : std::random_device{}();
  std::vector<double> qv, kv, vv;
  std::vector<uint8_t> qs, ks, vs, os, lses;
  // The reference's problem: fp8's descale factors join it.
  rt::Problem ref = p;
  if (p.dtype == rt::DType::E4M3) {
    // FlashAttention-3's inputs: each tensor drawn with its own spread and
    // quantised with its own descale (amax / 448), so that a descale the
    // kernel dropped or swapped fails the check.
    double qd, kd, vd;
    std::vector<uint8_t> vcodes;
    rt::fillRandomE4m3(seed, p.numQ(), 0.5, qv, qs, qd);
    rt::fillRandomE4m3(seed + 1, p.numK(), 2.0, kv, ks, kd);
    rt::fillRandomE4m3(seed + 2, p.numV(), 1.0, vv, vcodes, vd);
    // V transposed, [B, Hkv, Dv, Nk] over rows padded to 16 bytes.
    int64_t ld;
    vs = rt::transposeValuesE4m3(vcodes, p.batch * p.headsKV, p.seqK,
                                 p.headDimV, ld);
    fp.v = {p.headsKV * p.headDimV * ld, p.headDimV * ld, 1, ld};
    fp.qDescale = ref.qDescale = qd;
    fp.kDescale = ref.kDescale = kd;
    fp.vDescale = ref.vDescale = vd;
    llvm::outs() << llvm::format("  fp8 descale q=%.3e k=%.3e v=%.3e\n", qd, kd,
                                 vd);
  } else {
    rt::fillRandom(p.dtype, seed, p.numQ(), qv, qs);
    rt::fillRandom(p.dtype, seed + 1, p.numK(), kv, ks);
    rt::fillRandom(p.dtype, seed + 2, p.numV(), vv, vs);
  }
  rt::fillNaN(rt::outputDType(p.dtype), p.numO(), os);
  rt::fillNaN(rt::DType::F32, p.numLse(), lses);
  // --alibi: fresh slopes (the capture's), the runtime's ALiBi kernels; the
  // reference applies ALiBi itself.
  rt::DeviceBuffer dslopes;
  if (optAlibi) {
    fillCaptures(seed + 4);
    const std::vector<float> &sl = alibiCapture()->f;
    ref.scoreMod = nullptr;
    ref.alibi = fp.alibi = true;
    ref.alibiSlopes.assign(sl.begin(), sl.end());
    if (!(st = rt::DeviceBuffer::allocate(*runtime, 0, sl.size() * 4, dslopes))
             .ok() ||
        !(st = runtime->copyToDevice(dslopes.get(), sl.data(), sl.size() * 4))
             .ok())
      return failed1(st.message());
    fp.alibiSlopes = static_cast<const float *>(dslopes.get());
  }
  // A bias: fresh N(0, 1) values of its type, [1|B, 1|Hq, Nq, Nk]
  // contiguous, the same values the reference reads through biasAt.
  rt::DeviceBuffer dbias;
  if (biasArg.present) {
    BiasArg &x = biasArg;
    fillBias(x, p, seed + 6);
    if (!(st = rt::DeviceBuffer::allocate(*runtime, 0, x.bytes.size(), dbias))
             .ok() ||
        !(st = runtime->copyToDevice(dbias.get(), x.bytes.data(),
                                     x.bytes.size()))
             .ok())
      return failed1(st.message());
    fp.bias = true;
    fp.biasType = x.dtype;
    fp.biasBatch = x.nb;
    fp.biasHeads = x.nh;
    fp.biasData = dbias.get();
  }

  rt::DeviceBuffer dq, dk, dv, dO, dl;
  if (!(st = uploadAll(
            *runtime,
            {{&dq, &qs}, {&dk, &ks}, {&dv, &vs}, {&dO, &os}, {&dl, &lses}}))
           .ok())
    return failed1(st.message());
  float *lsePtr = optLse ? static_cast<float *>(dl.get()) : nullptr;
  auto launch = [&] {
    return runtime->forward(fp, dq.get(), dk.get(), dv.get(), dO.get(), lsePtr,
                            nullptr);
  };
  // The checked run writes into the NaN-poisoned buffers. It is also the
  // first call: it loads (and, through the JIT, may compile) the kernel.
  auto tFirst = std::chrono::steady_clock::now();
  if (!(st = launch()).ok() || !(st = runtime->synchronize(0)).ok())
    return failed1(st.message());
  double firstMs = msSince(tFirst);
  if (!(st = runtime->copyToHost(os.data(), dO.get(), os.size())).ok() ||
      !(st = runtime->copyToHost(lses.data(), dl.get(), lses.size())).ok())
    return failed1(st.message());
  // Then time it.
  const int runs = std::max(optRepeat.getValue(), 1);
  double ms = medianLaunchMs(*runtime, launch, st);
  if (ms < 0)
    return failed1(st.message());
  rt::KernelChoice choice;
  runtime->lastKernel(choice);
  double flops = 4.0 * p.batch * p.headsQ * p.seqQ * p.seqK *
                 double(p.headDim + p.headDimV) / 2.0 * visibleFraction(p);
  if (name.empty())
    name = choice.kernel.name;
  llvm::outs() << "attn-run: target=gpu (" << choice.device.name << ", "
               << choice.kernel.chip.str() << " "
               << (choice.image == "sass" ? "SASS" : "PTX") << " from "
               << choice.origin << ") kernel=" << name
               << " dtype=" << rt::dtypeName(p.dtype) << " B=" << p.batch
               << " Hq=" << p.headsQ << " Hkv=" << p.headsKV << " Nq=" << p.seqQ
               << " Nk=" << p.seqK << " D=" << p.headDim << " Dv=" << p.headDimV
               << " causal=" << p.causal << " scale=" << p.effectiveScale()
               << "\n";
  // How the first call's time was spent: this tool's own compile (IR file
  // or tuning flags), else the runtime's stages (the JIT's compile or cache
  // read, then the module load).
  std::string stages;
  if (compileMs > 0)
    stages += llvm::formatv(" compile={0:F1}", compileMs).str();
  for (auto &[stage, stageMs] : choice.stageMs)
    stages += llvm::formatv(" {0}={1:F2}", stage, stageMs).str();
  llvm::outs() << llvm::format("  first call=%.1f ms (ms:%s)\n", firstMs,
                               stages.c_str());
  llvm::outs() << llvm::format("  seed=%llu run=%.3f ms median of %zu (%.1f "
                               "TFLOP/s)\n",
                               (unsigned long long)seed, ms, size_t(runs),
                               flops / ms * 1e-9);
  if (!optCheck)
    return {GPUOutcome::Ran, 0, ""};
  return {GPUOutcome::Ran, checkOutputs(ref, qv, kv, vv, os, lses), ""};
#endif
}

/// dropout(p, seed, offset)'s values as the compiled function takes them
/// (f32, i64, i32), kept alive for the packed call's argument pointers.
struct DropoutValues {
  explicit DropoutValues(const rt::Problem &p)
      : present(p.dropout), rate(p.dropoutRate), seed(int64_t(p.dropoutSeed)),
        offset(int32_t(p.dropoutOffset)) {}
  /// The three trailing arguments, where the problem has dropout.
  void append(SmallVectorImpl<void *> &args) {
    if (!present)
      return;
    args.push_back(&rate);
    args.push_back(&seed);
    args.push_back(&offset);
  }
  bool present;
  float rate;
  int64_t seed;
  int32_t offset;
};

/// One call of the compiled function: its wall time in ms, or -1 (the
/// error printed).
double invokeTimed(ExecutionEngine &engine, const std::string &symbol,
                   SmallVectorImpl<void *> &args) {
  auto t = std::chrono::steady_clock::now();
  if (llvm::Error err = engine.invokePacked(symbol, args)) {
    llvm::errs() << "attn-run: error: run failed: "
                 << llvm::toString(std::move(err)) << "\n";
    return -1;
  }
  return msSince(t);
}

int runAndCheck(const rt::Problem &p, ExecutionEngine &engine,
                const std::string &symbol, bool dynamicScale, uint64_t seed,
                double compileMs);
/// The CPU path's GQA decoding: for one query row, the kernel runs the
/// runtime's packed view (rt::packQueryHeads: the G query heads of a
/// key/value head as G rows of one head, non-causal), over the same bytes
/// of Q, O and the LSE; 1: not packed.
int64_t packedRows = 1;
int runBackwardAndCheck(const rt::Problem &p, ExecutionEngine &engine,
                        const std::string &symbol, uint64_t seed,
                        double compileMs);

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  // libLLVM registers an undocumented -threads of its own (a cl::opt<int>):
  // take the name over, so this option is built here, after that one is
  // unregistered, not with the others.
  if (cl::Option *other = cl::getRegisteredOptions().lookup("threads"))
    other->removeArgument();
  static cl::opt<unsigned> optThreads(
      "threads",
      cl::desc("CPU: threads that run the grid of (batch, head, query block) "
               "tiles (default: OMP_NUM_THREADS if set, else the number of "
               "cores; 0: the OpenMP runtime's default)"),
      cl::init(0), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attn-run: compile and run one attention problem, optionally checked "
      "against a float64 reference\n");

  if (optTarget != "cpu" && optTarget != "gpu" && optTarget != "auto")
    return fail("unknown --target '" + optTarget +
                "' (expected cpu, gpu or auto)");

  DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics point at the source; a dump of the whole module in generic
  // form would bury them.
  ctx.printOpOnDiagnostic(false);

  if (optScale.getNumOccurrences())
    if (std::string why = checkScaleFlag(); !why.empty())
      return fail(why);

  rt::Problem p;
  OwningOpRef<ModuleOp> module;
  std::string entryName = "attention";
  bool dynamicScale = false;
  if (inputFile.empty()) {
    if (!rt::parseDType(optDType, p.dtype))
      return fail("unknown --dtype '" + optDType +
                  "' (expected f32, f16, bf16 or e4m3)");
    // fp8 is the GPU runtime's dense forward (FlashAttention-3's): the
    // CPU path, the KV cache, packed batches, windows, soft-caps and
    // this tool's own kernel (tuning flags) do not take it.
    if (p.dtype == rt::DType::E4M3) {
      // The default target is the CPU: fp8 goes to the GPU unless told.
      if (optTarget == "cpu" && optTarget.getNumOccurrences())
        return fail("unsupported: --dtype e4m3 on the CPU path (fp8 "
                    "attention lowers to sm_90a's wgmma only): use "
                    "--target gpu");
      for (const char *flag :
           {"kv-lens", "paged", "varlen", "varlen-k", "window", "softcap",
            "kv-splits", "chip", "block-q", "block-kv", "more-seq"})
        if (cl::getRegisteredOptions().lookup(flag)->getNumOccurrences())
          return fail(std::string("unsupported: --") + flag +
                      " with --dtype e4m3 (fp8 has the runtime's dense "
                      "forward only)");
      optTarget.setValue("gpu");
    }
    p.batch = optBatch;
    p.headsQ = optHeads;
    p.headsKV = optKVHeads.getNumOccurrences() ? int64_t(optKVHeads)
                                               : int64_t(optHeads);
    p.seqQ = optSeqQ;
    p.seqK = optSeqK.getNumOccurrences() ? int64_t(optSeqK) : int64_t(optSeqQ);
    p.headDim = optHeadDim;
    p.headDimV = optHeadDimV.getNumOccurrences() ? int64_t(optHeadDimV)
                                                 : int64_t(optHeadDim);
    p.causal = optCausal;
    p.scale = optScale.getNumOccurrences() ? double(optScale) : 0.0;
    if (!optWindow.empty()) {
      // L,R with -1 for no bound.
      auto [l, r] = StringRef(optWindow).split(',');
      if (l.trim().getAsInteger(10, p.windowLeft) ||
          r.trim().getAsInteger(10, p.windowRight) || p.windowLeft < -1 ||
          p.windowRight < -1 || p.windowLeft > INT32_MAX ||
          p.windowRight > INT32_MAX || (p.windowLeft < 0 && p.windowRight < 0))
        return fail("--window takes L,R: bounds in [0, 2^31) or -1 for none, "
                    "at least one of them a bound; got '" +
                    optWindow + "'");
      if (p.causal && p.windowRight >= 0)
        return fail("--causal is a window's R = 0: give R as -1 with "
                    "--causal");
    }
    if (optPaged < 0 ||
        (optPaged > 0 && !llvm::isPowerOf2_64(uint64_t(int64_t(optPaged)))))
      return fail("--paged must be a power of two (the page size), got " +
                  std::to_string(int64_t(optPaged)));
    if (optVarlenK.getNumOccurrences() && !optVarlen.getNumOccurrences())
      return fail("--varlen-k needs --varlen");
    if (optVarlen.getNumOccurrences()) {
      for (const char *flag : {"batch", "seq-q", "seq-k"})
        if (cl::getRegisteredOptions().lookup(flag)->getNumOccurrences())
          return fail(std::string("--") + flag +
                      " follows from --varlen's lengths; do not give it");
      if (optKVLens.getNumOccurrences() || optPaged.getNumOccurrences() ||
          optKVSplits.getNumOccurrences())
        return fail("unsupported: --varlen with a KV cache (--kv-lens, "
                    "--paged) or --kv-splits");
      p.varlenQ.assign(optVarlen.begin(), optVarlen.end());
      if (optVarlenK.getNumOccurrences())
        p.varlenK.assign(optVarlenK.begin(), optVarlenK.end());
      else
        p.varlenK = p.varlenQ;
      p.batch = 1;
      p.seqQ = p.seqK = 0;
      for (int64_t n : p.varlenQ)
        p.seqQ += n;
      for (int64_t n : p.varlenK)
        p.seqK += n;
      // A packed batch of empty sequences still has rows to allocate.
      if (p.seqQ == 0 || p.seqK == 0)
        return fail("--varlen: every query and key length is 0");
    }
    // ALiBi's key positions are the problem's: not per sequence. (The
    // forward's region holds Nk − Nq as a constant; the backward's reads
    // the dims, so --more-seq reruns it.)
    if (optAlibi)
      for (const char *flag :
           {"kv-lens", "paged", "varlen", "softcap", "kv-splits", "more-seq"})
        if (cl::getRegisteredOptions().lookup(flag)->getNumOccurrences() &&
            !(optBackward && StringRef(flag) == "more-seq"))
          return fail(std::string("unsupported: --alibi with --") + flag);
    if (optAlibi && p.dtype == rt::DType::E4M3)
      return fail("unsupported: --alibi with --dtype e4m3");
    if (optSoftcap.getNumOccurrences() && !rt::isValidSoftcap(optSoftcap))
      return fail("--softcap must be positive and finite (a normal f32), "
                  "got " +
                  formatDouble(optSoftcap));
    if (optSoftcap.getNumOccurrences())
      p.softcap = optSoftcap;
    p.kvLens.assign(optKVLens.begin(), optKVLens.end());
    if (optPaged > 0 && p.kvLens.empty())
      p.kvLens.assign(size_t(std::max<int64_t>(p.batch, 0)), p.seqK);
    if (std::string why = p.validate(); !why.empty())
      return fail(why);
    if (!p.kvLens.empty() && optMoreSeq.getNumOccurrences())
      return fail("--more-seq does not combine with a KV cache (--kv-lens, "
                  "--paged)");
    for (int64_t n : optMoreSeq)
      if (std::string why = atSeq(p, n).validate(); !why.empty())
        return fail("--more-seq " + std::to_string(n) + ": " + why);
    if (optBackward) {
      // The backward covers dense problems so far: no variant, cache or
      // packed batch, f32/f16/bf16, the CPU path.
      for (const char *flag :
           {"kv-lens", "paged", "varlen", "varlen-k", "kv-splits"})
        if (cl::getRegisteredOptions().lookup(flag)->getNumOccurrences())
          return fail(std::string("unsupported: --") + flag +
                      " with --backward (the backward pass covers dense "
                      "attention, causal or not, with a window, soft-cap, "
                      "ALiBi or dropout, so far)");
      // The score variants' gradients: attn-run checks them on the CPU
      // path (on a GPU the runtime serves them, attn_backward_variant, and
      // tools/scripts/gpu_backward.py builds and checks the compiler's
      // kernels).
      bool variant =
          !optWindow.empty() || optSoftcap.getNumOccurrences() || optAlibi;
      if (variant && optTarget == "gpu")
        return fail("unsupported: --window, --softcap or --alibi with "
                    "--backward on the GPU in attn-run (the runtime's "
                    "attn_backward_variant takes them; "
                    "tools/scripts/gpu_backward.py checks the compiler's "
                    "kernels): --target cpu runs them");
      if (variant)
        optTarget.setValue("cpu");
      if (p.dtype == rt::DType::E4M3)
        return fail("unsupported: --dtype e4m3 with --backward");
      // On the GPU the backward runs as an application runs it: through
      // the runtime's kernels (bundle or libattn_jit), not a kernel of
      // this tool's own tuning.
      if (optTarget != "cpu" &&
          (optChip.getNumOccurrences() || optBlockQ.getNumOccurrences() ||
           optBlockKV.getNumOccurrences()))
        return fail("unsupported: --chip, --block-q or --block-kv with "
                    "--backward on the GPU (the runtime's kernels run it); "
                    "add --target cpu for the CPU path");
    }
    if (optBias && optBackward)
      return fail("unsupported: --bias with --backward (the gradient has no "
                  "bias yet)");
    if (optDropout.getNumOccurrences() && optBackward && optTarget == "gpu")
      return fail("unsupported: --dropout with --backward on the GPU (the "
                  "runtime's backward takes no dropout yet; the compiler's "
                  "kernels do: tools/scripts/gpu_backward.py build "
                  "--dropout); --target cpu runs it");
    if (optDropout.getNumOccurrences() && p.dtype == rt::DType::E4M3)
      return fail("unsupported: --dropout with --dtype e4m3");
    module = optBackward ? buildGradModule(ctx, p) : buildModule(ctx, p);
    if (failed(mlir::verify(module->getOperation())))
      return fail("the problem does not form a valid attn.attention");
    biasArg = BiasArg();
    biasArg.present = optBias;
    dropoutPresent = optDropout.getNumOccurrences() > 0;
    if (optAlibi) {
      if (failed(expandAlibi(*module)))
        return 1;
      // The slopes (after q, k, v, o and the LSE; the backward's last): the
      // capture of the region, filled with fresh values in [0, 1).
      auto fn = *module->getOps<func::FuncOp>().begin();
      Capture c;
      c.arg = optBackward
                  ? fn.getArgument(fn.getNumArguments() - 1)
                  : fn.getArgument((optLse ? 5 : 4) + (optBias ? 1 : 0));
      c.isFloat = true;
      c.shape = {p.headsQ};
      captures.clear();
      captures.push_back(std::move(c));
    }
  } else {
    if (optBackward && (optDropout.getNumOccurrences() || optAlibi ||
                        !optWindow.empty() || optMoreSeq.getNumOccurrences()))
      return fail("--dropout, --alibi, --window and --more-seq with "
                  "--backward need the problem from flags, not an input "
                  "file (the file's attn.attention_grad says its variant)");
    if (optKVSplits.getNumOccurrences())
      return fail("--kv-splits needs the problem from flags, not an input "
                  "file");
    if (optKVLens.getNumOccurrences() || optPaged.getNumOccurrences() ||
        optVarlen.getNumOccurrences() || optSoftcap.getNumOccurrences())
      return fail("--kv-lens, --paged, --varlen and --softcap need the "
                  "problem from flags, not an input file (the file's "
                  "attn.attention says its softcap)");
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (std::error_code ec = buffer.getError())
      return fail("cannot open '" + inputFile + "': " + ec.message());
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
    if (!module)
      return 1; // the parser reported where
    if (failed(expandAlibi(*module)))
      return 1;
    func::FuncOp fn;
    if (optBackward) {
      // The backward of a file's attn.attention_grad (its score_mod and
      // mask_mod too) on the CPU path, against float64 gradients.
      mlir::attn::AttentionGradOp g;
      if (failed(findGradEntry(*module, fn, g)) || failed(problemFromOp(g, p)))
        return 1;
      if (optCausal.getNumOccurrences() && optCausal != p.causal)
        return fail("--causal disagrees with the IR");
      if (std::string why = p.validate(); !why.empty())
        return fail(why);
      if (failed(checkBufferLayouts(g, p)))
        return 1;
      if (optTarget == "gpu")
        return fail("unsupported: --backward from a file on the GPU "
                    "(attn-run checks a file's backward on the CPU path; "
                    "tools/scripts/gpu_backward.py builds GPU kernels)");
      optTarget.setValue("cpu");
      entryName = fn.getSymName().str();
      dropoutPresent = false;
      biasArg = BiasArg();
      blockMask = BlockMaskArgs();
    } else {
      mlir::attn::AttentionOp op;
      if (failed(findEntry(*module, fn, op)) || failed(problemFromOp(op, p)))
        return 1;
      if (optCausal.getNumOccurrences() && optCausal != p.causal)
        return fail("--causal disagrees with the IR");
      if (optBias && !biasArg.present)
        return fail("--bias disagrees with the IR, whose attn.attention has no "
                    "bias operand");
      if (optDropout.getNumOccurrences() && !dropoutPresent)
        return fail("--dropout disagrees with the IR, whose attn.attention has "
                    "no dropout operands");
      if (dropoutPresent && !optDropout.getNumOccurrences())
        return fail("the IR's attn.attention takes dropout(...): give its rate "
                    "with --dropout P");
      if (!optWindow.empty())
        return fail("--window needs the problem from flags, not an input file "
                    "(the IR's window_left / window_right say it)");
      if (std::string why = p.validate(); !why.empty())
        return fail(why);
      if (failed(checkBufferLayouts(op, p)))
        return 1;
      if (optMoreSeq.getNumOccurrences())
        return fail("--more-seq needs the problem from flags, not an input "
                    "file");
      entryName = fn.getSymName().str();
      optLse.setValue(static_cast<bool>(op.getLse()));
      dynamicScale = static_cast<bool>(op.getDynamicScale());
    }
  }
  // Dropout: the rate from --dropout, a fresh key unless --dropout-seed
  // gives one; the reference drops what the kernel's mask drops.
  if (dropoutPresent) {
    if (!(optDropout >= 0.0 && optDropout < 1.0))
      return fail("--dropout must be in [0, 1), got " +
                  formatDouble(optDropout));
    p.dropout = true;
    p.dropoutRate = static_cast<float>(optDropout);
    p.dropoutSeed =
        optDropoutSeed.getNumOccurrences()
            ? uint64_t(optDropoutSeed)
            : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
    p.dropoutOffset = optDropoutOffset;
    llvm::outs() << llvm::format(
        "  dropout p=%g seed=%llu offset=%u\n", double(p.dropoutRate),
        (unsigned long long)p.dropoutSeed, unsigned(p.dropoutOffset));
  } else if (optDropoutSeed.getNumOccurrences() ||
             optDropoutOffset.getNumOccurrences()) {
    return fail("--dropout-seed and --dropout-offset need --dropout");
  }
  // The reference applies the op's score_mod (from the file or --softcap);
  // block lists are built from it too. (The backward's op: its regions.)
  Region *scoreModRegion = nullptr, *maskModRegion = nullptr;
  module->walk([&](Operation *o) {
    if (auto a = dyn_cast<mlir::attn::AttentionOp>(o)) {
      scoreModRegion = &a.getScoreMod();
      maskModRegion = &a.getMaskMod();
    } else if (auto g = dyn_cast<mlir::attn::AttentionGradOp>(o)) {
      scoreModRegion = &g.getScoreMod();
      maskModRegion = &g.getMaskMod();
    }
  });
  bool hasMaskMod = maskModRegion && !maskModRegion->empty();
  if (optGenerateBlockLists && (!blockMask.present || !hasMaskMod))
    return fail("--generate-block-lists needs an input file whose "
                "attn.attention takes block_mask(...) and a mask_mod region "
                "(the lists are built from it)");
  if (optGenerateBlockLists && optBlockMaskDrop != 0.0)
    return fail("--generate-block-lists builds exact lists: not with "
                "--block-mask-drop");
  // (--alibi's region reads Nk − Nq from the dims: the reference applies
  // ALiBi itself, below.)
  if (optCheck || blockMask.present || hasMaskMod) {
    if (scoreModRegion && !scoreModRegion->empty() && !alibiExpanded &&
        failed(scoreModFunction(scoreModRegion->front(), p.scoreMod,
                                scoreModFault)))
      return 1;
    maskMod = nullptr;
    if (hasMaskMod &&
        failed(maskModFunction(maskModRegion->front(), maskMod, scoreModFault)))
      return 1;
  }
  // --alibi: the reference applies ALiBi's own definition (not the region
  // the built-in became): S − slope[h]·|i + Nk − Nq − j|.
  if (optCheck && alibiExpanded && !optBackward) {
    const int64_t offset = p.seqK - p.seqQ;
    p.scoreMod = [offset](double s, int64_t, int64_t h, int64_t i, int64_t j) {
      return s - double(alibiCapture()->f[size_t(h)]) *
                     double(std::llabs(i + offset - j));
    };
  }
  // A bias: S' = scale·S + bias[b', h', i, j], then the score_mod.
  if (biasArg.present) {
    auto inner = p.scoreMod;
    p.scoreMod = [inner](double s, int64_t b, int64_t h, int64_t i, int64_t j) {
      double x = s + biasAt(b, h, i, j);
      return inner ? inner(x, b, h, i, j) : x;
    };
  }
  // Block sparsity and mask_mod: attn-run lists the blocks that hold a
  // visible key (from the op's own masks, buildBlockLists); the reference
  // masks every key of an unlisted block, and where the mask_mod says so
  // outside the full blocks.
  if (blockMask.present || maskMod) {
    rawScoreMod = p.scoreMod;
    const bool lists = blockMask.present;
    p.scoreMod = [lists](double s, int64_t b, int64_t h, int64_t i, int64_t j) {
      int kind = lists ? blockKind(b, h, i, j) : 1;
      double x = rawScoreMod ? rawScoreMod(s, b, h, i, j) : s;
      if (kind == 0 || (kind == 1 && maskMod && !maskMod(b, h, i, j)))
        return -std::numeric_limits<double>::infinity();
      return x;
    };
  }

  // Refuse, before compiling or allocating, a problem whose buffers would
  // not fit in memory (it would be killed, or swap for hours).
  if (double limit = hostMemoryLimit(); limit > 0) {
    double need = hostBytes(p, optCheck);
    for (int64_t n : optMoreSeq) // --more-seq: the largest shape counts
      need = std::max(need, hostBytes(atSeq(p, n), optCheck));
    if (need > limit)
      return fail(llvm::formatv("problem too large for this machine: its "
                                "host buffers need {0:F1} GiB, but {1} "
                                "allows {2:F1} GiB",
                                need / (1 << 30),
                                optHostMemoryMiB != 0
                                    ? "--host-memory-limit"
                                    : "physical memory less 1/8",
                                limit / (1 << 30))
                      .str());
  }

  if (optKVSplits < 0)
    return fail("--kv-splits must be >= 0, got " +
                std::to_string(int64_t(optKVSplits)));
  if (optKVSplits > 0 && optTarget == "gpu")
    return fail("--kv-splits is for the CPU path (the GPU runtime chooses "
                "its splits itself)");
  if (optKVSplits > 0 && optTarget == "auto")
    optTarget.setValue("cpu");
  if ((!p.kvLens.empty() || !p.varlenQ.empty()) && optTarget == "gpu")
    return fail("unsupported: a KV cache (--kv-lens, --paged) or a packed "
                "batch (--varlen) on --target gpu: attn-run runs them on the "
                "CPU path");
  if ((!p.kvLens.empty() || !p.varlenQ.empty()) && optTarget == "auto")
    optTarget.setValue("cpu");
  if (optTarget != "cpu" && optMoreSeq.getNumOccurrences())
    return fail("--more-seq is for the CPU path (--target cpu)");
  // The runtime's kernels take (q, k, v, o, lse, scale) and may pack the
  // query heads of a GQA group into rows: a score_mod that reads captures
  // or positions runs on the CPU path.
  bool positional = false;
  module->walk([&](mlir::attn::AttentionOp a) {
    positional |= a.scoreModUsesPositions() || a.hasMaskMod();
  });
  // --alibi from flags: the runtime takes ALiBi's slopes (its kernels are
  // built with them), not a general capture.
  const bool alibiFlags = optAlibi && inputFile.empty();
  if (alibiFlags && optTarget != "cpu" &&
      (optChip.getNumOccurrences() || optBlockQ.getNumOccurrences() ||
       optBlockKV.getNumOccurrences()))
    return fail("unsupported: --alibi with --chip, --block-q or --block-kv on "
                "the GPU (ALiBi runs through the runtime's kernels)");
  // --dropout from flags: the runtime's dropout kernels (the bundle's, else
  // libattn_jit's) take rate, key and offset; a file's op runs on the CPU
  // path.
  const bool dropoutFlags = dropoutPresent && inputFile.empty();
  if (dropoutPresent && !dropoutFlags && optTarget == "gpu")
    return fail("unsupported: a file's dropout on --target gpu (the runtime "
                "runs dropout from flags, --dropout P): attn-run runs it on "
                "the CPU path; tools/scripts/gpu_programs.py runs it on a "
                "GPU");
  if (dropoutFlags && optTarget != "cpu" &&
      (optChip.getNumOccurrences() || optBlockQ.getNumOccurrences() ||
       optBlockKV.getNumOccurrences()))
    return fail("unsupported: --dropout with --chip, --block-q or --block-kv "
                "on the GPU (dropout runs through the runtime's kernels)");
  if (dropoutPresent && !dropoutFlags && optTarget == "auto")
    optTarget.setValue("cpu");
  // The gradient's dropout: the CPU path (the runtime's backward has none).
  if (dropoutPresent && optBackward && optTarget == "auto")
    optTarget.setValue("cpu");
  if (blockMask.present && optTarget == "gpu")
    return fail("unsupported: block_mask on --target gpu (the runtime's "
                "kernel ABI takes no block lists): attn-run runs it on the "
                "CPU path; tools/scripts/gpu_programs.py runs it on a GPU");
  if (blockMask.present && optTarget == "auto")
    optTarget.setValue("cpu");
  if ((positional || !captures.empty()) && optTarget == "gpu" && !alibiFlags)
    return fail("unsupported: a score_mod that reads b, h, q_idx, kv_idx or "
                "captured memrefs (ALiBi's slopes too) on --target gpu (the "
                "runtime's kernel ABI "
                "has no captures and packs GQA query heads into rows): "
                "attn-run runs it on the CPU path");
  if ((positional || !captures.empty()) && optTarget == "auto" && !alibiFlags)
    optTarget.setValue("cpu");
  if (optTarget != "cpu") {
    GPUOutcome g = runOnGPU(ctx, *module, p);
    if (g.status != GPUOutcome::Unavailable || optTarget == "gpu")
      return g.exitCode;
    llvm::outs() << "attn-run: not on the GPU (" << g.why
                 << "); running on the CPU\n";
  }

  // GQA decoding (one query row, a problem from flags, one shape): the
  // kernel of the packed view, as the GPU runtime runs it — K and V read
  // once per group of G query heads instead of G times.
  rt::Problem kernelShape = p;
  if (inputFile.empty() && !optBackward && !optMoreSeq.getNumOccurrences() &&
      optKVSplits <= 0 && !optBias && !optAlibi && p.varlenQ.empty()) {
    rt::ForwardProblem fp;
    fp.shape() = p.shape();
    fp.withLse = optLse;
    rt::ForwardProblem packed = rt::packQueryHeads(fp);
    if (packed.seqQ != fp.seqQ) {
      packedRows = packed.seqQ;
      kernelShape.shape() = packed.shape();
      module = buildModule(ctx, kernelShape);
      if (failed(mlir::verify(module->getOperation())))
        return fail("the packed GQA problem does not form a valid "
                    "attn.attention");
    }
  }
  // A short query from flags takes a query block that fits it (the tiles'
  // rows are computed whether valid or not): 16, 32 or 64 rows for up to
  // that many (bf16, D = 128, Nk = 8k, 2 threads, Zen 5: Nq = 16 / 32 / 64
  // 1.28 / 1.92 / 3.51 ms against 6.1-6.3 with 128-row blocks; Nq = 100
  // keeps 128; the backward at Nq = 16 / 48 / 64, Nk = 4k: 6.9 / 12.2 /
  // 12.5 ms against 17.1 / 16.4 / 21.1). Not for --more-seq (its kernel
  // serves other lengths), --kv-splits (the merge keeps its own rows) or a
  // file (the option would override its op's blocks, and a block mask's
  // rows must divide the mask's).
  int64_t blockQ = optBlockQ;
  if (!optBlockQ.getNumOccurrences() && !optMoreSeq.getNumOccurrences() &&
      inputFile.empty() && optKVSplits <= 0 && kernelShape.varlenQ.empty() &&
      kernelShape.seqQ <= 64)
    blockQ = std::max<int64_t>(16, llvm::PowerOf2Ceil(kernelShape.seqQ));

  // Expose the C interface (_mlir_ciface_<name>) for the JIT call.
  module->walk([&](func::FuncOp fn) {
    if (fn.getSymName() == entryName)
      fn->setAttr("llvm.emit_c_interface", UnitAttr::get(&ctx));
  });
  if (optPrintIR)
    module->print(llvm::outs());

  // The grid's OpenMP threads: --threads, else OMP_NUM_THREADS (what an
  // OpenMP program would take), else one per core.
  unsigned threads = optThreads;
  if (!optThreads.getNumOccurrences()) {
    threads = std::max(1u, std::thread::hardware_concurrency());
    if (const char *env = std::getenv("OMP_NUM_THREADS")) {
      unsigned n = 0;
      if (!StringRef(env).trim().getAsInteger(10, n) && n > 0)
        threads = n;
    }
  }

  // The instruction sets: the host's highest unless --cpu-features names a
  // lower one (so that every path runs on a host that has the highest).
  mlir::attn::CPUFeatures host = mlir::attn::hostCPUFeatures();
  mlir::attn::CPUFeatures level = host;
  if (!optCpuFeatures.empty()) {
    std::optional<mlir::attn::CPUFeatures> asked =
        mlir::attn::parseCPUFeatures(optCpuFeatures);
    if (!asked) {
      SmallVector<std::string> names;
      for (mlir::attn::CPUFeatures l : mlir::attn::kCPUFeatureLevels)
        names.push_back(mlir::attn::cpuFeaturesName(l).str());
      std::string last = names.pop_back_val();
      return fail("--cpu-features must be " + llvm::join(names, ", ") + " or " +
                  last + ", got '" + optCpuFeatures + "'");
    }
    // avx2 stays allowed on any x86-64 (LLVM legalises its vectors for
    // what the host has); a higher level needs its instructions.
    if (std::string missing = mlir::attn::missingCPUFeatures(*asked);
        *asked > mlir::attn::CPUFeatures::AVX2 && !missing.empty())
      return fail("unsupported: --cpu-features=" + optCpuFeatures +
                  " on this host, whose CPU lacks " + missing);
    level = *asked;
  }
  if (level == mlir::attn::CPUFeatures::AMX) {
    if (std::string why = requestAMXTiles(); !why.empty())
      return fail("unsupported: AMX tiles on this host: " + why +
                  " (--cpu-features=avx512 runs without them)");
  }
  if (optCpuTileM < 0 || optCpuTileN < 0)
    return fail("--cpu-tile-m and --cpu-tile-n must be >= 0 (0: the "
                "pipeline's default), got " +
                std::to_string(int64_t(optCpuTileM)) + " and " +
                std::to_string(int64_t(optCpuTileN)));
  int64_t tileM = optCpuTileM, tileN = optCpuTileN;

  llvm::outs() << "attn-run: target=cpu dtype=" << rt::dtypeName(p.dtype)
               << " B=" << p.batch << " Hq=" << p.headsQ << " Hkv=" << p.headsKV
               << " Nq=" << p.seqQ << " Nk=" << p.seqK << " D=" << p.headDim
               << " Dv=" << p.headDimV << " causal=" << p.causal
               << " scale=" << p.effectiveScale() << " threads=" << threads
               << (threads == 0 ? " (OpenMP default)" : "")
               << (optNoFuse ? " (naive three-pass softmax)" : "")
               << (optBackward ? " backward" : "")
               << " cpu-features=" << mlir::attn::cpuFeaturesName(level);
  if (tileM)
    llvm::outs() << " cpu-tile-m=" << tileM;
  if (tileN)
    llvm::outs() << " cpu-tile-n=" << tileN;
  if (optKVSplits > 0)
    llvm::outs() << " kv-splits=" << int64_t(optKVSplits);
  if (!p.kvLens.empty())
    llvm::outs() << " kv-cache=" << (optPaged > 0 ? "paged" : "seqlens");
  if (optPaged > 0)
    llvm::outs() << " page=" << int64_t(optPaged);
  if (!p.varlenQ.empty())
    llvm::outs() << " varlen=" << p.varlenQ.size() << " sequences";
  if (packedRows > 1)
    llvm::outs() << " gqa-packed=" << packedRows << " rows a head";
  if (blockQ)
    llvm::outs() << " block-q=" << blockQ;
  llvm::outs() << "\n";

  // Compile: attn pipeline to the LLVM dialect, then LLVM at O3.
  auto t0 = std::chrono::steady_clock::now();
  {
    PassManager pm(&ctx);
    mlir::attn::TilingPipelineOptions opts;
    opts.target = "cpu";
    opts.blockQ = blockQ;
    opts.blockKV = optBlockKV;
    opts.fuse = !optNoFuse;
    opts.rescaleThreshold = optRescaleThreshold;
    opts.threads = threads;
    opts.cpuTileM = tileM;
    opts.cpuTileN = tileN;
    opts.cpuFeatures = level;
    if (optGenerateBlockLists)
      pm.addPass(mlir::attn::createAttnGenerateBlockLists());
    mlir::attn::buildCPUPipeline(pm, opts);
    if (failed(pm.run(*module)))
      return fail("compilation failed");
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return fail("cannot detect the host: " +
                llvm::toString(tmBuilder.takeError()));
  tmBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return fail("cannot create a target machine: " +
                llvm::toString(tm.takeError()));
  // ExecutionEngineOptions holds a function_ref: keep the callee alive.
  // Below the host's level, every function is compiled with the features
  // above that level turned off (the host CPU's name alone would let LLVM
  // use them).
  // LLVM's IR pipeline at O2: the module is vector code already, and O3
  // only lengthened the compile (bf16 amx 0.8-1.0 vs 1.1-1.2 s a kernel;
  // run time 1.00x bf16, 0.98x f32, paired rounds, Xeon with AMX).
  std::function<llvm::Error(llvm::Module *)> optimizeO2 =
      makeOptimizingTransformer(2, 0, tm->get());
  std::string cpuName = (*tm)->getTargetCPU().str();
  std::string features = (*tm)->getTargetFeatureString().str();
  if (std::string off = mlir::attn::cpuFeaturesToDisable(level); !off.empty())
    features += (features.empty() ? "" : ",") + off;
  std::function<llvm::Error(llvm::Module *)> optimize =
      [&](llvm::Module *m) -> llvm::Error {
    for (llvm::Function &f : *m)
      if (!f.isDeclaration()) {
        f.addFnAttr("target-cpu", cpuName);
        f.addFnAttr("target-features", features);
      }
    return optimizeO2(m);
  };
  ExecutionEngineOptions eo;
  eo.transformer = optimize;
  eo.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // memrefCopy and, on CPUs without native bf16, __truncsfbf2; the OpenMP
  // runtime (__kmpc_fork_call, ...) for the grid loop.
  std::string libDir = ATTN_MLIR_LIB_DIR;
  std::string runnerUtils = libDir + "/libmlir_c_runner_utils.so";
  std::string f16Utils = libDir + "/libmlir_float16_utils.so";
  std::string libomp = ATTN_LIBOMP;
  if (libomp.empty() || !llvm::sys::fs::exists(libomp))
    return fail("no OpenMP runtime " +
                (libomp.empty() ? std::string("(none found when attn-run was "
                                              "built)")
                                : "at " + libomp) +
                ": the CPU path runs its grid with libomp (Debian: apt-get "
                "install libomp5-14, then re-run cmake)");
  SmallVector<StringRef> libs = {f16Utils, runnerUtils, libomp};
  eo.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*module, eo);
  if (!engine)
    return fail("JIT failed: " + llvm::toString(engine.takeError()));
  std::string symbol = "_mlir_ciface_" + entryName;
  if (auto fn = (*engine)->lookupPacked(symbol); !fn)
    return fail("JIT failed: " + llvm::toString(fn.takeError()));
  double compileMs = msSince(t0);

  // The kernel's shapes are dynamic: the same code runs every length.
  uint64_t firstSeed =
      optSeed.getNumOccurrences() ? uint64_t(optSeed) : std::random_device{}();
  SmallVector<int64_t> seqs = {p.seqQ};
  llvm::append_range(seqs, optMoreSeq);
  int status = 0;
  for (auto [run, n] : llvm::enumerate(seqs)) {
    rt::Problem shape = run ? atSeq(p, n) : p;
    if (run > 0)
      llvm::outs() << "attn-run: same kernel, Nq=" << shape.seqQ
                   << " Nk=" << shape.seqK << "\n";
    // Each shape its own inputs: seeds 3·run apart (Q, K, V take 3).
    int rc = optBackward ? runBackwardAndCheck(shape, **engine, symbol,
                                               firstSeed + 4 * run, compileMs)
                         : runAndCheck(shape, **engine, symbol, dynamicScale,
                                       firstSeed + 3 * run, compileMs);
    if (rc != 0)
      status = rc;
  }
  return status;
}

/// A KV cache's storage built from the contiguous K or V [B, Hkv, Nk, Dh]
/// (`rows` bytes per row): rows past a sequence's key count poisoned (NaN),
/// and with pages of `page` rows, the rows moved into pages [P, Hkv, page,
/// Dh] in a shuffled order, P = the pages used + 2 spare (poisoned), with
/// `table` [B, ceil(Nk / page)] naming each sequence's pages and
/// INT32_MAX in its unused entries: a kernel that reads past a sequence's
/// keys reads NaN or faults, and fails the check.
struct CacheStorage {
  std::vector<int32_t> lens, table;
  int64_t pages = 0, maxPages = 0;
  std::vector<uint8_t> k, v;
};
CacheStorage buildCache(const rt::Problem &p, int64_t page, uint64_t seed,
                        const std::vector<uint8_t> &ks,
                        const std::vector<uint8_t> &vs) {
  CacheStorage c;
  for (int64_t n : p.kvLens)
    c.lens.push_back(int32_t(n));
  size_t elem = rt::dtypeSize(p.dtype);
  int64_t nk = p.seqK;
  // Page of row j of sequence b, and the pages' order.
  std::vector<int64_t> order;
  if (page > 0) {
    c.maxPages = (nk + page - 1) / page;
    int64_t used = 0;
    for (int64_t n : p.kvLens)
      used += (n + page - 1) / page;
    c.pages = used + 2;
    order.resize(size_t(c.pages));
    for (int64_t i = 0; i < c.pages; ++i)
      order[size_t(i)] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    c.table.assign(size_t(p.batch * c.maxPages),
                   std::numeric_limits<int32_t>::max());
    int64_t next = 0;
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t i = 0; i < (p.kvLens[size_t(b)] + page - 1) / page; ++i)
        c.table[size_t(b * c.maxPages + i)] = int32_t(order[size_t(next++)]);
  }
  auto build = [&](const std::vector<uint8_t> &src, int64_t dh,
                   std::vector<uint8_t> &dst) {
    size_t rowBytes = size_t(dh) * elem;
    int64_t rowsOut = page > 0 ? c.pages * page : p.batch * nk;
    rt::fillNaN(p.dtype, size_t(rowsOut * p.headsKV * dh), dst);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t h = 0; h < p.headsKV; ++h)
        for (int64_t j = 0; j < p.kvLens[size_t(b)]; ++j) {
          size_t from = size_t((b * p.headsKV + h) * nk + j) * rowBytes;
          size_t to = from;
          if (page > 0) {
            int64_t pg = c.table[size_t(b * c.maxPages + j / page)];
            to = size_t((pg * p.headsKV + h) * page + j % page) * rowBytes;
          }
          std::memcpy(&dst[to], &src[from], rowBytes);
        }
  };
  build(ks, p.headDim, c.k);
  build(vs, p.headDimV, c.v);
  return c;
}

/// One call of the compiled kernel on fresh random inputs (and the --repeat
/// timed calls), then --check's comparison.
int runAndCheck(const rt::Problem &p, ExecutionEngine &engine,
                const std::string &symbol, bool dynamicScale, uint64_t seed,
                double compileMs) {
  // Fresh random inputs (N(0,1), rounded to the dtype); poisoned outputs.
  std::vector<double> qv, kv, vv;
  std::vector<uint8_t> qs, ks, vs, os, lses;
  rt::fillRandom(p.dtype, seed, p.numQ(), qv, qs);
  rt::fillRandom(p.dtype, seed + 1, p.numK(), kv, ks);
  rt::fillRandom(p.dtype, seed + 2, p.numV(), vv, vs);
  rt::fillNaN(p.dtype, p.numO(), os);
  rt::fillNaN(rt::DType::F32, p.numLse(), lses);

  // Packed GQA rows: Q, O and the LSE seen as Hkv heads of G rows (the
  // same bytes, one query row each).
  const int64_t kHeadsQ = p.headsQ / packedRows, kSeqQ = p.seqQ * packedRows;
  auto qd = describe<4>(qs.data(), {p.batch, kHeadsQ, kSeqQ, p.headDim});
  auto kd = describe<4>(ks.data(), {p.batch, p.headsKV, p.seqK, p.headDim});
  auto vd = describe<4>(vs.data(), {p.batch, p.headsKV, p.seqK, p.headDimV});
  // A KV cache: K and V as the cache holds them, its lengths and table.
  bool cache = !p.kvLens.empty();
  int64_t page = optPaged;
  CacheStorage cs;
  if (cache) {
    cs = buildCache(p, page, seed + 3, ks, vs);
    int64_t blocks = page > 0 ? cs.pages : p.batch;
    int64_t rows = page > 0 ? page : p.seqK;
    kd = describe<4>(cs.k.data(), {blocks, p.headsKV, rows, p.headDim});
    vd = describe<4>(cs.v.data(), {blocks, p.headsKV, rows, p.headDimV});
  }
  // A packed batch: the offsets of each sequence's first row.
  std::vector<int32_t> cuQ = {0}, cuK = {0};
  for (size_t s = 0; s < p.varlenQ.size(); ++s) {
    cuQ.push_back(cuQ.back() + int32_t(p.varlenQ[s]));
    cuK.push_back(cuK.back() + int32_t(p.varlenK[s]));
  }
  auto cuQd = describe<1>(cuQ.data(), {int64_t(cuQ.size())});
  auto cuKd = describe<1>(cuK.data(), {int64_t(cuK.size())});
  void *cuQp = &cuQd, *cuKp = &cuKd;
  auto lensd = describe<1>(cs.lens.data(), {p.batch});
  auto tabled = describe<2>(cs.table.data(), {p.batch, cs.maxPages});
  void *lensp = &lensd, *tablep = &tabled;
  auto od = describe<4>(os.data(), {p.batch, kHeadsQ, kSeqQ, p.headDimV});
  auto ld = describe<3>(lses.data(), {p.batch, kHeadsQ, kSeqQ});
  void *qp = &qd, *kp = &kd, *vp = &vd, *op = &od, *lp = &ld;
  SmallVector<void *> args = {&qp, &kp, &vp, &op};
  if (optLse)
    args.push_back(&lp);
  if (biasArg.present) {
    BiasArg &x = biasArg;
    fillBias(x, p, seed + 6);
    x.desc = {int64_t(reinterpret_cast<intptr_t>(x.bytes.data())),
              int64_t(reinterpret_cast<intptr_t>(x.bytes.data())),
              0,
              x.nb,
              x.nh,
              x.nq,
              x.nk,
              x.nh * x.nq * x.nk,
              x.nq * x.nk,
              x.nk,
              1};
    x.ptr = x.desc.data();
    args.push_back(&x.ptr);
  }
  if (cache)
    args.push_back(&lensp);
  if (page > 0)
    args.push_back(&tablep);
  if (!p.varlenQ.empty()) {
    args.push_back(&cuQp);
    args.push_back(&cuKp);
  }
  // The score_mod's captures: fresh random values, the same buffers for the
  // reference.
  fillCaptures(seed + 4);
  // The block lists (from the captures' values), before the captures in the
  // function's arguments.
  if (blockMask.present) {
    if (std::string why = buildBlockLists(p, seed + 5); !why.empty()) {
      llvm::errs() << "attn-run: error: " << why << "\n";
      return 1;
    }
    // --generate-block-lists: the program writes the lists; attn-run's are
    // kept aside and the buffers poisoned (a count or entry the helper
    // leaves unwritten then differs).
    if (optGenerateBlockLists)
      for (BlockMaskArgs::List *l : {&blockMask.partial, &blockMask.fullList}) {
        l->hostCounts = l->counts;
        l->hostIndices = l->indices;
        std::fill(l->counts.begin(), l->counts.end(), -1);
        std::fill(l->indices.begin(), l->indices.end(), -1);
      }
    args.push_back(&blockMask.partial.countsPtr);
    args.push_back(&blockMask.partial.indicesPtr);
    if (blockMask.full) {
      args.push_back(&blockMask.fullList.countsPtr);
      args.push_back(&blockMask.fullList.indicesPtr);
    }
  }
  for (Capture &c : captures)
    args.push_back(&c.descPtr);
  // The kernel evaluates the region at every (b, h, i, j) of the problem,
  // masked pairs too, while the reference visits only the visible ones: a
  // load outside its capture there is found here, before the kernel reads
  // outside the buffer. (Indices computed from the score are seen with a
  // score of 0 here, and with the real ones by the reference.)
  if (optCheck && p.scoreMod && !captures.empty()) {
    const double pairs =
        double(p.batch) * double(p.headsQ) * double(p.seqQ) * double(p.seqK);
    if (pairs > double(1 << 24)) {
      llvm::outs() << "attn-run: note: the score_mod's loads are checked on "
                      "the visible pairs only (the problem has more than "
                      "2^24 (b, h, i, j))\n";
    } else {
      for (int64_t b = 0; b < p.batch && scoreModFault->empty(); ++b)
        for (int64_t h = 0; h < p.headsQ && scoreModFault->empty(); ++h)
          for (int64_t i = 0; i < p.seqQ && scoreModFault->empty(); ++i)
            for (int64_t j = 0; j < p.seqK; ++j)
              (void)p.scoreMod(0.0, b, h, i, j);
      if (!scoreModFault->empty()) {
        llvm::errs() << "attn-run: error: " << *scoreModFault
                     << " (not run: the kernel would read outside it)\n";
        return 1;
      }
    }
  }
  // --kv-splits: the partials, poisoned too (a split that wrote nothing
  // would reach the merge as NaN).
  int64_t splits = optKVSplits;
  std::vector<uint8_t> pos, pls;
  rt::fillNaN(rt::DType::F32, size_t(splits) * p.numO(), pos);
  rt::fillNaN(rt::DType::F32, splits * p.numLse(), pls);
  auto pod =
      describe<5>(pos.data(), {splits, p.batch, p.headsQ, p.seqQ, p.headDimV});
  auto pld = describe<4>(pls.data(), {splits, p.batch, p.headsQ, p.seqQ});
  void *pop = &pod, *plp = &pld;
  if (splits > 0) {
    args.push_back(&pop);
    args.push_back(&plp);
  }
  // A run-time scale is the function's trailing f32 argument.
  float scaleArg = static_cast<float>(p.effectiveScale());
  if (dynamicScale)
    args.push_back(&scaleArg);
  // dropout(p, seed, offset): the trailing arguments.
  DropoutValues dropout(p);
  dropout.append(args);

  // The first call writes into the NaN-poisoned outputs (what --check
  // reads). With --repeat N > 1 it is the warm-up (OpenMP thread pool, page
  // faults), then N timed calls of the kernel alone, median reported; each
  // rewrites the same outputs.
  auto call = [&] { return invokeTimed(engine, symbol, args); };
  double runMs = call();
  if (runMs < 0)
    return 1;
  if (optGenerateBlockLists && optCheck) {
    if (std::string diff = compareGeneratedLists(); !diff.empty()) {
      llvm::outs() << "FAIL: " << diff << "\n";
      return 1;
    }
    llvm::outs() << "  generated block lists: equal to attn-run's\n";
  }
  int repeat = optRepeat.getNumOccurrences() ? optRepeat.getValue() : 1;
  std::vector<double> times;
  for (int i = 0; repeat > 1 && i < repeat; ++i) {
    double ms = call();
    if (ms < 0)
      return 1;
    times.push_back(ms);
  }
  if (!times.empty()) {
    llvm::sort(times);
    runMs = times[times.size() / 2];
  }
  double flops = 4.0 * p.batch * p.headsQ * p.seqQ * p.seqK *
                 double(p.headDim + p.headDimV) / 2.0 * visibleFraction(p);
  std::string medianOf =
      times.empty() ? "" : " median of " + std::to_string(times.size());
  llvm::outs() << llvm::format("  seed=%llu compile=%.1f ms run=%.2f ms%s "
                               "(%.2f GFLOP/s)\n",
                               (unsigned long long)seed, compileMs, runMs,
                               medianOf.c_str(), flops / runMs * 1e-6);
  if (!optCheck)
    return 0;

  return checkOutputs(p, qv, kv, vv, os, lses);
}

/// dQ, dK and dV (stored as p.dtype) against float64 gradients: f32 within
/// 1e-5, f16/bf16 within 2e-2 (P and dS are rounded to the dtype for their
/// products, and O to the dtype before Δ, as in FlashAttention's own
/// backward), no NaN. dQ and dK sum terms that cancel (each row of dS sums
/// to 0): where a row's probability sits on one key, dQ and dK can be 1000
/// times smaller than their terms, and rounding errs in proportion to the
/// terms. So a gradient also passes when its error is within the dtype's
/// unit roundoff (2^-24, 2^-11, 2^-8) of the same sums over the terms' sizes
/// (referenceAttentionGrad's magnitudes); a wrong kernel errs by about the
/// gradient itself, a tenth of those sums or more. Prints a line per
/// gradient.
bool checkGradients(const rt::Problem &p, const std::vector<double> &qv,
                    const std::vector<double> &kv,
                    const std::vector<double> &vv,
                    const std::vector<double> &dov,
                    const std::vector<uint8_t> &dqs,
                    const std::vector<uint8_t> &dks,
                    const std::vector<uint8_t> &dvs) {
  std::vector<double> refDq, refDk, refDv, termsDq, termsDk;
  rt::referenceAttentionGrad(p, qv, kv, vv, dov, refDq, refDk, refDv, &termsDq,
                             &termsDk);
  const double tol = p.dtype == rt::DType::F32 ? 1e-5 : 2e-2;
  const double unitRoundoff = p.dtype == rt::DType::F32   ? 0x1p-24
                              : p.dtype == rt::DType::F16 ? 0x1p-11
                                                          : 0x1p-8;
  bool ok = true;
  struct Grad {
    const char *name;
    const std::vector<uint8_t> &got;
    const std::vector<double> &want;
    const std::vector<double> *terms;
    size_t n;
  };
  for (const Grad &g : {Grad{"dQ", dqs, refDq, &termsDq, p.numQ()},
                        Grad{"dK", dks, refDk, &termsDk, p.numK()},
                        Grad{"dV", dvs, refDv, nullptr, p.numV()}}) {
    std::vector<double> got = rt::decode(p.dtype, g.got.data(), g.n);
    rt::ErrorStats e = rt::compare(got, g.want);
    bool pass = e.nonFinite == 0 && e.relative <= tol;
    llvm::outs() << llvm::format("  check %s: max_abs=%.3e rel=%.3e ", g.name,
                                 e.maxAbs, e.relative);
    if (g.terms) {
      // ||got − want|| / ||Σ|terms|||, the error measured against the sizes
      // rounding scales with.
      double num = 0, den = 0;
      for (size_t i = 0; i < g.n; ++i) {
        double d = got[i] - g.want[i];
        num += std::isfinite(d) ? d * d : 0.0;
        den += (*g.terms)[i] * (*g.terms)[i];
      }
      double ofTerms = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
      pass = e.nonFinite == 0 && (e.relative <= tol || ofTerms <= unitRoundoff);
      llvm::outs() << llvm::format("rel_terms=%.3e ", ofTerms);
    }
    llvm::outs() << llvm::format("non_finite=%zu (tolerance rel %.0e",
                                 e.nonFinite, tol);
    if (g.terms)
      llvm::outs() << llvm::format(" or rel_terms %.1e", unitRoundoff);
    llvm::outs() << ")\n";
    ok = ok && pass;
  }
  return ok;
}

/// --backward: fresh Q, K, V and dO; O (rounded to the dtype) and the LSE
/// (f32) from the float64 forward, as a training step would hand them over;
/// dQ, dK, dV and Δ poisoned (NaN) before the run. --check compares the
/// gradients with float64 ones and runs again: the second run's outputs
/// must be bit-identical (the backward is deterministic).
int runBackwardAndCheck(const rt::Problem &problem, ExecutionEngine &engine,
                        const std::string &symbol, uint64_t seed,
                        double compileMs) {
  // --alibi: fresh slopes (the region's capture), which the reference
  // applies as ALiBi itself (for this shape's Nk − Nq).
  rt::Problem p = problem;
  fillCaptures(seed ^ 0x9e3779b97f4a7c15ull);
  if (alibiExpanded) {
    const Capture *slopes = alibiCapture();
    if (!slopes) {
      llvm::errs() << "attn-run: error: ALiBi's slopes are not an f32 "
                      "argument attn-run fills\n";
      return 1;
    }
    p.alibi = true;
    p.alibiSlopes.assign(slopes->f.begin(), slopes->f.end());
  }
  std::vector<double> qv, kv, vv, dov, ov, lsev;
  std::vector<uint8_t> qs, ks, vs, dos, os, lses;
  rt::fillRandom(p.dtype, seed, p.numQ(), qv, qs);
  rt::fillRandom(p.dtype, seed + 1, p.numK(), kv, ks);
  rt::fillRandom(p.dtype, seed + 2, p.numV(), vv, vs);
  rt::fillRandom(p.dtype, seed + 3, p.numO(), dov, dos);
  rt::referenceAttention(p, qv, kv, vv, ov, lsev);
  // The forward's outputs as a kernel would have stored them.
  os = rt::encode(p.dtype, ov);
  lses = rt::encode(rt::DType::F32, lsev);
  std::vector<uint8_t> dqs, dks, dvs, deltas;
  rt::fillNaN(p.dtype, p.numQ(), dqs);
  rt::fillNaN(p.dtype, p.numK(), dks);
  rt::fillNaN(p.dtype, p.numV(), dvs);
  rt::fillNaN(rt::DType::F32, p.numLse(), deltas);
  std::array<int64_t, 4> qShape = {p.batch, p.headsQ, p.seqQ, p.headDim},
                         oShape = {p.batch, p.headsQ, p.seqQ, p.headDimV},
                         kShape = {p.batch, p.headsKV, p.seqK, p.headDim},
                         vShape = {p.batch, p.headsKV, p.seqK, p.headDimV};
  std::array<int64_t, 3> rowShape = {p.batch, p.headsQ, p.seqQ};
  auto dod = describe<4>(dos.data(), oShape);
  auto qd = describe<4>(qs.data(), qShape);
  auto kd = describe<4>(ks.data(), kShape);
  auto vd = describe<4>(vs.data(), vShape);
  auto od = describe<4>(os.data(), oShape);
  auto ld = describe<3>(lses.data(), rowShape);
  auto dqd = describe<4>(dqs.data(), qShape);
  auto dkd = describe<4>(dks.data(), kShape);
  auto dvd = describe<4>(dvs.data(), vShape);
  auto deltad = describe<3>(deltas.data(), rowShape);
  void *ptrs[] = {&dod, &qd, &kd, &vd, &od, &ld, &dqd, &dkd, &dvd, &deltad};
  SmallVector<void *> args;
  for (void *&ptr : ptrs)
    args.push_back(&ptr);
  // Dropout's operands: the forward's (the reference dropped O with them);
  // then the captures.
  DropoutValues dropout(p);
  dropout.append(args);
  for (Capture &c : captures)
    args.push_back(&c.descPtr);

  auto call = [&] { return invokeTimed(engine, symbol, args); };
  double runMs = call();
  if (runMs < 0)
    return 1;
  // The first run's outputs, for the determinism check.
  std::vector<uint8_t> first[] = {dqs, dks, dvs, deltas};
  int repeat = optRepeat.getNumOccurrences() ? optRepeat.getValue() : 1;
  std::vector<double> times;
  for (int i = 0; (repeat > 1 && i < repeat) || (optCheck && i < 1); ++i) {
    double ms = call();
    if (ms < 0)
      return 1;
    times.push_back(ms);
  }
  if (repeat > 1 && !times.empty()) {
    llvm::sort(times);
    runMs = times[times.size() / 2];
  }
  // FlashAttention's count: the backward is 2.5 times the forward's FLOPs
  // (five products of the forward's two's size), over the visible pairs.
  double flops = 2.5 * 4.0 * p.batch * p.headsQ * p.seqQ * p.seqK *
                 double(p.headDim + p.headDimV) / 2.0 * visibleFraction(p);
  std::string medianOf = repeat > 1 && !times.empty()
                             ? " median of " + std::to_string(times.size())
                             : "";
  llvm::outs() << llvm::format("  seed=%llu compile=%.1f ms backward=%.2f ms%s "
                               "(%.2f GFLOP/s)\n",
                               (unsigned long long)seed, compileMs, runMs,
                               medianOf.c_str(), flops / runMs * 1e-6);
  if (!optCheck)
    return 0;

  bool ok = checkGradients(p, qv, kv, vv, dov, dqs, dks, dvs);
  // Δ_i = dO_i·O_i of the stored (rounded) O, computed in f32.
  std::vector<double> refDelta(p.numLse(), 0.0);
  std::vector<double> oRounded = rt::decode(p.dtype, os.data(), p.numO());
  for (size_t r = 0; r < p.numLse(); ++r)
    for (int64_t c = 0; c < p.headDimV; ++c)
      refDelta[r] += dov[r * size_t(p.headDimV) + size_t(c)] *
                     oRounded[r * size_t(p.headDimV) + size_t(c)];
  rt::ErrorStats ed = rt::compare(
      rt::decode(rt::DType::F32, deltas.data(), p.numLse()), refDelta);
  bool deltaOk = ed.nonFinite == 0 && ed.relative <= 1e-5;
  llvm::outs() << llvm::format("  check delta: max_abs=%.3e rel=%.3e "
                               "non_finite=%zu (tolerance rel 1e-05)\n",
                               ed.maxAbs, ed.relative, ed.nonFinite);
  ok = ok && deltaOk;
  bool same = first[0] == dqs && first[1] == dks && first[2] == dvs &&
              first[3] == deltas;
  llvm::outs() << "  deterministic: "
               << (same ? "second run bit-identical\n"
                        : "second run DIFFERS\n");
  ok = ok && same;
  llvm::outs() << (ok ? "  PASS\n" : "  FAIL\n");
  return ok ? 0 : 1;
}
