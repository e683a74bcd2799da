//===- main.cpp - embedding the attn runtime in a C++ program ---*- C++ -*-===//
//
// The whole life of an attention call from a host program: create the
// runtime (driver + kernel bundle), allocate Q/K/V/O on the GPU, fill them
// with random bf16 data, run one attention, copy the result back, and check
// a few rows against the float64 reference.
//
//   attn-embed [--bundle DIR] [--batch B] [--heads H] [--kv-heads H]
//              [--seq N] [--head-dim D] [--causal]
//
// Without a GPU it prints the runtime's error and exits 1.
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/Reference.h"
#include "attn/runtime/Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int fail(const attn::Status &s, const char *what) {
  std::fprintf(stderr, "attn-embed: %s: %s\n", what, s.message().c_str());
  return 1;
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--bundle DIR] [--batch B] [--heads H] "
               "[--kv-heads H] [--seq N] [--head-dim D] [--causal]\n",
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
    else
      return usage(argv[0]);
    if (!ok)
      return usage(argv[0]);
  }
  if (p.headsKV == 0)
    p.headsKV = p.headsQ;

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
  ref.batch = p.batch;
  ref.headsQ = p.headsQ;
  ref.headsKV = p.headsKV;
  ref.seqQ = p.seqQ;
  ref.seqK = p.seqK;
  ref.headDim = p.headDim;
  ref.headDimV = p.headDimV;
  ref.causal = p.causal;
  ref.dtype = p.dtype;
  std::random_device seeder;
  const uint64_t seed = (uint64_t(seeder()) << 32) | seeder();
  std::vector<double> q, k, v;
  std::vector<uint8_t> qBytes, kBytes, vBytes;
  attn::fillRandom(p.dtype, seed, ref.numQ(), q, qBytes);
  attn::fillRandom(p.dtype, seed + 1, ref.numK(), k, kBytes);
  attn::fillRandom(p.dtype, seed + 2, ref.numV(), v, vBytes);

  // 4. Device memory through the runtime's helpers (driver API).
  attn::DeviceBuffer dq, dk, dv, dout, dlse;
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

  // 5. One attention on the default stream, then wait for it.
  if (attn::Status s =
          rt->forward(p, dq.get(), dk.get(), dv.get(), dout.get(),
                      static_cast<float *>(dlse.get()), /*stream=*/nullptr);
      !s.ok())
    return fail(s, "forward");
  if (attn::Status s = rt->synchronize(0); !s.ok())
    return fail(s, "running the kernel");
  attn::KernelChoice ran;
  rt->lastKernel(ran);
  std::printf("ran %s (%s) on %s: B=%lld Hq=%lld Hkv=%lld N=%lld D=%lld%s\n",
              ran.kernel.name.c_str(), ran.kernel.chip.str().c_str(),
              ran.device.name.c_str(), (long long)p.batch, (long long)p.headsQ,
              (long long)p.headsKV, (long long)p.seqQ, (long long)p.headDim,
              p.causal ? " causal" : "");

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
