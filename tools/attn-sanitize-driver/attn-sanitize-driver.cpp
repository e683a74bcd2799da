//===- attn-sanitize-driver.cpp - attention runs for compute-sanitizer ----===//
//
// A tiny program with no torch and no CUDA runtime for
// tools/scripts/sanitize_gpu.py to run under compute-sanitizer (memcheck,
// racecheck, synccheck, initcheck). It runs every kernel family of a bundle
// (each dtype, head dim, causal and LSE/no-LSE in manifest.txt) over a few
// small shapes through the runtime's C API, and optionally the tile-IR programs
// of gpuprog/ straight from their PTX through the driver API, and checks each
// result against a float64 reference on the host (so a run under the sanitizer
// is also a correctness run).
//
//   attn-sanitize-driver [--bundle DIR] [--programs FILE] [--shapes SPEC]
//                        [--no-poison] [--list]
//   attn-sanitize-driver --plant oob|race|uninit
//
// --shapes: cases separated by ';', each B,Hq,Hkv,Nq,Nk[,bnhd]
//   (default "1,2,1,130,77;2,2,2,17,200,bnhd;1,4,1,257,513;1,1,1,1,1"): N not
//   a multiple of any block, Nq > Nk (causal rows that see no key), Nq < Nk,
//   GQA, strided [B, N, H, D] storage, several query blocks and a long KV
//   loop, a single row.
// --programs: one line per program, key=value words (written by
//   sanitize_gpu.py from gpuprog/programs.json): name ptx kernel dtype
//   head_dim causal variant block_m threads smem args [softcap scale].
// --no-poison: leave O and LSE uninitialised before the run (for initcheck:
//   a kernel that reads them before writing is then reported); by default
//   they are filled with NaN so a value the kernel never wrote fails the
//   check.
//
// --plant runs one small hand-written kernel with a planted bug instead (an
//   out-of-bounds global write, a shared-memory race between two warps, a
//   read of global memory nothing wrote), for sanitize_gpu.py to check that
//   memcheck, racecheck and initcheck do report what they should.
//
// Each buffer is its own allocation of exactly the bytes the problem needs,
// so memcheck sees any access past its end. Everything is freed and the
// runtime destroyed before exit (memcheck --leak-check full).
//
// Exit status: 0 if every case ran and matched the reference, 1 if one did
// not, 2 on bad arguments or a runtime that cannot start, 3 if the bundle
// holds no kernel this device can run (every family unsupported).
//
// Built by CMake with the runtime (target attn-sanitize-driver, also in
// runtime-only builds): the C API library and attn_reference's manifest
// reader.
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/Bundle.h"
#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Reference.h"
#include "attn/runtime/attn.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

// ---------------------------------------------------------------- numbers

