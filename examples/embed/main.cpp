//===- main.cpp - embedding the attn runtime in a C++ program ---*- C++ -*-===//
//
// The whole life of an attention call from a host program: create the
// runtime (driver + kernel bundle), allocate Q/K/V/O on the GPU, fill them
// with random bf16 data, run one attention, copy the result back, and check
// a few rows against the float64 reference.
//
//   attn-embed [--bundle DIR] [--batch B] [--heads H] [--kv-heads H]
//              [--seq N] [--head-dim D] [--causal] [--paged PAGE]
//
// --paged PAGE: a decoding step of a serving engine instead — one query row
// per sequence over a paged KV cache in vLLM's storage ([pages, PAGE, Hkv,
// D], the pages in a shuffled order, a block table, and each sequence's own
// key count, N for the first and fewer for the others).
//
// Without a GPU it prints the runtime's error and exits 1.
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/Reference.h"
#include "attn/runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

int fail(const attn::Status &s, const char *what) {
  std::fprintf(stderr, "attn-embed: %s: %s\n", what, s.message().c_str());
  return 1;
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--bundle DIR] [--batch B] [--heads H] "
               "[--kv-heads H] [--seq N] [--head-dim D] [--causal] "
               "[--paged PAGE]\n",
               argv0);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  attn::RuntimeOptions options;
  attn::ForwardProblem p;
  p.dtype = attn::DType::BF16;
  p.batch = 1;
  p.headsQ = 4;
  p.headsKV = 0; // = headsQ unless given
  p.seqQ = p.seqK = 512;
  p.headDim = p.headDimV = 128;
  p.withLse = true;
  int64_t page = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](int64_t &out) {
      if (i + 1 >= argc)
        return false;
      char *end = nullptr;
      out = std::strtoll(argv[++i], &end, 10);
      return *end == '\0';
    };
    bool ok = true;
    if (a == "--bundle" && i + 1 < argc)
      options.bundleDir = argv[++i];
    else if (a == "--batch")
      ok = next(p.batch);
    else if (a == "--heads")
      ok = next(p.headsQ);
    else if (a == "--kv-heads")
      ok = next(p.headsKV);
    else if (a == "--seq") {
      ok = next(p.seqQ);
      p.seqK = p.seqQ;
    } else if (a == "--head-dim") {
      ok = next(p.headDim);
      p.headDimV = p.headDim;
    } else if (a == "--causal")
      p.causal = true;
    else if (a == "--paged")
      ok = next(page) && page > 0;
    else
      return usage(argv[0]);
    if (!ok)
      return usage(argv[0]);
  }
  if (p.headsKV == 0)
    p.headsKV = p.headsQ;
  // A decoding step over a paged cache: one query row per sequence, the
  // cache's capacity rounded up to whole pages (seqK = maxPages · PAGE), and
  // sequence b holding seqLen(b) keys of it.
  std::vector<int64_t> lens;
  if (page) {
    const int64_t keys = p.seqK;
    p.seqQ = 1;
    p.kvLayout = attn::KVLayout::Paged;
    p.pageSize = page;
    p.maxPages = (keys + page - 1) / page;
    p.numPages = p.batch * p.maxPages;
    p.seqK = p.maxPages * page;
    for (int64_t b = 0; b < p.batch; ++b)
      lens.push_back(std::max<int64_t>(1, keys - 37 * b));
  }

  // 1. The runtime: loads libcuda.so.1 and the bundle's manifest.
  std::unique_ptr<attn::Runtime> rt;
  if (attn::Status s = attn::Runtime::create(options, rt); !s.ok())
    return fail(s, "cannot start the runtime");
  attn::DeviceInfo dev;
  if (attn::Status s = rt->deviceInfo(0, dev); !s.ok())
    return fail(s, "device 0");
  std::printf("device 0: %s (sm_%d%d, %d SMs); bundle %s (%zu kernels)\n",
              dev.name.c_str(), dev.ccMajor, dev.ccMinor, dev.smCount,
              rt->bundle().dir.c_str(), rt->bundle().kernels.size());

  // 2. Which kernel will run (also validates the problem).
  attn::KernelChoice choice;
  if (attn::Status s = rt->selectKernel(p, 0, choice); !s.ok())
    return fail(s, "no kernel for this problem");

  // 3. Random N(0, 1) inputs, rounded to bf16.
  attn::Problem ref;
  ref.shape() = p.shape();
  ref.kvLens = lens; // the reference reads the keys in sequence order
  std::random_device seeder;
  const uint64_t seed = (uint64_t(seeder()) << 32) | seeder();
  std::vector<double> q, k, v;
  std::vector<uint8_t> qBytes, kBytes, vBytes;
  attn::fillRandom(p.dtype, seed, ref.numQ(), q, qBytes);
  attn::fillRandom(p.dtype, seed + 1, ref.numK(), k, kBytes);
  attn::fillRandom(p.dtype, seed + 2, ref.numV(), v, vBytes);

  // 3b. Paged: the keys and values moved into pages [P, PAGE, Hkv, D] in a
  // shuffled order (as an allocator hands them out), the block table
  // naming each sequence's pages; unused rows stay NaN.
  std::vector<int32_t> table, lens32(lens.begin(), lens.end());
  if (page) {
    std::vector<int32_t> order(size_t(p.numPages));
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = int32_t(i);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + 3));
    table.assign(order.begin(), order.end()); // [B, maxPages]
    const size_t row = size_t(p.headDim) * attn::dtypeSize(p.dtype);
    auto toPages = [&](const std::vector<uint8_t> &dense) {
      std::vector<uint8_t> paged(size_t(p.numPages * page * p.headsKV) * row,
                                 0xFF);
      for (int64_t b = 0; b < p.batch; ++b)
        for (int64_t h = 0; h < p.headsKV; ++h)
          for (int64_t j = 0; j < lens[size_t(b)]; ++j) {
            int64_t pg = table[size_t(b * p.maxPages + j / page)];
            std::memcpy(
                &paged[size_t((pg * page + j % page) * p.headsKV + h) * row],
                &dense[size_t((b * p.headsKV + h) * p.seqK + j) * row], row);
          }
      return paged;
    };
    kBytes = toPages(kBytes);
    vBytes = toPages(vBytes);
    // vLLM's [pages, PAGE, Hkv, D] seen as [pages, Hkv, PAGE, D].
    p.k = p.v = attn::Strides{page * p.headsKV * p.headDim, p.headDim,
                              p.headsKV * p.headDim, 1};
  }

  // 4. Device memory through the runtime's helpers (driver API).
  attn::DeviceBuffer dq, dk, dv, dout, dlse, dlens, dtable;
  const size_t es = attn::dtypeSize(p.dtype);
  struct {
    attn::DeviceBuffer *buf;
    size_t bytes;
    const std::vector<uint8_t> *init;
  } buffers[] = {{&dq, qBytes.size(), &qBytes},
                 {&dk, kBytes.size(), &kBytes},
                 {&dv, vBytes.size(), &vBytes},
                 {&dout, ref.numO() * es, nullptr},
                 {&dlse, ref.numLse() * sizeof(float), nullptr}};
  for (auto &b : buffers) {
    if (attn::Status s = attn::DeviceBuffer::allocate(*rt, 0, b.bytes, *b.buf);
        !s.ok())
      return fail(s, "allocating device memory");
    attn::Status s =
        b.init ? rt->copyToDevice(b.buf->get(), b.init->data(), b.bytes)
               : rt->fill(b.buf->get(), 0xFF, b.bytes); // NaN
    if (!s.ok())
      return fail(s, "initialising device memory");
  }

  // 5. One attention on the default stream, then wait for it. A paged cache
  // also hands over its key counts and block table (device memory).
  attn::KVCacheArgs cache;
  if (page) {
    for (auto [buf, host, n] :
         {std::tuple{&dlens, lens32.data(), lens32.size()},
          std::tuple{&dtable, table.data(), table.size()}}) {
      attn::Status s = attn::DeviceBuffer::allocate(*rt, 0, n * 4, *buf);
      if (s.ok())
        s = rt->copyToDevice(buf->get(), host, n * 4);
      if (!s.ok())
        return fail(s, "the block table");
    }
    cache.seqLens = static_cast<const int32_t *>(dlens.get());
    cache.blockTable = static_cast<const int32_t *>(dtable.get());
  }
  attn::Status fwd =
      page ? rt->forward(p, cache, dq.get(), dk.get(), dv.get(), dout.get(),
                         static_cast<float *>(dlse.get()), /*stream=*/nullptr)
           : rt->forward(p, dq.get(), dk.get(), dv.get(), dout.get(),
                         static_cast<float *>(dlse.get()), /*stream=*/nullptr);
  if (!fwd.ok())
    return fail(fwd, "forward");
  if (attn::Status s = rt->synchronize(0); !s.ok())
    return fail(s, "running the kernel");
  attn::KernelChoice ran;
  rt->lastKernel(ran);
  std::printf("ran %s (%s) on %s: B=%lld Hq=%lld Hkv=%lld N=%lld D=%lld%s",
              ran.kernel.name.c_str(), ran.kernel.chip.str().c_str(),
              ran.device.name.c_str(), (long long)p.batch, (long long)p.headsQ,
              (long long)p.headsKV, (long long)p.seqQ, (long long)p.headDim,
              p.causal ? " causal" : "");
  if (page)
    std::printf(" over a paged cache (pages of %lld, %lld keys for "
                "sequence 0, %lld splits)",
                (long long)page, (long long)lens[0], (long long)ran.kvSplits);
  std::printf("\n");

  // 6. Back to the host; a few values and a check of the whole output.
  std::vector<uint8_t> oBytes(ref.numO() * es);
  std::vector<float> lse(ref.numLse());
  if (attn::Status s = rt->copyToHost(oBytes.data(), dout.get(), oBytes.size());
      !s.ok())
    return fail(s, "copying o back");
  if (attn::Status s =
          rt->copyToHost(lse.data(), dlse.get(), lse.size() * sizeof(float));
      !s.ok())
    return fail(s, "copying lse back");
  std::vector<double> o = attn::decode(p.dtype, oBytes.data(), ref.numO());
  std::printf("o[0, 0, 0, :8] =");
  for (int d = 0; d < 8 && d < p.headDimV; ++d)
    std::printf(" %+.4f", o[size_t(d)]);
  std::printf("\nlse[0, 0, :4] =");
  for (int i = 0; i < 4 && i < p.seqQ; ++i)
    std::printf(" %.4f", lse[size_t(i)]);
  std::printf("\n");

  std::vector<double> oRef, lseRef;
  attn::referenceAttention(ref, q, k, v, oRef, lseRef);
  attn::ErrorStats eo = attn::compare(o, oRef);
  attn::ErrorStats el =
      attn::compare(std::vector<double>(lse.begin(), lse.end()), lseRef);
  const double tol = attn::tolerance(p.dtype);
  const bool ok = eo.nonFinite == 0 && eo.relative < tol && el.nonFinite == 0 &&
                  el.relative < tol;
  std::printf("check vs float64 reference: o rel %.3g, lse rel %.3g, "
              "non-finite %zu: %s\n",
              eo.relative, el.relative, eo.nonFinite + el.nonFinite,
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
