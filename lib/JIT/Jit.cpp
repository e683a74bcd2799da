//===- Jit.cpp - libattn_jit: compile what the bundle lacks -----*- C++ -*-===//
#include "attn/JIT/Jit.h"

#include "NvJitLink.h"
#include "PipelineCompiler.h"

#include "attn/JIT/JitBuildId.h"
#include "attn/JIT/KernelCache.h"
#include "attn/runtime/Chips.h"

#include "llvm/Config/llvm-config.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <sstream>

namespace attn::jit {
namespace {

/// The chip the code generator targets for a device (codegenChipFor).
std::string codegenChip(const KernelRequest &r) {
  const ChipInfo *chip = codegenChipFor(r.ccMajor, r.ccMinor);
  return std::string(chip ? chip->name : kDefaultChip);
}

// A cache entry's payload: a header line, the launcher's manifest line, the
// image line, then the image bytes:
//
//   attn-jit-kernel 1
//   kernel name=... ptx=jit chip=sm_90a dtype=bf16 head_dim=80 ...
//   image cubin 123456
//   <123456 bytes>
constexpr const char *kPayloadMagic = "attn-jit-kernel 1";

std::string manifestLine(const KernelEntry &e) {
  KernelEntry line = e;
  line.ptx = "jit";
  line.sass.clear();
  return formatManifestLine(line);
}

std::string encodePayload(const KernelEntry &e, bool isPtx,
                          const std::string &image) {
  return std::string(kPayloadMagic) + "\n" + manifestLine(e) + "\nimage " +
         (isPtx ? "ptx " : "cubin ") + std::to_string(image.size()) + "\n" +
         image;
}

/// The inverse of encodePayload; false if `payload` is not one. The cache
/// has checked the bytes already: this guards against an entry written by a
/// different format under the same key (which the key's version prevents).
bool decodePayload(const std::string &payload, KernelEntry &e, bool &isPtx,
                   std::string &image, std::string &why) {
  size_t l1 = payload.find('\n');
  size_t l2 = l1 == std::string::npos ? l1 : payload.find('\n', l1 + 1);
  size_t l3 = l2 == std::string::npos ? l2 : payload.find('\n', l2 + 1);
  if (l3 == std::string::npos || payload.compare(0, l1, kPayloadMagic) != 0) {
    why = "not an attn-jit kernel";
    return false;
  }
  Manifest m;
  if (Status s =
          parseManifest(payload.substr(l1 + 1, l2 - l1 - 1), "cache entry", m);
      !s.ok() || m.kernels.size() != 1) {
    why = s.ok() ? "no kernel line" : s.message();
    return false;
  }
  e = m.kernels[0];
  std::istringstream imageLine(payload.substr(l2 + 1, l3 - l2 - 1));
  std::string word, kind;
  size_t size = 0;
  if (!(imageLine >> word >> kind >> size) || word != "image" ||
      (kind != "ptx" && kind != "cubin") || size != payload.size() - (l3 + 1)) {
    why = "bad image line";
    return false;
  }
  isPtx = kind == "ptx";
  image = payload.substr(l3 + 1);
  return true;
}

class JitCompiler : public KernelCompiler {
public:
  explicit JitCompiler(const JitOptions &options) : options(options) {
    if (options.cache != CacheMode::Off) {
      KernelCacheOptions co;
      co.directory = cacheDirectory(options);
      co.readOnly = options.cache == CacheMode::ReadOnly;
      cache = std::make_unique<KernelCache>(co);
    }
  }

  Status compile(const KernelRequest &request, CompiledImage &out) override;
  std::string describe() const override {
    return "attn-jit (cache: " +
           (cache ? (cache->directory().empty() ? std::string("none")
                                                : cache->directory()) +
                        (cache->readOnly() ? ", read-only" : "")
                  : std::string("off")) +
           ")";
  }

private:
  void warn(const std::string &msg) const {
    if (options.onWarning)
      options.onWarning(msg);
    else
      std::fprintf(stderr, "attn-jit: warning: %s\n", msg.c_str());
  }
  /// nvJitLink, opened on first use; null (and a warning once) if it
  /// cannot be.
  const NvJitLink *assembler() {
    std::call_once(nvOnce, [&] {
      if (!options.useNvJitLink)
        return;
      if (Status s = NvJitLink::open(options.nvJitLinkLibrary, nv); !s.ok())
        warn(s.message() +
             "; kernels are handed to the driver as PTX (it compiles them "
             "when they are loaded)");
    });
    return nv.get();
  }
  /// The whole compile: attn IR -> PTX -> (SASS).
  Status build(const KernelRequest &request, const std::string &chip,
               const NvJitLink *nvl, CompiledImage &out);

