//===- attn-bundle.cpp - ahead-of-time kernels for the runtime --*- C++ -*-===//
//
// Compiles one attn.attention per configuration (dtype × head dim × causal ×
// LSE; e4m3 at head dims 128 and 256 on sm_90a) through the attn-codegen
// pipeline for each chip, and writes a bundle the runtime loads: one PTX file
// per (kernel, chip), with --ptxas the kernel assembled by ptxas into SASS (a
// cubin) for every --sass-chips chip, and a manifest.txt line per (kernel, PTX
// chip) with what the launcher needs (taken from the kernel's attn.kernel
// attribute) and the cubins made from that PTX:
//
//   kernel name=... ptx=....sm_80.ptx chip=sm_80 dtype=bf16 head_dim=128
//          head_dim_v=128 causal=1 block_m=128 block_n=64 threads=256
//          smem=65536 abi=memref lse=1
//          sass=sm_80:....sm_80.cubin,sm_86:....sm_86.cubin,...
//
// The cubin of chip X comes from the best PTX for X: the highest PTX chip
// that can be assembled for X (sm_80 PTX for sm_80, sm_86, sm_89; sm_90a PTX
// for sm_90a): bestPtxFor of runtime/include/attn/runtime/Bundle.h, the
// runtime's own chip rules. ptxas runs in parallel (--jobs)
// while later kernels are still being generated, with -v: its resource
// usage per cubin goes to ptxas-report.txt beside the manifest,
//
//   <kernel> <chip> <registers> <spill store bytes> <spill load bytes>
//   <ptxas "Potential Performance Loss" notes: wgmma serialised, ...>
//
// (tools/scripts/ptxas_check.sh --report checks it: no spills).
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/Bundle.h"
#include "attn/runtime/Chips.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <deque>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("attn-bundle options");
static cl::opt<std::string> outDir("out-dir", cl::desc("Bundle directory"),
                                   cl::Required, cl::cat(category));
static cl::list<std::string>
    inputs(cl::Positional,
           cl::desc("[problem.mlir ...]: an attn.attention (or "
                    "attn.merge_splits) a file, compiled for "
                    "every chip under its function's name; "
                    "with inputs, the built-in set only if "
                    "--dtypes or --head-dims is given"),
           cl::cat(category));
static cl::list<std::string> chips("chips", cl::desc("GPU chips"),
                                   cl::CommaSeparated, cl::cat(category));
static cl::list<std::string> dtypes("dtypes", cl::desc("f16, bf16, e4m3"),
                                    cl::CommaSeparated, cl::cat(category));
static cl::list<int64_t> headDims("head-dims", cl::desc("Head dims"),
                                  cl::CommaSeparated, cl::cat(category));
// Tuning knobs: attn-codegen's own options (the pipeline's defaults are the
// product's), as one string, e.g. --codegen="kv-stages=1 pingpong=1". The
// chip comes from --chips.
static cl::opt<std::string>
    codegen("codegen",
            cl::desc("attn-codegen pipeline options for every kernel "
                     "(attn-opt --help lists them; not chip)"),
            cl::init(""), cl::cat(category));
// The split-KV kernels' knobs on sm_90a, after --codegen: decoding reads
// every key once and has few query rows, so its kernel wants a deep ring
// more than a second consumer warpgroup.
static cl::opt<std::string> splitCodegen(
    "split-codegen",
    cl::desc("attn-codegen options added for the split-KV kernels on sm_90a "
             "(after --codegen)"),
    cl::init(""), cl::cat(category));
// The KV-cache and packed-batch kernels' knobs on sm_90a, after --codegen
// (and --split-codegen for the split kernel), for experiments: their key
// blocks are attn-select-gpu-blocks' choice (64 rows up to D = 128: any
// page size that is a multiple of 64).
static cl::opt<std::string> cacheCodegen(
    "kv-cache-codegen",
    cl::desc("attn-codegen options added for the KV cache kernels (kv "
             "seqlens and paged) on sm_90a (after --codegen and "
             "--split-codegen)"),
    cl::init(""), cl::cat(category));