// Inputs are k/128 for integers k in [-256, 256]: exact in f16 and bf16, so
// the reference sees exactly what the kernel reads.
uint16_t encode(int dtype, float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if (dtype == ATTN_DTYPE_BF16)
    return uint16_t(u >> 16); // exact: the low 16 bits are zero
  // f16, for exactly representable normal numbers and zero.
  if (x == 0.0f)
    return uint16_t((u >> 16) & 0x8000);
  const uint32_t sign = (u >> 31) & 1;
  const int exp = int((u >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = (u >> 13) & 0x3ff;
  return uint16_t((sign << 15) | (uint32_t(exp) << 10) | mant);
}

double decode(int dtype, uint16_t h) {
  if (dtype == ATTN_DTYPE_BF16) {
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(double(mant), -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(double(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

const char *dtypeName(int dtype) {
  return dtype == ATTN_DTYPE_BF16   ? "bf16"
         : dtype == ATTN_DTYPE_F16  ? "f16"
         : dtype == ATTN_DTYPE_E4M3 ? "e4m3"
                                    : "f32";
}

/// The bundle's dtypes (e4m3: the fp8 forward, runFp8Case).
bool parseDtype(const std::string &s, int &out) {
  if (s == "bf16")
    out = ATTN_DTYPE_BF16;
  else if (s == "f16")
    out = ATTN_DTYPE_F16;
  else if (s == "e4m3")
    out = ATTN_DTYPE_E4M3;
  else
    return false;
  return true;
}

// ---------------------------------------------------------------- shapes

struct Shape {
  int64_t B, Hq, Hkv, Nq, Nk;
  bool bnhd; // [B, N, H, D] storage
  std::string str() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "B=%lld Hq=%lld Hkv=%lld Nq=%lld Nk=%lld%s",
                  (long long)B, (long long)Hq, (long long)Hkv, (long long)Nq,
                  (long long)Nk, bnhd ? " bnhd" : "");
    return buf;
  }
};

bool parseShapes(const std::string &spec, std::vector<Shape> &out) {
  std::stringstream all(spec);
  std::string one;
  while (std::getline(all, one, ';')) {
    if (one.empty())
      continue;
    std::stringstream ss(one);
    std::string tok;
    std::vector<std::string> toks;
    while (std::getline(ss, tok, ','))
      toks.push_back(tok);
    if (toks.size() != 5 && toks.size() != 6)
      return false;
    Shape s{};
    int64_t *f[] = {&s.B, &s.Hq, &s.Hkv, &s.Nq, &s.Nk};
    for (int i = 0; i < 5; ++i) {
      char *end = nullptr;
      *f[i] = std::strtoll(toks[size_t(i)].c_str(), &end, 10);
      if (*end || *f[i] < 1)
        return false;
    }
    if (toks.size() == 6) {
      if (toks[5] != "bnhd" && toks[5] != "bhnd")
        return false;
      s.bnhd = toks[5] == "bnhd";
    }
    if (s.Hq % s.Hkv)
      return false;
    out.push_back(s);
  }
  return !out.empty();
}

// Element strides of a [B, H, N, D] tensor stored as [B, H, N, D] or
// [B, N, H, D].
attn_strides stridesOf(const Shape &s, int64_t H, int64_t N, int64_t D) {
  if (s.bnhd)
    return attn_strides{N * H * D, D, H * D, 1};
  return attn_strides{H * N * D, N * D, D, 1};
}

int64_t at(const attn_strides &st, int64_t b, int64_t h, int64_t n, int64_t d) {
  return b * st.batch + h * st.head + n * st.seq + d * st.dim;
}

// ---------------------------------------------------------------- reference

enum class Variant { Plain, Softcap, Bias };

struct Inputs {
  Shape s;
  int64_t D = 0, Dv = 0;
  bool causal = false;
  /// A sliding window's bounds (-1: none); causal is right = 0.
  int64_t windowLeft = -1, windowRight = -1;
  double scale = 0;
  Variant variant = Variant::Plain;
  double softcap = 0;
  attn_strides q{}, k{}, v{}, o{};
  std::vector<double> qv, kv, vv, bias; // values at the storage offsets
  /// ALiBi's slopes [Hq] (empty: none): S − slope[h]·|i + Nk − Nq − j|.
  std::vector<double> alibi;
};

// float64 O [B, Hq, Nq, Dv] (row-major, logical) and LSE [B, Hq, Nq];
// bottom-right causal and sliding window; rows that see no key give O = 0,
// LSE = -inf.
void reference(const Inputs &in, std::vector<double> &o,
               std::vector<double> &lse) {
  const Shape &s = in.s;
  o.assign(size_t(s.B * s.Hq * s.Nq * in.Dv), 0.0);
  lse.assign(size_t(s.B * s.Hq * s.Nq), -INFINITY);
  std::vector<double> sc(size_t(s.Nk));
  const int64_t g = s.Hq / s.Hkv;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.Hq; ++h)
      for (int64_t i = 0; i < s.Nq; ++i) {
        const int64_t hk = h / g;
        const attn::KeyRange keys = attn::visibleKeys(
            i, s.Nq, s.Nk, in.causal, in.windowLeft, in.windowRight);
        double m = -INFINITY;
        for (int64_t j = 0; j < s.Nk; ++j) {
          if (j < keys.first || j >= keys.end) {
            sc[size_t(j)] = -INFINITY;
            continue;
          }
          double dot = 0;
          for (int64_t d = 0; d < in.D; ++d)
            dot += in.qv[size_t(at(in.q, b, h, i, d))] *
                   in.kv[size_t(at(in.k, b, hk, j, d))];
          if (in.variant == Variant::Softcap)
            dot = in.softcap * std::tanh(dot / in.softcap);
          dot *= in.scale;
          if (in.variant == Variant::Bias)
            dot += in.bias[size_t(((b * s.Hq + h) * s.Nq + i) * s.Nk + j)];
          if (!in.alibi.empty())
            dot -=
                in.alibi[size_t(h)] * double(std::llabs(i + s.Nk - s.Nq - j));
          sc[size_t(j)] = dot;
          m = std::max(m, dot);
        }
        const size_t row = size_t((b * s.Hq + h) * s.Nq + i);
        if (m == -INFINITY)
          continue;
        double l = 0;
        double *orow = &o[row * size_t(in.Dv)];
        for (int64_t j = 0; j < s.Nk; ++j) {
          if (sc[size_t(j)] == -INFINITY)
            continue;
          const double p = std::exp(sc[size_t(j)] - m);
          l += p;
          for (int64_t d = 0; d < in.Dv; ++d)
            orow[d] += p * in.vv[size_t(at(in.v, b, hk, j, d))];
        }
        for (int64_t d = 0; d < in.Dv; ++d)
          orow[d] /= l;
        lse[row] = m + std::log(l);
      }
}

// Compares the kernel's O (at the storage offsets of in.o) and LSE with the
// reference; "" if they agree, else what is wrong.
std::string compare(const Inputs &in, int dtype,
                    const std::vector<uint16_t> &oBits,
                    const std::vector<float> *lse, double &oRel) {
  std::vector<double> ro, rl;
  reference(in, ro, rl);
  const Shape &s = in.s;
  double num = 0, den = 0;
  size_t nonFinite = 0;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.Hq; ++h)
      for (int64_t i = 0; i < s.Nq; ++i)
        for (int64_t d = 0; d < in.Dv; ++d) {
          const double x = decode(dtype, oBits[size_t(at(in.o, b, h, i, d))]);
          const double r = ro[size_t(((b * s.Hq + h) * s.Nq + i) * in.Dv + d)];
          if (!std::isfinite(x)) {
            ++nonFinite;
            continue;
          }
          num += (x - r) * (x - r);
          den += r * r;
        }
  oRel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  std::string err;
  char buf[160];
  if (nonFinite) {
    std::snprintf(buf, sizeof buf, "o has %zu non-finite values; ", nonFinite);
    err += buf;
  }
  if (!(oRel < 1e-2)) {
    std::snprintf(buf, sizeof buf, "o relative error %.3g >= 1e-2; ", oRel);
    err += buf;
  }
  if (lse) {
    size_t infMismatch = 0, bad = 0;
    double lnum = 0, lden = 0;
    for (size_t r = 0; r < rl.size(); ++r) {
      const double x = (*lse)[r];
      if (std::isinf(rl[r]) || std::isinf(x) || std::isnan(x)) {
        if (!(std::isinf(rl[r]) && std::isinf(x) && x < 0))
          ++(std::isnan(x) ? bad : infMismatch);
        continue;
      }
      lnum += (x - rl[r]) * (x - rl[r]);
      lden += rl[r] * rl[r];
    }
    const double lrel = lden > 0 ? std::sqrt(lnum / lden) : std::sqrt(lnum);
    if (bad || infMismatch) {
      std::snprintf(buf, sizeof buf,
                    "lse: %zu NaN, %zu rows where -inf disagrees; ", bad,
                    infMismatch);
      err += buf;
    }
    if (!(lrel < 1e-3)) {
      std::snprintf(buf, sizeof buf, "lse relative error %.3g >= 1e-3; ", lrel);
      err += buf;
    }
  }
  return err;
}

// Fills the storage of a [B, H, N, D] tensor (all of it: strided storage
// is dense here) with k/128, k in [-256, 256].
void fill(std::mt19937_64 &rng, int dtype, size_t count,
          std::vector<double> &vals, std::vector<uint16_t> &bits) {
  std::uniform_int_distribution<int> dist(-256, 256);
  vals.resize(count);
  bits.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const float x = float(dist(rng)) / 128.0f;
    bits[i] = encode(dtype, x);
    vals[i] = decode(dtype, bits[i]);
  }
}

// ---------------------------------------------------------------- manifest

struct Family {
  int dtype;
  int64_t D, Dv;
  bool causal, lse;
  /// Kernels over a KV cache (kv=seqlens, kv=paged): run through
  /// attn_forward_kv_cache with every sequence's key count Nk, paged in
  /// shuffled pages of kPage rows.
  attn::KVLayout kv;
  /// Paged kernels compiled for one page size (page=): run with it; 0: with
  /// kPage.
  int64_t page;
  /// A windowed kernel's bounds (window=; -1: none): run through
  /// attn_forward_window with them.
  int64_t windowLeft, windowRight;
  bool windowed() const { return windowLeft != -1 || windowRight != -1; }
  /// A soft-capped kernel's cap (softcap=; 0: none): run through
  /// attn_forward_variant with it.
  float softcap;
  /// An ALiBi kernel (alibi=1): run through attn_forward_variant with fresh
  /// slopes.
  bool alibi;
  /// A kernel with a score bias (bias=T): run through attn_forward_variant
  /// with a fresh one of that type (biasDtype, an attn_dtype), [B, Hq, Nq,
  /// Nk] in rows padded by 8 NaN elements.
  bool bias;
  int biasDtype;
  bool paged() const { return kv == attn::KVLayout::Paged; }
  bool cached() const {
    return kv == attn::KVLayout::SeqLens || kv == attn::KVLayout::Paged;
  }
  bool operator<(const Family &o) const {
    return std::tie(dtype, D, Dv, causal, lse, kv, page, windowLeft,
                    windowRight, softcap, alibi, bias, biasDtype) <
           std::tie(o.dtype, o.D, o.Dv, o.causal, o.lse, o.kv, o.page,
                    o.windowLeft, o.windowRight, o.softcap, o.alibi, o.bias,
                    o.biasDtype);
  }
  std::string str() const {
    char buf[112];
    std::snprintf(buf, sizeof buf, "%s D=%lld%s %s %s%s", dtypeName(dtype),
                  (long long)D,
                  Dv != D ? (" Dv=" + std::to_string(Dv)).c_str() : "",
                  causal ? "causal" : "full  ", lse ? "lse   " : "no-lse",
                  kv != attn::KVLayout::Dense
                      ? (std::string(" ") + attn::kvLayoutName(kv) +
                         (page ? std::to_string(page) : std::string()))
                            .c_str()
                      : "");
    std::string out = buf;
    if (windowed())
      out += " window=" + std::to_string(windowLeft) + "," +
             std::to_string(windowRight);
    if (softcap != 0)
      out += " softcap=" + attn::formatSoftcap(softcap);
    if (alibi)
      out += " alibi";
    if (bias)
      out += std::string(" bias=") + (biasDtype == ATTN_DTYPE_F32   ? "f32"
                                      : biasDtype == ATTN_DTYPE_F16 ? "f16"
                                                                    : "bf16");
    return out;
  }
};

/// The page size of the paged cases: a multiple of every paged kernel's key
/// block, and smaller than most shapes' keys (several pages a sequence).
constexpr int64_t kPage = 64;

std::map<std::string, std::string> keyValues(const std::string &line) {
  std::map<std::string, std::string> kv;
  std::stringstream ss(line);
  std::string w;
  while (ss >> w) {
    const size_t eq = w.find('=');
    if (eq != std::string::npos)
      kv[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return kv;
}

/// The kernel families of the bundle in `dir`, read by the runtime's own
/// manifest parser (Bundle.h); false, with the reason on stderr, if it
/// cannot be read.
bool readFamilies(const std::string &dir, std::set<Family> &out,
                  std::set<std::string> &chips) {
  attn::Manifest m;
  if (attn::Status s = attn::loadBundle(dir, m); !s.ok()) {
    std::fprintf(stderr, "attn-sanitize-driver: %s\n", s.message().c_str());
    return false;
  }
  for (const attn::KernelEntry &k : m.kernels) {
    // The cases run the forward (attn_forward and its KV-cache forms): a
    // backward kernel's family would ask for a forward the bundle may not
    // hold (examples/attention-grad-softcap.mlir's soft-capped D = 128
    // pair has no forward twin: "not in the bundle").
    if (k.program == attn::Program::GradQuery ||
        k.program == attn::Program::GradKeyValue)
      continue;
    Family f{};
    if (!parseDtype(attn::dtypeName(k.dtype), f.dtype))
      continue;
    f.D = k.headDim;
    f.Dv = k.headDimV;
    f.causal = k.causal;
    f.lse = k.lse;
    f.kv = k.kv;
    f.page = k.pageSize;
    f.windowLeft = k.windowLeft;
    f.windowRight = k.windowRight;
    f.softcap = k.softcap;
    f.alibi = k.alibi;
    f.bias = k.bias;
    f.biasDtype = k.biasType == attn::DType::F32   ? ATTN_DTYPE_F32
                  : k.biasType == attn::DType::F16 ? ATTN_DTYPE_F16
                                                   : ATTN_DTYPE_BF16;
    if (!f.bias)
      f.biasDtype = 0;
    out.insert(f);
    chips.insert(k.chip.str());
  }
  return true;
}

// ---------------------------------------------------------------- C API

struct Runtime {
  attn_runtime *rt = nullptr;
  std::vector<void *> live;

  void *alloc(size_t bytes) {
    void *p = nullptr;
    if (attn_malloc(rt, 0, bytes, &p) != ATTN_OK) {
      std::fprintf(stderr, "attn-sanitize-driver: attn_malloc(%zu): %s\n",
                   bytes, attn_last_error_message());
      return nullptr;
    }
    live.push_back(p);
    return p;
  }
  /// Frees one allocation now (it leaves `live`).
  void free(void *p) {
    for (size_t i = 0; i < live.size(); ++i)
      if (live[i] == p) {
        live.erase(live.begin() + long(i));
        if (attn_free(rt, p) != ATTN_OK)
          std::fprintf(stderr, "attn-sanitize-driver: attn_free: %s\n",
                       attn_last_error_message());
        return;
      }
  }
  void freeAll() {
    for (void *p : live)
      if (attn_free(rt, p) != ATTN_OK)
        std::fprintf(stderr, "attn-sanitize-driver: attn_free: %s\n",
                     attn_last_error_message());
    live.clear();
  }
};

// One fp8 (e4m3) bundle case through attn_forward_fp8: Q, K and V drawn with
// different spreads and quantised per tensor (the runtime's
// fillRandomE4m3), V transposed [B, Hkv, Dv, Nk] over rows padded to 16 bytes
// (the padding NaN codes), a bf16 O; checked against the runtime's float64
// reference with the descales (O within the e4m3 tolerance, LSE within 5e-3:
// fp8 products accumulate in less than f32). Contiguous Q, K and O whatever
// the shape's storage. Returns 0 ok, 1 failed, 2 unsupported.
int runFp8Case(Runtime &R, const Family &f, const Shape &s, bool poison,
               uint64_t seed, std::string &kernel) {
  attn_problem p;
  attn_problem_init(&p);
  p.dtype = ATTN_DTYPE_E4M3;
  p.causal = f.causal;
  p.with_lse = f.lse;
  p.batch = s.B;
  p.heads_q = s.Hq;
  p.heads_kv = s.Hkv;
  p.seq_q = s.Nq;
  p.seq_k = s.Nk;
  p.head_dim = f.D;
  p.head_dim_v = f.Dv;
  const int64_t ld = (s.Nk + 15) / 16 * 16;
  p.v = attn_strides{s.Hkv * f.Dv * ld, f.Dv * ld, 1, ld};
  attn_kernel_info info;
  if (attn_status st = attn_select_kernel(R.rt, &p, 0, &info); st != ATTN_OK) {
    kernel = attn_last_error_message();
    return st == ATTN_ERROR_UNSUPPORTED || st == ATTN_ERROR_NOT_IN_BUNDLE ? 2
                                                                          : 1;
  }
  attn::Problem ref;
  ref.dtype = attn::DType::E4M3;
  ref.batch = s.B;
  ref.headsQ = s.Hq;
  ref.headsKV = s.Hkv;
  ref.seqQ = s.Nq;
  ref.seqK = s.Nk;
  ref.headDim = f.D;
  ref.headDimV = f.Dv;
  ref.causal = f.causal;
  std::vector<double> qv, kv, vv;
  std::vector<uint8_t> qb, kb, vcodes;
  attn::fillRandomE4m3(seed, ref.numQ(), 0.5, qv, qb, ref.qDescale);
  attn::fillRandomE4m3(seed + 1, ref.numK(), 2.0, kv, kb, ref.kDescale);
  attn::fillRandomE4m3(seed + 2, ref.numV(), 1.0, vv, vcodes, ref.vDescale);
  int64_t rowKeys;
  std::vector<uint8_t> vb =
      attn::transposeValuesE4m3(vcodes, s.B * s.Hkv, s.Nk, f.Dv, rowKeys);
  attn_fp8 fp8;
  attn_fp8_init(&fp8);
  fp8.q_descale = float(ref.qDescale);
  fp8.k_descale = float(ref.kDescale);
  fp8.v_descale = float(ref.vDescale);

  const size_t oCount = ref.numO(), lseCount = ref.numLse();
  void *dq = R.alloc(qb.size()), *dk = R.alloc(kb.size()),
       *dv = R.alloc(vb.size()), *dO = R.alloc(oCount * 2),
       *dl = f.lse ? R.alloc(lseCount * 4) : nullptr;
  std::vector<uint16_t> oBits(oCount, 0x7fff);
  std::vector<float> lse(lseCount, NAN);
  auto h2d = [&](void *d, const void *h, size_t n) {
    return attn_memcpy_htod(R.rt, d, h, n) == ATTN_OK;
  };
  int rc = 1;
  if (!dq || !dk || !dv || !dO || (f.lse && !dl)) {
    kernel = "allocation failed";
  } else if (!h2d(dq, qb.data(), qb.size()) || !h2d(dk, kb.data(), kb.size()) ||
             !h2d(dv, vb.data(), vb.size()) ||
             (poison && (!h2d(dO, oBits.data(), oCount * 2) ||
                         (f.lse && !h2d(dl, lse.data(), lseCount * 4))))) {
    kernel = std::string("copy to device: ") + attn_last_error_message();
  } else if (attn_forward_fp8(R.rt, &p, &fp8, dq, dk, dv, dO,
                              static_cast<float *>(dl), nullptr) != ATTN_OK) {
    kernel = std::string("forward: ") + attn_last_error_message();
  } else if (attn_synchronize(R.rt, 0) != ATTN_OK) {
    kernel = std::string("running the kernel: ") + attn_last_error_message();
  } else if (attn_memcpy_dtoh(R.rt, oBits.data(), dO, oCount * 2) != ATTN_OK ||
             (f.lse && attn_memcpy_dtoh(R.rt, lse.data(), dl, lseCount * 4) !=
                           ATTN_OK)) {
    kernel = std::string("copy to host: ") + attn_last_error_message();
  } else {
    attn_kernel_info ran;
    attn_last_kernel(R.rt, &ran);
    kernel = std::string(ran.name) + " (" + ran.chip + ")";
    std::vector<double> refO, refLse, got(oCount), gotLse(lseCount);
    attn::referenceAttention(ref, qv, kv, vv, refO, refLse);
    for (size_t i = 0; i < oCount; ++i)
      got[i] = attn::bf16ToFloat(oBits[i]);
    const attn::ErrorStats eo = attn::compare(got, refO);
    std::string err;
    if (eo.nonFinite || !(eo.relative <= attn::tolerance(attn::DType::E4M3)))
      err += "o: rel " + std::to_string(eo.relative) + ", " +
             std::to_string(eo.nonFinite) + " non-finite; ";
    if (f.lse) {
      for (size_t i = 0; i < lseCount; ++i)
        gotLse[i] = lse[i];
      const attn::ErrorStats el = attn::compare(gotLse, refLse);
      if (el.nonFinite || !(el.maxAbs <= 5e-3))
        err += "lse: max abs " + std::to_string(el.maxAbs) + ", " +
               std::to_string(el.nonFinite) + " non-finite; ";
    }
    if (std::string(ran.name).find("_e4m3_") == std::string::npos ||
        ran.causal != int(f.causal) || ran.head_dim != f.D)
      err += "the runtime ran a kernel of another family; ";
    char buf[48];
    std::snprintf(buf, sizeof buf, "  o rel %.1e", eo.relative);
    kernel += buf;
    if (!err.empty())
      kernel += "  FAILED: " + err;
    rc = err.empty() ? 0 : 1;
  }
  R.freeAll();
  return rc;
}

// One bundle case. Returns 0 ok, 1 failed, 2 unsupported.
int runBundleCase(Runtime &R, const Family &f, const Shape &shape, bool poison,
                  uint64_t seed, std::string &kernel) {
  if (f.dtype == ATTN_DTYPE_E4M3)
    return runFp8Case(R, f, shape, poison, seed, kernel);
  // A packed batch (varlen) of B sequences of Nq queries and Nk keys is the
  // [B, N, H, D] storage of the dense problem: the same inputs, the same
  // reference.
  const bool varlen = f.kv == attn::KVLayout::Varlen;
  Shape s = shape;
  if (varlen)
    s.bnhd = true;
  attn_problem p;
  attn_problem_init(&p);
  const attn_window window{f.windowLeft, f.windowRight};
  p.dtype = f.dtype;
  p.causal = f.causal;
  p.with_lse = f.lse;
  p.batch = s.B;
  p.heads_q = s.Hq;
  p.heads_kv = s.Hkv;
  p.seq_q = s.Nq;
  p.seq_k = s.Nk;
  p.head_dim = f.D;
  p.head_dim_v = f.Dv;
  Inputs in;
  in.s = s;
  in.D = f.D;
  in.Dv = f.Dv;
  in.causal = f.causal;
  in.windowLeft = f.windowLeft;
  in.windowRight = f.windowRight;
  in.scale = 1.0 / std::sqrt(double(f.D));
  p.scale = in.scale;
  // The kernel caps the scaled score, C·tanh(scale·dot / C): the
  // reference's cap on the raw dot is C / scale.
  attn_variant variant;
  attn_variant_init(&variant);
  variant.window_left = f.windowLeft;
  variant.window_right = f.windowRight;
  variant.softcap = f.softcap;
  if (f.softcap != 0) {
    in.variant = Variant::Softcap;
    in.softcap = double(f.softcap) / in.scale;
  }
  p.q = in.q = stridesOf(s, s.Hq, s.Nq, f.D);
  p.k = in.k = stridesOf(s, s.Hkv, s.Nk, f.D);
  p.v = in.v = stridesOf(s, s.Hkv, s.Nk, f.Dv);
  p.o = in.o = stridesOf(s, s.Hq, s.Nq, f.Dv);
  // ALiBi: fresh slopes in (0, 1]; selection only needs them to be given.
  std::vector<float> slopes;
  if (f.alibi) {
    std::mt19937_64 gen(seed + 11);
    std::uniform_real_distribution<float> dist(1e-3f, 1.0f);
    for (int64_t h = 0; h < s.Hq; ++h) {
      slopes.push_back(dist(gen));
      in.alibi.push_back(slopes.back());
    }
    variant.alibi_slopes = slopes.data();
  }
  // A bias: fresh values of its type, [B, Hq, Nq, Nk] over rows padded by
  // 8 NaN elements (a kernel that read past a row would carry them into
  // O); selection only needs a pointer.
  const int64_t biasLd = s.Nk + 8;
  const size_t biasElems = size_t(s.B * s.Hq * s.Nq * biasLd);
  const size_t biasBytes = biasElems * (f.biasDtype == ATTN_DTYPE_F32 ? 4 : 2);
  std::vector<uint8_t> biasStore;
  if (f.bias) {
    std::mt19937_64 gen(seed + 13);
    std::uniform_int_distribution<int> dist(-256, 256);
    in.variant = Variant::Bias;
    in.bias.resize(size_t(s.B * s.Hq * s.Nq * s.Nk));
    biasStore.resize(biasBytes);
    for (size_t r = 0; r < size_t(s.B * s.Hq * s.Nq); ++r)
      for (int64_t j = 0; j < biasLd; ++j) {
        const float x = j < s.Nk ? float(dist(gen)) / 64.0f : NAN;
        const size_t at = r * size_t(biasLd) + size_t(j);
        double v;
        if (f.biasDtype == ATTN_DTYPE_F32) {
          std::memcpy(&biasStore[at * 4], &x, 4);
          v = x;
        } else {
          const uint16_t bits = encode(f.biasDtype, x);
          std::memcpy(&biasStore[at * 2], &bits, 2);
          v = decode(f.biasDtype, bits);
        }
        if (j < s.Nk)
          in.bias[r * size_t(s.Nk) + size_t(j)] = v;
      }
    variant.bias = biasStore.data();
    variant.bias_dtype = f.biasDtype;
    variant.bias_batch = s.B;
    variant.bias_heads = s.Hq;
    variant.bias_strides = {s.Hq * s.Nq * biasLd, s.Nq * biasLd, biasLd, 1};
  }

  attn_kernel_info info;
  if (attn_status st =
          f.softcap != 0 || f.windowed() || f.alibi || f.bias
              ? attn_select_kernel_variant(R.rt, &p, &variant, 0, &info)
              : attn_select_kernel(R.rt, &p, 0, &info);
      !f.cached() && st != ATTN_OK) {
    kernel = attn_last_error_message();
    return st == ATTN_ERROR_UNSUPPORTED ? 2 : 1;
  }

  std::mt19937_64 rng(seed);
  std::vector<uint16_t> qb, kb, vb;
  fill(rng, f.dtype, size_t(s.B * s.Hq * s.Nq * f.D), in.qv, qb);
  fill(rng, f.dtype, size_t(s.B * s.Hkv * s.Nk * f.D), in.kv, kb);
  fill(rng, f.dtype, size_t(s.B * s.Hkv * s.Nk * f.Dv), in.vv, vb);
  const size_t oCount = size_t(s.B * s.Hq * s.Nq * f.Dv);
  const size_t lseCount = size_t(s.B * s.Hq * s.Nq);

  void *dq = R.alloc(qb.size() * 2), *dk = R.alloc(kb.size() * 2),
       *dv = R.alloc(vb.size() * 2), *dO = R.alloc(oCount * 2),
       *dl = f.lse ? R.alloc(lseCount * 4) : nullptr;
  int rc = 1;
  std::vector<uint16_t> oBits(oCount);
  std::vector<float> lse(lseCount);
  if (!dq || !dk || !dv || !dO || (f.lse && !dl)) {
    kernel = "allocation failed";
    R.freeAll();
    return 1;
  }
  auto h2d = [&](void *d, const void *h, size_t n) {
    return attn_memcpy_htod(R.rt, d, h, n) == ATTN_OK;
  };
  // Paged: every sequence's keys in ceil(Nk / kPage) pages of a shuffled
  // order, the rows past Nk NaN; key counts Nk, so the dense reference
  // holds.
  const int64_t pageRows = f.page ? f.page : kPage;
  const int64_t maxPages = (s.Nk + pageRows - 1) / pageRows,
                numPages = s.B * maxPages;
  std::vector<int32_t> table, lens(size_t(s.B), int32_t(s.Nk));
  attn_kv_cache cache;
  attn_kv_cache_init(&cache);
  attn_varlen packed;
  attn_varlen_init(&packed);
  if (varlen) {
    std::vector<int32_t> cq, ck;
    for (int64_t b = 0; b <= s.B; ++b) {
      cq.push_back(int32_t(b * s.Nq));
      ck.push_back(int32_t(b * s.Nk));
    }
    void *dcq = R.alloc(cq.size() * 4), *dck = R.alloc(ck.size() * 4);
    if (!dcq || !dck ||
        attn_memcpy_htod(R.rt, dcq, cq.data(), cq.size() * 4) != ATTN_OK ||
        attn_memcpy_htod(R.rt, dck, ck.data(), ck.size() * 4) != ATTN_OK) {
      kernel = "allocating the offsets failed";
      R.freeAll();
      return 1;
    }
    packed.cu_seqlens_q = static_cast<const int32_t *>(dcq);
    packed.cu_seqlens_k = static_cast<const int32_t *>(dck);
    packed.total_q = s.B * s.Nq;
    packed.total_k = s.B * s.Nk;
  }
  if (f.cached()) {
    void *dlens = R.alloc(lens.size() * 4);
    if (!dlens || attn_memcpy_htod(R.rt, dlens, lens.data(), lens.size() * 4) !=
                      ATTN_OK) {
      kernel = "allocating the key counts failed";
      R.freeAll();
      return 1;
    }
    cache.seq_lens = static_cast<const int32_t *>(dlens);
  }
  if (f.paged()) {
    table.resize(size_t(numPages));
    for (size_t i = 0; i < table.size(); ++i)
      table[i] = int32_t(i);
    std::shuffle(table.begin(), table.end(), std::mt19937_64(seed + 7));
    auto page = [&](const std::vector<uint16_t> &from, const attn_strides &st,
                    int64_t dh) {
      std::vector<uint16_t> to(size_t(numPages * s.Hkv * pageRows * dh),
                               0x7fff);
      for (int64_t b = 0; b < s.B; ++b)
        for (int64_t h = 0; h < s.Hkv; ++h)
          for (int64_t n = 0; n < s.Nk; ++n)
            for (int64_t d = 0; d < dh; ++d)
              to[size_t(
                  ((table[size_t(b * maxPages + n / pageRows)] * s.Hkv + h) *
                       pageRows +
                   n % pageRows) *
                      dh +
                  d)] = from[size_t(at(st, b, h, n, d))];
      return to;
    };
    kb = page(kb, in.k, f.D);
    vb = page(vb, in.v, f.Dv);
    p.k = attn_strides{s.Hkv * pageRows * f.D, pageRows * f.D, f.D, 1};
    p.v = attn_strides{s.Hkv * pageRows * f.Dv, pageRows * f.Dv, f.Dv, 1};
    p.seq_k = maxPages * pageRows;
    cache.num_pages = numPages;
    cache.page_size = pageRows;
    cache.max_pages = maxPages;
    void *dtable = R.alloc(table.size() * 4);
    if (!dtable || attn_memcpy_htod(R.rt, dtable, table.data(),
                                    table.size() * 4) != ATTN_OK) {
      kernel = "allocating the block table failed";
      R.freeAll();
      return 1;
    }
    cache.block_table = static_cast<const int32_t *>(dtable);
    R.free(dk);
    R.free(dv);
    dk = R.alloc(kb.size() * 2);
    dv = R.alloc(vb.size() * 2);
    if (!dk || !dv) {
      kernel = "allocation failed";
      R.freeAll();
      return 1;
    }
  }
  bool ok = h2d(dq, qb.data(), qb.size() * 2) &&
            h2d(dk, kb.data(), kb.size() * 2) &&
            h2d(dv, vb.data(), vb.size() * 2);
  if (ok && f.alibi) {
    void *ds = R.alloc(slopes.size() * 4);
    ok = ds && h2d(ds, slopes.data(), slopes.size() * 4);
    variant.alibi_slopes = static_cast<const float *>(ds);
  }
  if (ok && f.bias) {
    void *db = R.alloc(biasBytes);
    ok = db && h2d(db, biasStore.data(), biasBytes);
    variant.bias = db;
  }
  if (ok && poison) {
    std::vector<uint16_t> nanO(oCount, 0x7fff);
    std::vector<float> nanL(lseCount, NAN);
    ok = h2d(dO, nanO.data(), oCount * 2) &&
         (!f.lse || h2d(dl, nanL.data(), lseCount * 4));
  }
  if (!ok) {
    kernel = std::string("copy to device: ") + attn_last_error_message();
  } else if ((varlen ? attn_forward_varlen(R.rt, &p, &packed, dq, dk, dv, dO,
                                           static_cast<float *>(dl), nullptr)
              : f.softcap != 0 || f.alibi || f.bias
                  ? attn_forward_variant(R.rt, &p, &variant, dq, dk, dv, dO,
                                         static_cast<float *>(dl), nullptr)
              : f.windowed()
                  ? attn_forward_window(R.rt, &p, &window, dq, dk, dv, dO,
                                        static_cast<float *>(dl), nullptr)
              : f.cached()
                  ? attn_forward_kv_cache(R.rt, &p, &cache, dq, dk, dv, dO,
                                          static_cast<float *>(dl), nullptr)
                  : attn_forward(R.rt, &p, dq, dk, dv, dO,
                                 static_cast<float *>(dl), nullptr)) !=
             ATTN_OK) {
    kernel = std::string("forward: ") + attn_last_error_message();
  } else if (attn_synchronize(R.rt, 0) != ATTN_OK) {
    kernel = std::string("running the kernel: ") + attn_last_error_message();
  } else if (attn_memcpy_dtoh(R.rt, oBits.data(), dO, oCount * 2) != ATTN_OK ||
             (f.lse && attn_memcpy_dtoh(R.rt, lse.data(), dl, lseCount * 4) !=
                           ATTN_OK)) {
    kernel = std::string("copy to host: ") + attn_last_error_message();
  } else {
    attn_kernel_info ran;
    attn_last_kernel(R.rt, &ran);
    kernel = std::string(ran.name) + " (" + ran.chip + ")";
    double rel = 0;
    if (varlen && f.lse) {
      // The packed LSE is [1, Hq, B·Nq]: back to [B, Hq, Nq].
      std::vector<float> dense(lse.size());
      for (int64_t b = 0; b < s.B; ++b)
        for (int64_t h = 0; h < s.Hq; ++h)
          for (int64_t i = 0; i < s.Nq; ++i)
            dense[size_t((b * s.Hq + h) * s.Nq + i)] =
                lse[size_t(h * s.B * s.Nq + b * s.Nq + i)];
      lse = dense;
    }
    std::string err = compare(in, f.dtype, oBits, f.lse ? &lse : nullptr, rel);
    // (A KV-cache GQA decode step runs packed: non-causal for one row.)
    const std::string ranName = ran.name;
    if (ran.head_dim != f.D ||
        (ran.causal != int(f.causal) && !(f.cached() && s.Nq == 1)) ||
        (ranName.find("_paged") != std::string::npos) != f.paged() ||
        (ranName.find("_seqlens") != std::string::npos) !=
            (f.kv == attn::KVLayout::SeqLens) ||
        (ranName.find("_varlen") != std::string::npos) != varlen ||
        // (a windowed kernel's name has _w<left>_ after its head dim)
        (ranName.find("_w", ranName.find("_d")) != std::string::npos) !=
            f.windowed() ||
        // (and a soft-capped one _sc)
        (ranName.find("_sc") != std::string::npos) != (f.softcap != 0) ||
        (ranName.find("_alibi") != std::string::npos) != f.alibi ||
        (ranName.find("_bias") != std::string::npos) != f.bias)
      err += "the runtime ran a kernel of another family; ";
    char buf[48];
    std::snprintf(buf, sizeof buf, "  o rel %.1e", rel);
    kernel += buf;
    if (!err.empty())
      kernel += "  FAILED: " + err;
    rc = err.empty() ? 0 : 1;
  }
  R.freeAll();
  return rc;
}

// ---------------------------------------------------------------- programs

// The driver API, opened at run time (no cuda.h needed).
struct Cuda {
  using CUresult = int;
  using CUdeviceptr = unsigned long long;
  void *lib = nullptr;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*deviceGet)(int *, int) = nullptr;
  CUresult (*primaryCtxRetain)(void **, int) = nullptr;
  CUresult (*primaryCtxRelease)(int) = nullptr;
  CUresult (*ctxSetCurrent)(void *) = nullptr;
  CUresult (*ctxSynchronize)() = nullptr;
  CUresult (*moduleLoadData)(void **, const void *) = nullptr;
  CUresult (*moduleUnload)(void *) = nullptr;
  CUresult (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  CUresult (*funcSetAttribute)(void *, int, int) = nullptr;
  CUresult (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, void *, void **,
                           void **) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*memFree)(CUdeviceptr) = nullptr;
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*getErrorName)(CUresult, const char **) = nullptr;
  // cuTensorMapEncodeTiled, its enums as ints (cuda.h is not included).
  CUresult (*tensorMapEncodeTiled)(void *, int, unsigned, void *,
                                   const uint64_t *, const uint64_t *,
                                   const uint32_t *, const uint32_t *, int, int,
                                   int, int) = nullptr;
  CUresult (*deviceGetAttribute)(int *, int, int) = nullptr;
  int device = 0;
  /// The device's multiprocessors (a persistent kernel's programs).
  int smCount = 0;
  void *ctx = nullptr;

  bool open(std::string &err) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      err = "cannot open libcuda.so.1";
      return false;
    }
    bool ok = true;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, name));
      if (!fn) {
        err += std::string("no ") + name + " in libcuda; ";
        ok = false;
      }
    };
    get(init, "cuInit");
    get(deviceGet, "cuDeviceGet");
    get(primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    get(primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    get(ctxSetCurrent, "cuCtxSetCurrent");
    get(ctxSynchronize, "cuCtxSynchronize");
    get(moduleLoadData, "cuModuleLoadData");
    get(moduleUnload, "cuModuleUnload");
    get(moduleGetFunction, "cuModuleGetFunction");
    get(funcSetAttribute, "cuFuncSetAttribute");
    get(launchKernel, "cuLaunchKernel");
    get(memAlloc, "cuMemAlloc_v2");
    get(memFree, "cuMemFree_v2");
    get(memcpyHtoD, "cuMemcpyHtoD_v2");
    get(memcpyDtoH, "cuMemcpyDtoH_v2");
    get(getErrorName, "cuGetErrorName");
    get(tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    get(deviceGetAttribute, "cuDeviceGetAttribute");
    if (!ok)
      return false;
    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
    return check(init(0), "cuInit", err) &&
           check(deviceGet(&device, 0), "cuDeviceGet", err) &&
           check(deviceGetAttribute(&smCount, 16, device),
                 "cuDeviceGetAttribute (SM count)", err) &&
           check(primaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain",
                 err) &&
           check(ctxSetCurrent(ctx), "cuCtxSetCurrent", err);
  }
  void close() {
    if (ctx) {
      ctxSetCurrent(nullptr);
      primaryCtxRelease(device);
      ctx = nullptr;
    }
    // libcuda stays loaded: the runtime holds it too.
  }
  bool check(CUresult r, const char *what, std::string &err) {
    if (r == 0)
      return true;
    const char *name = nullptr;
    if (getErrorName)
      getErrorName(r, &name);
    err += std::string(what) + ": " + (name ? name : std::to_string(r)) + "; ";
    return false;
  }
};

struct Program {
  std::string name, ptx, kernel;
  int dtype = ATTN_DTYPE_BF16;
  int64_t D = 0;
  bool causal = false;
  Variant variant = Variant::Plain;
  double softcap = 0, scale = 0;
  int blockM = 0, threads = 0, smem = 0;
  /// persistent=1: launched as min(SMs, tiles) blocks (KernelABI.h).
  bool persistent = false;
  /// tile_counter=1: a dynamic grid (KernelABI.h): a zeroed 32-bit counter
  /// passed last, which the kernel must leave zero.
  bool tileCounter = false;
  std::vector<std::string> args;
  /// tensor_maps= (KernelABI.h): CUtensorMaps after the arguments.
  std::vector<attn::TensorMapSpec> tensorMaps;
};

bool readPrograms(const std::string &path, std::vector<Program> &out,
                  std::string &err) {
  std::ifstream in(path);
  if (!in) {
    err = "cannot read " + path;
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    auto kv = keyValues(line);
    Program p;
    p.name = kv["name"];
    p.ptx = kv["ptx"];
    p.kernel = kv["kernel"];
    p.D = std::atoll(kv["head_dim"].c_str());
    p.causal = kv["causal"] == "1";
    p.persistent = kv["persistent"] == "1";
    p.tileCounter = kv["tile_counter"] == "1";
    p.blockM = std::atoi(kv["block_m"].c_str());
    p.threads = std::atoi(kv["threads"].c_str());
    p.smem = std::atoi(kv["smem"].c_str());
    p.softcap = std::atof(kv["softcap"].c_str());
    p.scale = std::atof(kv["scale"].c_str());
    const std::string var = kv["variant"];
    p.variant = var == "softcap" ? Variant::Softcap
                : var == "bias"  ? Variant::Bias
                                 : Variant::Plain;
    if (kv.count("tensor_maps") &&
        !attn::parseTensorMaps(kv["tensor_maps"], p.tensorMaps)) {
      err = "bad tensor_maps in program line: " + line;
      return false;
    }
    std::stringstream as(kv["args"]);
    std::string a;
    while (std::getline(as, a, ','))
      p.args.push_back(a);
    if (!parseDtype(kv["dtype"], p.dtype) || p.name.empty() || p.ptx.empty() ||
        p.kernel.empty() || !p.D || !p.blockM || !p.threads || p.args.empty() ||
        (var != "plain" && var != "softcap" && var != "bias") ||
        (p.variant == Variant::Softcap && !(p.softcap > 0))) {
      err = "bad program line: " + line;
      return false;
    }
    out.push_back(p);
  }
  return true;
}

// One program case on contiguous tensors. Returns 0 ok, 1 failed.
int runProgramCase(Cuda &cu, void *fn, const Program &pg, const Shape &s0,
                   bool poison, uint64_t seed, std::string &msg) {
  Shape s = s0;
  s.bnhd = false; // gpu_programs.py checks contiguous tensors
  Inputs in;
  in.s = s;
  in.D = in.Dv = pg.D;
  in.causal = pg.causal;
  in.variant = pg.variant;
  in.softcap = pg.softcap;
  in.scale = pg.scale > 0 ? pg.scale : 1.0 / std::sqrt(double(pg.D));
  in.q = stridesOf(s, s.Hq, s.Nq, pg.D);
  in.k = stridesOf(s, s.Hkv, s.Nk, pg.D);
  in.v = stridesOf(s, s.Hkv, s.Nk, pg.D);
  in.o = stridesOf(s, s.Hq, s.Nq, pg.D);
  std::mt19937_64 rng(seed);
  std::vector<uint16_t> qb, kb, vb;
  fill(rng, pg.dtype, size_t(s.B * s.Hq * s.Nq * pg.D), in.qv, qb);
  fill(rng, pg.dtype, size_t(s.B * s.Hkv * s.Nk * pg.D), in.kv, kb);
  fill(rng, pg.dtype, size_t(s.B * s.Hkv * s.Nk * pg.D), in.vv, vb);
  const size_t oCount = size_t(s.B * s.Hq * s.Nq * pg.D);
  const size_t lseCount = size_t(s.B * s.Hq * s.Nq);
  const size_t biasCount = size_t(s.B * s.Hq * s.Nq * s.Nk);
  std::vector<float> biasF;
  bool hasLse = false, hasBias = false;
  for (const auto &a : pg.args) {
    hasLse |= a == "lse";
    hasBias |= a == "bias";
  }
  if (hasBias) {
    std::uniform_int_distribution<int> dist(-256, 256);
    biasF.resize(biasCount);
    in.bias.resize(biasCount);
    for (size_t i = 0; i < biasCount; ++i)
      in.bias[i] = biasF[i] = float(dist(rng)) / 64.0f;
  }

  std::string err;
  std::vector<Cuda::CUdeviceptr> live;
  auto alloc = [&](size_t bytes) -> Cuda::CUdeviceptr {
    Cuda::CUdeviceptr p = 0;
    if (!cu.check(cu.memAlloc(&p, bytes), "cuMemAlloc", err))
      return 0;
    live.push_back(p);
    return p;
  };
  Cuda::CUdeviceptr dq = alloc(qb.size() * 2), dk = alloc(kb.size() * 2),
                    dv = alloc(vb.size() * 2), dO = alloc(oCount * 2),
                    dl = hasLse ? alloc(lseCount * 4) : 0,
                    db = hasBias ? alloc(biasCount * 4) : 0;
  bool ok =
      err.empty() &&
      cu.check(cu.memcpyHtoD(dq, qb.data(), qb.size() * 2), "copy q", err) &&
      cu.check(cu.memcpyHtoD(dk, kb.data(), kb.size() * 2), "copy k", err) &&
      cu.check(cu.memcpyHtoD(dv, vb.data(), vb.size() * 2), "copy v", err) &&
      (!hasBias || cu.check(cu.memcpyHtoD(db, biasF.data(), biasCount * 4),
                            "copy bias", err));
  if (ok && poison) {
    std::vector<uint16_t> nanO(oCount, 0x7fff);
    std::vector<float> nanL(lseCount, NAN);
    ok =
        cu.check(cu.memcpyHtoD(dO, nanO.data(), oCount * 2), "poison o", err) &&
        (!hasLse || cu.check(cu.memcpyHtoD(dl, nanL.data(), lseCount * 4),
                             "poison lse", err));
  }

  // Parameters: KernelABI.h's memref ABI (allocated ptr, aligned ptr,
  // offset, sizes, strides; 64-bit each), an f32 as itself.
  std::vector<int64_t> words;
  std::vector<size_t> starts; // index into words of each parameter
  std::vector<float> floats;
  std::vector<std::pair<bool, size_t>> order; // (is float, index)
  // Each argument's memref (sizes, strides), for its tensor map.
  struct Memref {
    Cuda::CUdeviceptr ptr = 0;
    std::vector<int64_t> sizes, strides;
  };
  std::vector<Memref> memrefs;
  auto memref = [&](Cuda::CUdeviceptr ptr, std::vector<int64_t> sizes) {
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t i = sizes.size() - 1; i-- > 0;)
      strides[i] = strides[i + 1] * sizes[i + 1];
    memrefs.push_back({ptr, sizes, strides});
    std::vector<int64_t> w = {int64_t(ptr), int64_t(ptr), 0};
    w.insert(w.end(), sizes.begin(), sizes.end());
    w.insert(w.end(), strides.begin(), strides.end());
    for (int64_t x : w) {
      order.push_back({false, words.size()});
      words.push_back(x);
    }
  };
  for (const auto &a : pg.args) {
    if (a == "q")
      memref(dq, {s.B, s.Hq, s.Nq, pg.D});
    else if (a == "k")
      memref(dk, {s.B, s.Hkv, s.Nk, pg.D});
    else if (a == "v")
      memref(dv, {s.B, s.Hkv, s.Nk, pg.D});
    else if (a == "o")
      memref(dO, {s.B, s.Hq, s.Nq, pg.D});
    else if (a == "lse")
      memref(dl, {s.B, s.Hq, s.Nq});
    else if (a == "bias")
      memref(db, {s.B, s.Hq, s.Nq, s.Nk});
    else if (a == "scale") {
      memrefs.push_back({}); // argument numbers count the scale too
      order.push_back({true, floats.size()});
      floats.push_back(float(in.scale));
    } else {
      err += "unknown argument '" + a + "'; ";
      ok = false;
    }
  }
  std::vector<void *> params;
  for (auto [isFloat, i] : order)
    params.push_back(isFloat ? static_cast<void *>(&floats[i])
                             : static_cast<void *>(&words[i]));
  // Tensor maps, after the arguments (KernelABI.h), as the runtime encodes
  // them: swizzled by the box's bytes (128 or 64), zeros past the end.
  attn::KernelParams maps;
  for (const attn::TensorMapSpec &m : pg.tensorMaps) {
    attn::TensorMapGeometry g;
    const Memref *mr = size_t(m.arg) < memrefs.size() && memrefs[m.arg].ptr
                           ? &memrefs[m.arg]
                           : nullptr;
    if (!mr || !attn::tensorMapGeometry(mr->sizes, mr->strides, 2, m.boxRows, g,
                                        m.boxBytes)) {
      err += "no tensor map of argument " + std::to_string(m.arg) + "; ";
      ok = false;
      break;
    }
    alignas(128) unsigned char map[attn::kTensorMapBytes];
    const uint32_t unit[5] = {1, 1, 1, 1, 1};
    const int type = pg.dtype == ATTN_DTYPE_F16 ? 6 : 9; // FLOAT16, BFLOAT16
    ok =
        ok && cu.check(cu.tensorMapEncodeTiled(
                           map, type, g.rank, reinterpret_cast<void *>(mr->ptr),
                           g.dims, g.strides, g.box, unit, /*interleave=*/0,
                           attn::tensorMapSwizzle(m.boxBytes),
                           /*L2 256B=*/3, /*oob=*/0),
                       "cuTensorMapEncodeTiled", err);
    maps.addTensorMap(map);
  }
  void **mapParams = maps.data();
  params.insert(params.end(), mapParams, mapParams + maps.size());
  // A dynamic grid's tile counter, last: zero before, zero after.
  const uint32_t zero = 0;
  Cuda::CUdeviceptr counter = 0;
  if (pg.tileCounter) {
    counter = alloc(4);
    ok = ok && counter &&
         cu.check(cu.memcpyHtoD(counter, &zero, 4), "zero the tile counter",
                  err);
    params.push_back(&counter);
  }

  std::vector<uint16_t> oBits(oCount);
  std::vector<float> lse(lseCount);
  // The grid of tiles (ceil(Nq / block_m), Hq, B), or a persistent
  // kernel's min(SMs, tiles) programs.
  attn::LaunchGrid tiles;
  tiles.persistent = pg.persistent;
  tiles.dims[0] = {attn::GridFactor::QBlocks};
  tiles.dims[1] = {attn::GridFactor::HeadsQ};
  tiles.dims[2] = {attn::GridFactor::Batch};
  attn::GridValues gv;
  gv.batch = s.B;
  gv.headsQ = s.Hq;
  gv.qBlocks = (s.Nq + pg.blockM - 1) / pg.blockM;
  gv.smCount = cu.smCount;
  unsigned grid[3] = {1, 1, 1};
  if (ok && !attn::launchGridDims(tiles, gv, grid)) {
    err += "launch grid out of range; ";
    ok = false;
  }
  ok = ok &&
       cu.check(cu.launchKernel(fn, grid[0], grid[1], grid[2],
                                unsigned(pg.threads), 1, 1, unsigned(pg.smem),
                                nullptr, params.data(), nullptr),
                "cuLaunchKernel", err) &&
       cu.check(cu.ctxSynchronize(), "running the kernel", err) &&
       cu.check(cu.memcpyDtoH(oBits.data(), dO, oCount * 2), "copy o back",
                err) &&
       (!hasLse || cu.check(cu.memcpyDtoH(lse.data(), dl, lseCount * 4),
                            "copy lse back", err));
  if (ok && pg.tileCounter) {
    uint32_t left = 1;
    ok = cu.check(cu.memcpyDtoH(&left, counter, 4),
                  "copy the tile counter back", err);
    if (ok && left != 0) {
      err += "the tile counter is " + std::to_string(left) +
             " after the launch, not 0; ";
      ok = false;
    }
  }
  int rc = 1;
  if (ok) {
    double rel = 0;
    err = compare(in, pg.dtype, oBits, hasLse ? &lse : nullptr, rel);
    char buf[48];
    std::snprintf(buf, sizeof buf, "o rel %.1e", rel);
    msg = buf;
    rc = err.empty() ? 0 : 1;
  }
  if (!err.empty())
    msg += "  FAILED: " + err;
  for (auto p : live)
    cu.memFree(p);
  return rc;
}