  JitOptions options;
  PipelineCompiler pipeline;
  std::unique_ptr<KernelCache> cache;
  std::once_flag nvOnce, sweepOnce;
  std::unique_ptr<NvJitLink> nv;
};

Status JitCompiler::build(const KernelRequest &request, const std::string &chip,
                          const NvJitLink *nvl, CompiledImage &out) {
  PtxKernel k;
  if (Status s = pipeline.compile(request, chip, k); !s.ok())
    return s;
  out.stageMs.push_back({"build", k.buildMs});
  out.stageMs.push_back({"passes", k.passesMs});
  out.stageMs.push_back({"llvm", k.llvmMs});
  out.entry = k.entry;
  if (!nvl) {
    out.image = std::move(k.ptx);
    out.isPtx = true;
    return Status::success();
  }
  auto t0 = std::chrono::steady_clock::now();
  std::string cubin;
  if (Status s = nvl->assemble(k.ptx, request.chip(), cubin); !s.ok())
    return Status::error(s.code(), "attn-jit: PTX to SASS (" + nvl->describe() +
                                       "): " + s.message());
  out.stageMs.push_back({"sass", msSince(t0)});
  out.image = std::move(cubin);
  out.isPtx = false;
  return Status::success();
}

Status JitCompiler::compile(const KernelRequest &request, CompiledImage &out) {
  out = CompiledImage();
  const std::string chip = codegenChip(request);

  // The key: everything the image depends on. The canonical IR says what is
  // computed; the codegen chip and options how; the SASS arch and image
  // kind what was produced; the version which compiler did it.
  auto t0 = std::chrono::steady_clock::now();
  std::string ir;
  if (Status s = pipeline.canonicalIR(request, ir); !s.ok())
    return s;
  auto keyFor = [&](bool cubin) {
    return "attn-jit-key 1\nversion " + compilerVersion() + "\ncodegen " +
           chip + " " + PipelineCompiler::optionsKey(chip) + "\nimage " +
           (cubin ? "cubin " + request.chip() : std::string("ptx")) + "\n" +
           // The backward's two kernels come from one problem (one IR):
           // which of them the image is.
           (isBackwardProgram(request.program)
                ? std::string("kernel ") + programName(request.program) + "\n"
                : std::string()) +
           ir;
  };
  std::string key = keyFor(options.useNvJitLink);
  out.stageMs.push_back({"key", msSince(t0)});

  // A hit needs neither nvJitLink (a 100 MB library: ~20 ms to load) nor
  // the pipeline's context: look first, open them only on a miss.
  bool warnedBad = false;
  if (cache) {
    t0 = std::chrono::steady_clock::now();
    LookupResult hit = cache->lookup(key);
    if (hit.hit()) {
      std::string why;
      if (decodePayload(hit.payload, out.entry, out.isPtx, out.image, why)) {
        out.stageMs.push_back({"cache-read", msSince(t0)});
        out.origin = "hit " + cache->entryPath(key);
        return Status::success();
      }
      warn("cache entry " + cache->entryPath(key) + " is not a kernel (" + why +
           "); rebuilding it");
      (void)cache->remove(key);
    } else if (hit.status == LookupStatus::Corrupt ||
               hit.status == LookupStatus::Unreadable) {
      // Removed by the lookup (unless the cache is read-only); compiled
      // and stored again below.
      warn("cache entry " + cache->entryPath(key) + " was bad (" + hit.reason +
           "); rebuilt");
      warnedBad = true;
    }
  }
  // A miss: this process writes to the cache. Temporary files that crashed
  // writers left (older than an hour: no live writer takes that long) go
  // first, once per compiler.
  if (cache && !cache->readOnly())
    std::call_once(sweepOnce, [&] { (void)cache->sweepTemporaryFiles(); });
  // Opening nvJitLink (a ~100 MB library) is timed on its own: tens of
  // milliseconds warm, a few hundred when the page cache is cold.
  t0 = std::chrono::steady_clock::now();
  const NvJitLink *nvl = assembler();
  if (double ms = msSince(t0); ms > 0.05)
    out.stageMs.push_back({"nvjitlink-open", ms});
  if (options.useNvJitLink && !nvl)
    key = keyFor(false); // no nvJitLink: the PTX entry, not the cubin's

  if (!cache) {
    if (Status s = build(request, chip, nvl, out); !s.ok())
      return s;
    out.origin = "compiled (cache off)";
    return Status::success();
  }

  // The cache runs the compile at most once per key across the threads and
  // processes that ask at the same time; the compile's stage times are kept
  // from inside the callback.
  CompiledImage built;
  Status buildStatus;
  t0 = std::chrono::steady_clock::now();
  CacheResult r =
      cache->getOrCreate(key, [&](std::string &payload, std::string &error) {
        buildStatus = build(request, chip, nvl, built);
        if (!buildStatus.ok()) {
          error = buildStatus.message();
          return false;
        }
        payload = encodePayload(built.entry, built.isPtx, built.image);
        return true;
      });
  double cacheMs = msSince(t0);
  if (!r.corruption.empty() && !warnedBad)
    warn("cache entry " + cache->entryPath(key) + " was bad (" + r.corruption +
         "); rebuilt");
  if (r.outcome == CacheOutcome::Failed)
    return buildStatus.ok()
               ? Status::error(StatusCode::Internal, "attn-jit: " + r.error)
               : buildStatus;
  if (r.outcome == CacheOutcome::NotStored)
    warn("could not store " + request.key() + " in the cache (" + r.storeError +
         "); using it from memory");

  std::string why;
  if (!decodePayload(r.payload, out.entry, out.isPtx, out.image, why))
    return Status::error(StatusCode::Internal,
                         "attn-jit: cache entry " + cache->entryPath(key) +
                             " passed its checks but is not a kernel: " + why);
  bool compiledHere =
      r.outcome == CacheOutcome::Stored || r.outcome == CacheOutcome::NotStored;
  if (compiledHere) {
    for (auto &st : built.stageMs)
      out.stageMs.push_back(st);
    double inside = 0;
    for (auto &st : built.stageMs)
      inside += st.second;
    out.stageMs.push_back({"cache-write", cacheMs - inside});
  } else {
    out.stageMs.push_back({"cache-read", cacheMs});
  }
  out.origin = std::string(cacheOutcomeName(r.outcome)) +
               (r.waited ? " (waited)" : "") + " " + cache->entryPath(key);
  return Status::success();
}

} // namespace

const std::string &compilerVersion() {
  static const std::string version = std::string("attn ") + ATTN_JIT_VERSION +
                                     " build " + ATTN_JIT_BUILD_ID + " llvm " +
                                     LLVM_VERSION_STRING;
  return version;
}

std::string cacheDirectory(const JitOptions &options) {
  if (!options.cacheDir.empty())
    return options.cacheDir;
  return defaultCacheDirectory();
}

Status createCompiler(const JitOptions &options,
                      std::shared_ptr<KernelCompiler> &out) {
  if (options.cache != CacheMode::Off && cacheDirectory(options).empty())
    return Status::error(StatusCode::InvalidArgument,
                         "attn-jit: no cache directory: set "
                         "JitOptions::cacheDir or $ATTN_CACHE_DIR, or turn "
                         "the cache off");
  out = std::make_shared<JitCompiler>(options);
  return Status::success();
}

Status createRuntime(const RuntimeOptions &options, const JitOptions &jit,
                     std::unique_ptr<Runtime> &out) {
  RuntimeOptions withJit = options;
  if (Status s = createCompiler(jit, withJit.compiler); !s.ok())
    return s;
  return Runtime::create(withJit, out);
}

} // namespace attn::jit