// vLLM's default page of 16 rows is smaller than every kernel's key block:
// those pages get kernels compiled for them (a static page size, the key
// block shrunk to it; manifest key page=).
static cl::list<int64_t> kvPageSizes(
    "kv-page-sizes",
    cl::desc("Page sizes (powers of two in [16, 64)) that get paged kernels "
             "of their own, beside the kernels of any multiple of the key "
             "block (default 16)"),
    cl::CommaSeparated, cl::cat(category));
// Their knobs on sm_90a, for experiments: the pipeline's own choice for
// such pages (attn-select-gpu-blocks' 64-row query blocks, the deep ring of
// attn-pipeline-kv-loop's automatic stages) is the measured best.
static cl::opt<std::string> smallPageCodegen(
    "small-page-codegen",
    cl::desc("attn-codegen options added on sm_90a for the kernels of one "
             "small page size (--kv-page-sizes; after --codegen and "
             "--split-codegen)"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string>
    ptxasPath("ptxas",
              cl::desc("ptxas to assemble each kernel into SASS (cubins) "
                       "with; without it the bundle is PTX only"),
              cl::cat(category));
static cl::list<std::string> sassChips(
    "sass-chips",
    cl::desc("Chips to assemble SASS for (needs --ptxas; default: the chip "
             "table's bundle chips, attn/runtime/Chips.h, that a --chips PTX "
             "serves)"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<unsigned>
    jobs("jobs", cl::desc("ptxas processes at a time (0: one per core)"),
         cl::init(0), cl::cat(category));

namespace {

/// The name of a bundle kernel's function (the kernel is "<name>_kernel"):
/// attn_fwd_<dt>_d<D>[_causal][_nolse], attn_split_<dt>_d<D>[_causal],
/// attn_merge_<dt>_d<D>[_nolse], attn_bwd_<dt>_d<D>[_causal] (the backward:
/// its grad_q kernel "<name>_kernel", its grad_kv kernel "<name>_kernel_1").
std::string kernelName(::attn::Program program, Type et, int64_t d, bool causal,
                       bool withLse) {
  const bool grad = ::attn::isBackwardProgram(program);
  const char *kind = program == ::attn::Program::Attention ? "fwd"
                     : program == ::attn::Program::SplitKV ? "split"
                     : grad                                ? "bwd"
                                                           : "merge";
  bool lseSuffix = program != ::attn::Program::SplitKV && !grad;
  bool causalSuffix = program != ::attn::Program::MergeSplits;
  const char *dt = et.isBF16()                 ? "bf16"
                   : isa<Float8E4M3FNType>(et) ? "e4m3"
                                               : "f16";
  return (llvm::Twine("attn_") + kind + "_" + dt + "_d" + llvm::Twine(d) +
          (causalSuffix && causal ? "_causal" : "") +
          (lseSuffix && !withLse ? "_nolse" : ""))
      .str();
}

/// Whether `k` reads its score bias by bulk copies: its manifest line as
/// the runtime reads it (KernelEntry::readsBiasInBulk, the one rule).
bool readsBiasInBulk(const mlir::attn::CompiledKernel &k) {
  ::attn::Manifest m;
  return ::attn::parseManifest(mlir::attn::manifestLine(k, k.name + ".ptx"),
                               "attn-bundle", m)
             .ok() &&
         m.kernels.size() == 1 && m.kernels[0].readsBiasInBulk();
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "attn-bundle: error: " << msg << "\n";
  return 1;
}

/// Runs `args` (args[0] the program), stdout and stderr into `output`.
/// Returns the exit code; -1 if it could not run, -2 if it crashed (then
/// `output` says why).
int runTool(llvm::ArrayRef<llvm::StringRef> args, std::string &output) {
  llvm::SmallString<128> log;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("attn-bundle", "log", fd, log)) {
    output = "cannot create a temporary file: " + ec.message();
    return -1;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string err;
  int rc =
      llvm::sys::ExecuteAndWait(args[0], args, std::nullopt, redirects,
                                /*SecondsToWait=*/0, /*MemoryLimit=*/0, &err);
  if (auto buf = llvm::MemoryBuffer::getFile(log))
    output = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (rc < 0)
    output += err;
  return rc;
}

/// One ptxas run: a kernel's PTX to a cubin for one chip.
struct SassJob {
  std::string kernel, chip, ptx, cubin; // ptx, cubin: paths
  int rc = 0;
  std::string output; // ptxas's messages
};

/// What ptxas -v reports for the one kernel of a PTX file, and its other
/// messages (warnings). The -v lines are
///   ptxas info    : Function properties for attention_kernel
///       8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
///   ptxas info    : Used 255 registers, used 1 barriers, 384 bytes cmem[0]
struct PtxasUsage {
  int64_t registers = -1, spillStores = -1, spillLoads = -1;
  /// "Potential Performance Loss" notes (C7508 setmaxnreg ignored, C7513 /
  /// C7517 / C7519 wgmma serialised or waits injected).
  int64_t perfWarnings = 0;
  std::string messages;
};

/// The integer just before `word` in `line` ("255 registers" -> 255), or -1.
int64_t numberBefore(llvm::StringRef line, llvm::StringRef word) {
  size_t at = line.find(word);
  if (at == llvm::StringRef::npos)
    return -1;
  llvm::StringRef head = line.take_front(at).rtrim();
  llvm::StringRef digits =
      head.take_back(head.size() - head.find_last_not_of("0123456789") - 1);
  int64_t n;
  return digits.getAsInteger(10, n) ? -1 : n;
}

/// ptxas's account of entry function `kernel`: a PTX module of several
/// kernels (the backward's) prints one block per entry, each opened by
/// "Compiling entry function 'NAME'", and only `kernel`'s counts are its.
PtxasUsage parsePtxasOutput(llvm::StringRef output, llvm::StringRef kernel) {
  PtxasUsage u;
  llvm::SmallVector<llvm::StringRef> lines;
  output.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  bool mine = true;
  for (llvm::StringRef line : lines) {
    if (line.contains("Compiling entry function '")) {
      mine = line.contains(("'" + kernel + "'").str());
      continue;
    }
    if (!mine &&
        (line.contains("bytes spill stores") || line.starts_with("ptxas info")))
      continue;
    if (line.contains("Potential Performance Loss")) {
      ++u.perfWarnings;
      u.messages += line.str() + "\n";
    } else if (line.contains("bytes spill stores")) {
      u.spillStores = numberBefore(line, " bytes spill stores");
      u.spillLoads = numberBefore(line, " bytes spill loads");
    } else if (line.starts_with("ptxas info")) {
      if (line.contains(" registers"))
        u.registers = numberBefore(line, " registers");
    } else {
      u.messages += line.str() + "\n";
    }
  }
  return u;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "attn-bundle: ahead-of-time GPU kernels\n");
  // The knobs, parsed once by the pipeline's own option struct: an unknown
  // option or a bad value is its error message.
  std::unique_ptr<mlir::attn::CodegenPipelineOptions> knobs =
      mlir::attn::CodegenPipelineOptions::createFromString(codegen);
  if (!knobs)
    return fail("bad --codegen options '" + codegen + "'");
  for (StringRef opt : llvm::split(StringRef(codegen), ' '))
    if (opt.trim().starts_with("chip="))
      return fail("--codegen: the chip comes from --chips");
  std::unique_ptr<mlir::attn::CodegenPipelineOptions> splitKnobs =
      mlir::attn::CodegenPipelineOptions::createFromString(codegen + " " +
                                                           splitCodegen);
  if (!splitKnobs)
    return fail("bad --split-codegen options '" + splitCodegen + "'");
  // A KV cache: [0] the forward, [1] the split kernel.
  std::unique_ptr<mlir::attn::CodegenPipelineOptions> cacheKnobs[2] = {
      mlir::attn::CodegenPipelineOptions::createFromString(codegen + " " +
                                                           cacheCodegen),
      mlir::attn::CodegenPipelineOptions::createFromString(
          codegen + " " + splitCodegen + " " + cacheCodegen)};
  // Pages smaller than a key block: [0] the forward, [1] the split kernel.
  std::unique_ptr<mlir::attn::CodegenPipelineOptions> smallPageKnobs[2] = {
      mlir::attn::CodegenPipelineOptions::createFromString(codegen + " " +
                                                           smallPageCodegen),
      mlir::attn::CodegenPipelineOptions::createFromString(
          codegen + " " + splitCodegen + " " + smallPageCodegen)};
  if (!smallPageKnobs[0] || !smallPageKnobs[1])
    return fail("bad --small-page-codegen options '" + smallPageCodegen + "'");
  if (!cacheKnobs[0] || !cacheKnobs[1])
    return fail("bad --kv-cache-codegen options '" + cacheCodegen + "'");
  for (StringRef opt : llvm::split(StringRef(cacheCodegen), ' '))
    if (opt.trim().starts_with("chip="))
      return fail("--kv-cache-codegen: the chip comes from --chips");
  for (StringRef opt : llvm::split(StringRef(splitCodegen), ' '))
    if (opt.trim().starts_with("chip="))
      return fail("--split-codegen: the chip comes from --chips");
  if (chips.empty())
    chips.push_back(std::string(::attn::kDefaultChip));
  if (dtypes.empty()) {
    dtypes.push_back("f16");
    dtypes.push_back("bf16");
    dtypes.push_back("e4m3");
  }
  std::vector<int64_t> pagedSizes = {0}; // 0: a run-time page size
  if (kvPageSizes.getNumOccurrences() == 0)
    pagedSizes.push_back(16);
  for (int64_t p : kvPageSizes) {
    if (p < 16 || p >= 64 || !llvm::isPowerOf2_64(p))
      return fail("--kv-page-sizes: " + llvm::Twine(p) +
                  " is not a power of two in [16, 64)");
    pagedSizes.push_back(p);
  }
  const std::vector<int64_t> noPage = {0};
  if (headDims.empty())
    for (int64_t d : {64, 96, 128, 256})
      headDims.push_back(d);
  std::vector<::attn::Chip> ptxChips;
  for (const std::string &c : chips) {
    if (!mlir::attn::isSupportedChip(c) ||
        !::attn::parseChip(c, ptxChips.emplace_back()))
      return fail(::attn::unsupportedChipMessage(c));
  }

  // SASS: each chip paired with the PTX chip it is assembled from.
  std::vector<std::pair<::attn::Chip, std::string>> sass;
  if (!sassChips.empty() && ptxasPath.empty())
    return fail("--sass-chips needs --ptxas");
  if (!ptxasPath.empty()) {
    bool explicitChips = !sassChips.empty();
    if (!explicitChips)
      for (const ::attn::ChipInfo &c : ::attn::kChips)
        if (c.bundleSass)
          sassChips.push_back(std::string(c.name));
    for (const std::string &name : sassChips) {
      ::attn::Chip c;
      if (!::attn::parseChip(name, c))
        return fail("bad SASS chip '" + name +
                    "': expected sm_XY, sm_XYa or sm_XYf");
      if (llvm::any_of(sass,
                       [&](const auto &s) { return s.first.str() == name; }))
        return fail("SASS chip '" + name + "' is given twice");
      int from = ::attn::bestPtxFor(ptxChips, c);
      if (from < 0) {
        if (!explicitChips)
          continue; // a default this bundle's PTX does not serve
        return fail("no PTX chip in --chips can be assembled for SASS chip '" +
                    name + "' (it needs a PTX chip at or below it, or " +
                    "exactly it if architecture-specific)");
      }
      sass.push_back({c, ptxChips[size_t(from)].str()});
    }
  }

  // The ptxas version goes into the manifest: a cubin is only as good as
  // the driver that can load it, and this says which toolkit made it.
  std::string ptxasVersion;
  if (!sass.empty()) {
    std::string out;
    if (!llvm::sys::fs::can_execute(ptxasPath))
      return fail("ptxas '" + ptxasPath + "' is not an executable file");
    int rc = runTool({ptxasPath, "--version"}, out);
    if (rc != 0)
      return fail("'" + ptxasPath + " --version' failed (exit " +
                  llvm::Twine(rc) + "):\n" + out);
    // "Cuda compilation tools, release 13.0, V13.0.88"
    for (llvm::StringRef line : llvm::split(out, '\n'))
      if (line.contains("release"))
        ptxasVersion = line.trim().str();
    if (ptxasVersion.empty())
      return fail("'" + ptxasPath + " --version' printed no release:\n" + out);
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create " + outDir + ": " + ec.message());

  DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  std::string manifest =
      "# attn kernel bundle: one line per (kernel, chip). Written by "
      "attn-bundle.\n";
  if (sass.empty()) {
    manifest += "# PTX only: the driver JIT-compiles each kernel on first "
                "use.\n";
  } else {
    manifest += "# SASS (sass=chip:cubin,...) by ptxas: " + ptxasVersion + ";";
    for (const auto &[chip, from] : sass)
      manifest += " " + chip.str() + " from " + from + " PTX" +
                  (&chip == &sass.back().first ? "" : ",");
    manifest += ".\n";
  }

  // ptxas runs beside the generation of the next kernels. The jobs live in
  // a deque (stable addresses) declared before the pool, whose destructor
  // waits for them, so an early return leaves no task behind.
  std::deque<SassJob> sassJobs;
  std::atomic<bool> sassFailed{false};
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
  // Writes a compiled kernel's PTX, queues its cubins and adds its manifest
  // line. False (with the message printed) if it cannot.
  std::set<std::pair<std::string, std::string>> written; // (name, chip)
  auto emit = [&](mlir::attn::CompiledKernel &k,
                  const std::string &chip) -> bool {
    if (!written.emplace(k.name, chip).second)
      return fail("two kernels named '" + k.name + "' for " + chip +
                  " (name the function of an input differently)"),
             false;
    std::string file = k.name + "." + chip + ".ptx";
    SmallString<256> path(outDir);
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return fail("cannot write " + path + ": " + ec.message()), false;
    os << k.ptx;
    os.close(); // complete before ptxas reads it
    if (os.has_error())
      return fail("cannot write " + path + ": " + os.error().message()), false;
    std::string line = mlir::attn::manifestLine(k, file);
    assert(!line.empty() && line.back() == '\n');
    line.pop_back();
    std::string sassKey;
    for (const auto &[sassChip, from] : sass) {
      if (from != chip)
        continue;
      std::string cubin = k.name + "." + sassChip.str() + ".cubin";
      sassKey +=
          (sassKey.empty() ? " sass=" : ",") + sassChip.str() + ":" + cubin;
      SmallString<256> cubinPath(outDir);
      llvm::sys::path::append(cubinPath, cubin);
      SassJob &job = sassJobs.emplace_back();
      job.kernel = k.name;
      job.chip = sassChip.str();
      job.ptx = path.str().str();
      job.cubin = cubinPath.str().str();
      pool.async([&job, &sassFailed] {
        std::string arch = "-arch=" + job.chip;
        job.rc =
            runTool({ptxasPath, arch, "-O3", "-v", job.ptx, "-o", job.cubin},
                    job.output);
        if (job.rc != 0)
          sassFailed = true;
      });
    }
    manifest += line + sassKey + "\n";
    return true;
  };

  // The built-in set, unless only input files are given.
  if (inputs.empty() || dtypes.getNumOccurrences() ||
      headDims.getNumOccurrences())
    for (const std::string &chip : chips)
      for (const std::string &dt : dtypes)
        for (int64_t d : headDims)
          // Per (dtype, head dim): the forward (mask x LSE), the split-KV
          // kernel (mask) and the merge (LSE); the forward and the split
          // kernel again over a KV cache (D 64 and 128): kinds 3 and 4 with
          // per-sequence key counts, 5 and 6 paged (a run-time page size,
          // any multiple of the kernel's key block); 7, the forward over a
          // packed batch (varlen).
          // Each causal forward and split kernel (but varlen's and a
          // static small page's) again with the query heads of a group
          // packed into its rows (pack_query_heads, "_gqa"): the runtime's
          // kernels for a few speculated tokens under GQA, at head dims of
          // whole 64-column slabs (D = 96's spill 8 bytes on sm_86/89 at
          // their 128 registers; the compiler makes them).
          for (int kind = 0; kind < 8; ++kind)
            for (int64_t page : kind == 5 || kind == 6 ? pagedSizes : noPage)
              for (bool causal : {false, true})
                for (bool withLse : {true, false})
                  for (bool packed : {false, true}) {
                    if (sassFailed)
                      break; // reported below, with ptxas's message
                    if (packed && (!causal || page || kind == 2 || kind == 7 ||
                                   dt == "e4m3" || d % 64))
                      continue;
                    // The split kernel always writes its partial LSE; the merge
                    // has no mask.
                    if (((kind == 1 || kind == 4 || kind == 6) && !withLse) ||
                        (kind == 2 && causal))
                      continue;
                    const char *kv = kind == 7   ? "varlen"
                                     : kind >= 5 ? "paged"
                                     : kind >= 3 ? "seqlens"
                                                 : "dense";
                    bool cache = kind >= 3;
                    // KV-cache kernels for the decoding head dims whose kernels
                    // fit the registers (sm_90a: 96 and 256 spill); the
                    // runtime's compiler makes the others.
                    if (cache && d != 64 && d != 128)
                      continue;
                    Type et;
                    if (dt == "f16")
                      et = Float16Type::get(&ctx);
                    else if (dt == "bf16")
                      et = BFloat16Type::get(&ctx);
                    else if (dt == "e4m3")
                      et = Float8E4M3FNType::get(&ctx);
                    else
                      return fail("unsupported dtype '" + dt +
                                  "' (f16, bf16, e4m3)");
                    // fp8 is the dense forward of the chips with warpgroup
                    // products, at head dims of whole 64-byte slabs (the
                    // pipeline refuses the others): the set skips the rest.
                    if (isa<Float8E4M3FNType>(et) &&
                        (kind != 0 || d % 64 ||
                         !::attn::findChip(chip)->warpgroupMma))
                      continue;
                    auto program = kind == 2 ? ::attn::Program::MergeSplits
                                   : kind == 1 || kind == 4 || kind == 6
                                       ? ::attn::Program::SplitKV
                                       : ::attn::Program::Attention;
                    // A static page takes the pipeline's own blocks (shrunk to
                    // the page), not the cache knobs' 64-row ones.
                    bool isSplit = program == ::attn::Program::SplitKV;
                    mlir::attn::CodegenPipelineOptions &opts =
                        !::attn::findChip(chip)->warpgroupMma ? *knobs
                        : page    ? *smallPageKnobs[isSplit]
                        : cache   ? *cacheKnobs[isSplit]
                        : isSplit ? *splitKnobs
                                  : *knobs;
                    opts.chip = chip;
                    // A kernel gets more kernels with other query blocks
                    // where one pays for some lengths (queryBlockTwins:
                    // taller for long sequences, shorter for a few rows,
                    // taller for a packed split kernel's many rows);
                    // min_seq_q= and max_seq_q= tell the runtime which. Not
                    // beside a static small page's kernel (already 64
                    // rows) nor for a packed batch.
                    SmallVector<mlir::attn::QueryBlockTwin, 3> variants = {{}};
                    if (kind != 2 && kind != 7 && !page && !opts.blockQ &&
                        !isa<Float8E4M3FNType>(et))
                      llvm::append_range(
                          variants,
                          mlir::attn::queryBlockTwins(
                              mlir::attn::TargetAttr::getKnown(&ctx, chip), d,
                              d, causal, cache, packed, isSplit));
                    for (const mlir::attn::QueryBlockTwin &twin : variants) {
                      OwningOpRef<ModuleOp> module =
                          mlir::attn::buildKernelProblem(
                              ctx, ::attn::programName(program), et, d, d,
                              causal, withLse, kv,
                              kernelName(program, et, d, causal, withLse) +
                                  (cache ? std::string("_") + kv
                                         : std::string()) +
                                  (page ? std::to_string(page)
                                        : std::string()) +
                                  (packed ? "_gqa" : "") +
                                  (twin.rows ? "_q" + std::to_string(twin.rows)
                                             : std::string()),
                              page, /*windowLeft=*/-1, /*windowRight=*/-1,
                              /*softcap=*/0, /*alibi=*/false, /*dropout=*/false,
                              packed);
                      int64_t forcedQ = opts.blockQ;
                      if (twin.rows)
                        opts.blockQ = twin.rows;
                      FailureOr<mlir::attn::CompiledKernel> k =
                          mlir::attn::compileGPUKernel(*module, opts);
                      opts.blockQ = forcedQ;
                      if (failed(k))
                        return fail("kernel generation failed for " + dt +
                                    " d" + llvm::Twine(d));
                      k->minSeqQ = twin.minSeqQ;
                      k->maxSeqQ = twin.maxSeqQ;
                      if (!emit(*k, chip))
                        return 1;
                    }
                  }
  // The backward (attn.attention_grad: a grad_q and a grad_kv kernel) per
  // 16-bit dtype, head dim up to 128 (above, the key-block grid spills: the
  // pipeline refuses it) and mask.
  if (inputs.empty() || dtypes.getNumOccurrences() ||
      headDims.getNumOccurrences())
    for (const std::string &chip : chips)
      for (const std::string &dt : dtypes)
        for (int64_t d : headDims)
          for (bool causal : {false, true}) {
            if (sassFailed || (dt != "f16" && dt != "bf16") || d > 128)
              continue;
            Type et = dt == "f16" ? Type(Float16Type::get(&ctx))
                                  : Type(BFloat16Type::get(&ctx));
            OwningOpRef<ModuleOp> module = mlir::attn::buildKernelProblem(
                ctx, ::attn::programName(::attn::Program::GradQuery), et, d, d,
                causal, /*withLse=*/true, "dense",
                kernelName(::attn::Program::GradQuery, et, d, causal, true));
            mlir::attn::CodegenPipelineOptions &opts = *knobs;
            opts.chip = chip;
            FailureOr<std::vector<mlir::attn::CompiledKernel>> ks =
                mlir::attn::compileGPUKernels(*module, opts);
            if (failed(ks))
              return fail("backward kernel generation failed for " + dt + " d" +
                          llvm::Twine(d));
            for (mlir::attn::CompiledKernel &k : *ks)
              if (!emit(k, chip))
                return 1;
          }
  // Problems written as IR: each file's attn.attention (or attn.merge_splits)
  // for every chip, under the function's name.
  for (const std::string &chip : chips)
    for (const std::string &input : inputs) {
      if (sassFailed)
        break;
      // Diagnostics with the file's line and column (the parser's and the
      // pipeline's: "unsupported: ..." where a problem cannot be compiled).
      llvm::SourceMgr sourceMgr;
      SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
      auto buffer = llvm::MemoryBuffer::getFile(input);
      if (!buffer)
        return fail("cannot read the problem in " + input + ": " +
                    buffer.getError().message());
      sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
      OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
      if (!module)
        return fail("cannot read the problem in " + input);
      mlir::attn::CodegenPipelineOptions &opts = *knobs;
      opts.chip = chip;
      // The pipeline lowers the module it is given: a copy for the twin.
      OwningOpRef<ModuleOp> twin = module->clone();
      // Every kernel of the problem (an attn.attention_grad makes two, each
      // its own manifest entry).
      FailureOr<std::vector<mlir::attn::CompiledKernel>> ks =
          mlir::attn::compileGPUKernels(*module, opts);
      if (failed(ks))
        return fail("kernel generation failed for " + input + " on " + chip);
      bool biasInBulk = false;
      for (mlir::attn::CompiledKernel &k : *ks) {
        biasInBulk |= readsBiasInBulk(k);
        if (!emit(k, chip))
          return 1;
      }
      if (!biasInBulk)
        continue;
      // A kernel that reads its score bias by bulk copies serves biases of
      // 16-byte aligned rows only (the runtime's rule): the same problem
      // again with the bias read element by element serves the others,
      // under the function's name + "_unaligned".
      twin->walk([](func::FuncOp f) {
        f.setSymName((f.getSymName() + "_unaligned").str());
      });
      mlir::attn::CodegenPipelineOptions elementwise;
      elementwise.copyOptionValuesFrom(opts);
      elementwise.stageWindows = false;
      ks = mlir::attn::compileGPUKernels(*twin, elementwise);
      if (failed(ks))
        return fail("kernel generation failed for " + input + " on " + chip +
                    " (its bias read element by element)");
      for (mlir::attn::CompiledKernel &k : *ks)
        if (!emit(k, chip))
          return 1;
    }
  pool.wait();
  bool failedAny = false;
  std::string report =
      "# ptxas -v per cubin, written by attn-bundle (" + ptxasVersion +
      ").\n# kernel chip registers spill-store-bytes spill-load-bytes "
      "performance-warnings\n";
  for (const SassJob &job : sassJobs) {
    PtxasUsage usage = parsePtxasOutput(job.output, job.kernel);
    llvm::StringRef output =
        llvm::StringRef(job.rc != 0 ? job.output : usage.messages).rtrim();
    if (job.rc == 0 && (usage.registers < 0 || usage.spillStores < 0 ||
                        usage.spillLoads < 0)) {
      fail("ptxas -arch=" + job.chip + " -v on " + job.ptx +
           " printed no register or spill counts:\n" + job.output);
      failedAny = true;
      continue;
    }
    report += job.kernel + " " + job.chip + " " +
              std::to_string(usage.registers) + " " +
              std::to_string(usage.spillStores) + " " +
              std::to_string(usage.spillLoads) + " " +
              std::to_string(usage.perfWarnings) + "\n";
    if (job.rc != 0) {
      fail("ptxas -arch=" + job.chip + " failed on " + job.ptx + " (" +
           (job.rc == -1   ? llvm::Twine("could not run ") + ptxasPath
            : job.rc == -2 ? llvm::Twine("crashed")
                           : "exit " + llvm::Twine(job.rc)) +
           "):\n" + output);
      failedAny = true;
    } else if (!output.empty()) {
      // Warnings (e.g. C7517/C7519, serialised wgmma) are performance bugs
      // in the generated code: shown, not fatal.
      llvm::errs() << "attn-bundle: ptxas -arch=" << job.chip << " " << job.ptx
                   << ":\n"
                   << output << "\n";
    }
  }
  if (failedAny)
    return 1;

  SmallString<256> mpath(outDir);
  llvm::sys::path::append(mpath, "manifest.txt");
  std::error_code ec;
  llvm::raw_fd_ostream os(mpath, ec);
  if (ec)
    return fail("cannot write " + mpath + ": " + ec.message());
  os << manifest;
  if (!sassJobs.empty()) {
    SmallString<256> rpath(outDir);
    llvm::sys::path::append(rpath, "ptxas-report.txt");
    llvm::raw_fd_ostream ros(rpath, ec);
    if (ec)
      return fail("cannot write " + rpath + ": " + ec.message());
    ros << report;
  }
  llvm::outs() << "attn-bundle: wrote " << mpath;
  if (!sassJobs.empty())
    llvm::outs() << " (" << sassJobs.size() << " cubins by " << ptxasVersion
                 << ")";
  llvm::outs() << "\n";
  return 0;
}