// Kernels with planted bugs (PTX for sm_80, JIT-compiled for any later GPU).
const char *kPlantedPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// Each of blockDim.x threads writes word tid: past the end of a buffer of
// fewer words.
.visible .entry oob_write(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// Thread t writes slot t of shared memory, then reads slot (t + 32) % 64,
// another warp's, with no barrier between: a read-after-write hazard.
.visible .entry smem_race(.param .u64 out)
{
  .shared .align 4 .b32 buf[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  add.s32 %r5, %r1, 32;
  and.b32 %r5, %r5, 63;
  shl.b32 %r5, %r5, 2;
  add.s32 %r6, %r2, %r5;
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}

// out[t] = in[t] + 1 where nothing ever wrote in.
.visible .entry uninit_read(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  add.s32 %r3, %r2, 1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)";

// Runs one planted bug; the exit status is 0 whatever the kernel did (the
// sanitizer's report is what counts).
int runPlanted(const std::string &what) {
  const char *entry = what == "oob"      ? "oob_write"
                      : what == "race"   ? "smem_race"
                      : what == "uninit" ? "uninit_read"
                                         : nullptr;
  if (!entry) {
    std::fprintf(stderr, "attn-sanitize-driver: --plant takes oob, race or "
                         "uninit\n");
    return 2;
  }
  Cuda cu;
  std::string err;
  void *module = nullptr, *fn = nullptr;
  if (!cu.open(err) ||
      !cu.check(cu.moduleLoadData(&module, kPlantedPtx), "cuModuleLoadData",
                err) ||
      !cu.check(cu.moduleGetFunction(&fn, module, entry), "cuModuleGetFunction",
                err)) {
    std::fprintf(stderr, "attn-sanitize-driver: %s\n", err.c_str());
    return 2;
  }
  // 64 threads; the output holds 64 words except for oob (32).
  Cuda::CUdeviceptr out = 0, in = 0;
  const size_t words = what == "oob" ? 32 : 64;
  if (!cu.check(cu.memAlloc(&out, words * 4), "cuMemAlloc", err) ||
      (what == "uninit" &&
       !cu.check(cu.memAlloc(&in, 64 * 4), "cuMemAlloc", err))) {
    std::fprintf(stderr, "attn-sanitize-driver: %s\n", err.c_str());
    return 2;
  }
  void *params[] = {&out, &in};
  cu.check(cu.launchKernel(fn, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr),
           "cuLaunchKernel", err);
  cu.check(cu.ctxSynchronize(), "running the kernel", err);
  std::printf("attn-sanitize-driver: planted %s (%s) ran%s%s\n", what.c_str(),
              entry, err.empty() ? "" : ": ", err.c_str());
  cu.memFree(out);
  if (in)
    cu.memFree(in);
  cu.moduleUnload(module);
  cu.close();
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: attn-sanitize-driver [--bundle DIR] [--programs FILE] "
               "[--shapes B,Hq,Hkv,Nq,Nk[,bnhd];...] [--no-poison] "
               "[--seed N] [--list]\n"
               "       attn-sanitize-driver --plant oob|race|uninit\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string bundle, programsFile;
  std::string shapeSpec =
      "1,2,1,130,77;2,2,2,17,200,bnhd;1,4,1,257,513;1,1,1,1,1";
  bool poison = true, list = false;
  uint64_t seed = 12345;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bundle" && i + 1 < argc)
      bundle = argv[++i];
    else if (a == "--shapes" && i + 1 < argc)
      shapeSpec = argv[++i];
    else if (a == "--programs" && i + 1 < argc)
      programsFile = argv[++i];
    else if (a == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--no-poison")
      poison = false;
    else if (a == "--list")
      list = true;
    else if (a == "--plant" && i + 1 < argc)
      return runPlanted(argv[++i]);
    else
      return usage();
  }
  std::vector<Shape> shapes;
  if ((bundle.empty() && programsFile.empty()) ||
      !parseShapes(shapeSpec, shapes))
    return usage();
  std::set<Family> families;
  std::set<std::string> chips;
  if (!bundle.empty() &&
      (!readFamilies(bundle, families, chips) || families.empty())) {
    std::fprintf(stderr,
                 "attn-sanitize-driver: no kernels in %s/manifest.txt\n",
                 bundle.c_str());
    return 2;
  }
  std::vector<Program> programs;
  std::string err;
  if (!programsFile.empty() && !readPrograms(programsFile, programs, err)) {
    std::fprintf(stderr, "attn-sanitize-driver: %s\n", err.c_str());
    return 2;
  }
  std::string chipList;
  for (const auto &c : chips)
    chipList += (chipList.empty() ? "" : ",") + c;
  std::printf(
      "attn-sanitize-driver: bundle %s: %zu kernel families (chips %s), "
      "%zu shapes, %zu programs, outputs %s\n",
      bundle.empty() ? "(none)" : bundle.c_str(), families.size(),
      chipList.c_str(), shapes.size(), programs.size(),
      poison ? "NaN-poisoned" : "uninitialised");
  if (list) {
    for (const auto &f : families)
      std::printf("  %s\n", f.str().c_str());
    return 0;
  }

  int cases = 0, failed = 0, unsupported = 0;
  std::set<std::string> kernelsRun;
  uint64_t caseSeed = seed;
  Runtime R;
  if (!families.empty()) {
    attn_runtime_options opts{bundle.c_str(), nullptr};
    if (attn_runtime_create(&opts, &R.rt) != ATTN_OK) {
      std::fprintf(stderr,
                   "attn-sanitize-driver: cannot start the runtime: %s\n",
                   attn_last_error_message());
      return 2;
    }
    attn_device_info dev;
    if (attn_device_get_info(R.rt, 0, &dev) == ATTN_OK)
      std::printf("attn-sanitize-driver: device 0: %s (sm_%d%d)\n", dev.name,
                  dev.cc_major, dev.cc_minor);
  }
  for (const auto &f : families)
    for (const auto &s : shapes) {
      std::string msg;
      const int rc = runBundleCase(R, f, s, poison, caseSeed++, msg);
      ++cases;
      failed += rc == 1;
      unsupported += rc == 2;
      if (rc == 0)
        kernelsRun.insert(msg.substr(0, msg.find("  ")));
      std::printf("%s %s | %s | %s\n",
                  rc == 0   ? "ok  "
                  : rc == 2 ? "UNSUPPORTED"
                            : "FAIL",
                  f.str().c_str(), s.str().c_str(), msg.c_str());
      std::fflush(stdout);
    }
  if (R.rt)
    attn_runtime_destroy(R.rt);

  int progCases = 0, progFailed = 0;
  if (!programs.empty()) {
    Cuda cu;
    if (!cu.open(err)) {
      std::printf("FAIL programs: %s\n", err.c_str());
      ++progFailed;
    } else {
      for (const auto &pg : programs) {
        std::ifstream in(pg.ptx, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        const std::string ptx = text.str();
        void *module = nullptr, *fn = nullptr;
        std::string lerr;
        if (!in || ptx.empty() ||
            !cu.check(cu.moduleLoadData(&module, ptx.c_str()),
                      "cuModuleLoadData", lerr) ||
            !cu.check(cu.moduleGetFunction(&fn, module, pg.kernel.c_str()),
                      "cuModuleGetFunction", lerr) ||
            !cu.check(
                cu.funcSetAttribute(fn, 8 /* max dynamic smem */, pg.smem),
                "cuFuncSetAttribute", lerr)) {
          std::printf("FAIL program %s: %s %s\n", pg.name.c_str(),
                      pg.ptx.c_str(), lerr.c_str());
          ++progFailed;
          ++progCases;
          if (module)
            cu.moduleUnload(module);
          continue;
        }
        for (const auto &s : shapes) {
          // A bias of Nq·Nk floats per head stays small here.
          std::string msg;
          const int rc = runProgramCase(cu, fn, pg, s, poison, caseSeed++, msg);
          ++progCases;
          progFailed += rc != 0;
          Shape sc = s;
          sc.bnhd = false;
          std::printf("%s program %s | %s | %s\n", rc == 0 ? "ok  " : "FAIL",
                      pg.name.c_str(), sc.str().c_str(), msg.c_str());
          std::fflush(stdout);
        }
        cu.moduleUnload(module);
      }
      cu.close();
    }
  }

  std::printf(
      "attn-sanitize-driver: %d bundle cases (%zu kernels): %d passed, %d "
      "failed, %d unsupported; %d program cases: %d failed\n",
      cases, kernelsRun.size(), cases - failed - unsupported, failed,
      unsupported, progCases, progFailed);
  if (failed || progFailed)
    return 1;
  if (cases && unsupported == cases)
    return 3;
  return 0;
}
