//===- attn-jit-check.cpp - many threads through libattn_jit ----*- C++ -*-===//
//
// Runs forwards of several kernel variants from many threads at once
// through one runtime with a JIT (the C++ API, as an application would),
// every output checked against a float64 reference on fresh random inputs
// with the output poisoned first. Threads start together, so the first
// calls of a variant race to compile it: the runtime and the cache must
// compile each once and serve every thread a correct kernel. Run several
// processes of it on one cache directory to race across processes.
//
//   attn-jit-check [--threads N] [--rounds R] [--cache-dir DIR]
//                  [--bundle DIR|none] [--variants bf16:80:causal,f16:192,...]
//
// Prints, per variant, where its kernel came from and how long each stage
// of getting it took, then PASS or FAIL (exit status 1). Warnings of the
// JIT (a corrupt entry rebuilt, an unwritable cache) are printed as they
// come and counted.
//
//===----------------------------------------------------------------------===//
#include "attn/JIT/Jit.h"
#include "attn/runtime/Reference.h"
#include "attn/runtime/Runtime.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace attn;

namespace {

struct Variant {
  DType dtype = DType::BF16;
  int headDim = 64;
  bool causal = false;
  bool lse = false;
  std::string text;
};

bool parseVariant(const std::string &text, Variant &v) {
  std::stringstream ss(text);
  std::string part;
  std::vector<std::string> parts;
  while (std::getline(ss, part, ':'))
    parts.push_back(part);
  if (parts.size() < 2 || !parseDType(parts[0], v.dtype))
    return false;
  char *end = nullptr;
  long d = std::strtol(parts[1].c_str(), &end, 10);
  if (*end || d < 1 || d > 1024)
    return false;
  v.headDim = int(d);
  for (size_t i = 2; i < parts.size(); ++i) {
    if (parts[i] == "causal")
      v.causal = true;
    else if (parts[i] == "lse")
      v.lse = true;
    else
      return false;
  }
  v.text = text;
  return true;
}

/// `dims` as a forward call of variant `v` (its dtype, head dim, mask, LSE).
ForwardProblem forwardProblem(const Variant &v, const ProblemShape &dims) {
  ForwardProblem fp;
  fp.shape() = dims;
  fp.dtype = v.dtype;
  fp.headDim = fp.headDimV = v.headDim;
  fp.causal = v.causal;
  fp.withLse = v.lse;
  return fp;
}

/// One forward of `v` on fresh random inputs, checked. Empty if it passed,
/// else why not.
std::string runOne(Runtime &rt, const Variant &v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.dtype = v.dtype;
  p.batch = 1 + int64_t(rng() % 2);
  p.headsKV = 1 + int64_t(rng() % 2);
  p.headsQ = p.headsKV * (1 + int64_t(rng() % 2));
  p.seqQ = 1 + int64_t(rng() % 300);
  p.seqK = rng() % 2 ? p.seqQ : 1 + int64_t(rng() % 300);
  p.headDim = p.headDimV = v.headDim;
  p.causal = v.causal;
  std::vector<double> qv, kv, vv, ov, lv;
  std::vector<uint8_t> qs, ks, vs, os, ls;
  fillRandom(v.dtype, seed, p.numQ(), qv, qs);
  fillRandom(v.dtype, seed + 1, p.numK(), kv, ks);
  fillRandom(v.dtype, seed + 2, p.numV(), vv, vs);
  fillNaN(v.dtype, p.numO(), os);
  fillNaN(DType::F32, p.numLse(), ls);
  DeviceBuffer dq, dk, dv, dO, dl;
  Status st;
  for (auto [buf, host] : {std::pair{&dq, &qs}, std::pair{&dk, &ks},
                           std::pair{&dv, &vs}, std::pair{&dO, &os},
                           std::pair{&dl, &ls}})
    if (!(st = DeviceBuffer::allocate(rt, 0, host->size(), *buf)).ok() ||
        !(st = rt.copyToDevice(buf->get(), host->data(), host->size())).ok())
      return st.message();
  ForwardProblem fp = forwardProblem(v, p);
  if (!(st = rt.forward(fp, dq.get(), dk.get(), dv.get(), dO.get(),
                        v.lse ? static_cast<float *>(dl.get()) : nullptr,
                        nullptr))
           .ok() ||
      !(st = rt.synchronize(0)).ok())
    return st.message();
  if (!(st = rt.copyToHost(os.data(), dO.get(), os.size())).ok() ||
      !(st = rt.copyToHost(ls.data(), dl.get(), ls.size())).ok())
    return st.message();
  referenceAttention(p, qv, kv, vv, ov, lv);
  ErrorStats eo = compare(decode(v.dtype, os.data(), os.size() / 2), ov);
  std::ostringstream why;
  if (eo.nonFinite || !(eo.relative < tolerance(v.dtype)))
    why << "O rel " << eo.relative << " non-finite " << eo.nonFinite;
  if (v.lse) {
    std::vector<double> gotLse =
        decode(DType::F32, ls.data(), ls.size() / 4);
    ErrorStats el = compare(gotLse, lv);
    if (el.nonFinite || !(el.relative < 1e-3))
      why << " LSE rel " << el.relative << " non-finite " << el.nonFinite;
  }
  if (!why.str().empty())
    why << " (B=" << p.batch << " Hq=" << p.headsQ << " Hkv=" << p.headsKV
        << " Nq=" << p.seqQ << " Nk=" << p.seqK << ", seed " << seed << ")";
  return why.str();
}

int usage(const char *why) {
  std::fprintf(stderr,
               "attn-jit-check: %s\nusage: attn-jit-check [--threads N] "
               "[--rounds R] [--cache-dir DIR] [--bundle DIR|none] "
               "[--variants dtype:D[:causal][:lse],...]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  int threads = 16, rounds = 2;
  std::string cacheDir, bundle, variantList = "bf16:80:causal,bf16:192,"
                                              "f16:80,bf16:128:causal";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    const char *val = nullptr;
    if (a == "--threads" && (val = value()))
      threads = std::atoi(val);
    else if (a == "--rounds" && (val = value()))
      rounds = std::atoi(val);
    else if (a == "--cache-dir" && (val = value()))
      cacheDir = val;
    else if (a == "--bundle" && (val = value()))
      bundle = val;
    else if (a == "--variants" && (val = value()))
      variantList = val;
    else
      return usage(("bad argument '" + a + "'").c_str());
  }
  if (threads < 1 || rounds < 1)
    return usage("--threads and --rounds must be at least 1");
  std::vector<Variant> variants;
  {
    std::stringstream ss(variantList);
    std::string item;
    while (std::getline(ss, item, ',')) {
      Variant v;
      if (!parseVariant(item, v))
        return usage(("bad variant '" + item + "'").c_str());
      variants.push_back(v);
    }
  }
  if (variants.empty())
    return usage("no variants");

  std::mutex outMu;
  std::atomic<int> warnings{0};
  jit::JitOptions jo;
  jo.cacheDir = cacheDir;
  jo.onWarning = [&](const std::string &w) {
    std::lock_guard<std::mutex> lock(outMu);
    ++warnings;
    std::printf("attn-jit-check: warning: %s\n", w.c_str());
    std::fflush(stdout);
  };
  RuntimeOptions ro;
  ro.bundleDir = bundle == "none" ? "" : bundle;
  ro.useBundle = bundle != "none";
  std::unique_ptr<Runtime> rt;
  if (Status s = jit::createRuntime(ro, jo, rt); !s.ok()) {
    std::fprintf(stderr, "attn-jit-check: error: %s\n", s.message().c_str());
    return 1;
  }

  // All threads start together: the first calls of each variant race.
  std::mutex startMu;
  std::condition_variable startCv;
  int waiting = 0;
  bool go = false;
  std::atomic<int> failures{0}, passes{0};
  uint64_t baseSeed = std::random_device{}();
  auto worker = [&](int t) {
    {
      std::unique_lock<std::mutex> lock(startMu);
      if (++waiting == threads) {
        go = true;
        startCv.notify_all();
      } else {
        startCv.wait(lock, [&] { return go; });
      }
    }
    for (int r = 0; r < rounds; ++r) {
      const Variant &v = variants[size_t(t + r) % variants.size()];
      uint64_t seed = baseSeed + uint64_t(t) * 1000 + uint64_t(r) * 7;
      std::string why = runOne(*rt, v, seed);
      std::lock_guard<std::mutex> lock(outMu);
      if (why.empty()) {
        ++passes;
      } else {
        ++failures;
        std::printf("attn-jit-check: FAIL %s thread %d round %d: %s\n",
                    v.text.c_str(), t, r, why.c_str());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker, t);
  for (auto &th : pool)
    th.join();

  // Where each variant's kernel came from (it is loaded by now).
  for (const Variant &v : variants) {
    ForwardProblem fp = forwardProblem(v, ProblemShape());
    KernelChoice c;
    if (Status s = rt->selectKernel(fp, 0, c); !s.ok()) {
      std::printf("  %-18s %s\n", v.text.c_str(), s.message().c_str());
      continue;
    }
    std::string stages;
    for (auto &[name, ms] : c.stageMs) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), " %s=%.2f", name.c_str(), ms);
      stages += buf;
    }
    std::printf("  %-18s %-40s %s %s ms:%s\n", v.text.c_str(),
                c.kernel.name.c_str(), c.image.c_str(),
                c.origin.empty() ? "-" : c.origin.c_str(), stages.c_str());
  }
  std::printf("attn-jit-check: pid %d, %d threads x %d rounds, %zu variants: "
              "%d passed, %d failed, %d warnings: %s\n",
              int(getpid()), threads, rounds, variants.size(), passes.load(),
              failures.load(), warnings.load(),
              failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
