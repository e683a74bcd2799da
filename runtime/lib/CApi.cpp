//===- CApi.cpp - the C API over attn::Runtime ------------------*- C++ -*-===//
//
// A thin layer: convert, call, keep the message for attn_last_error_message.
// No exception may cross into C (or ctypes), so each entry point catches
// what the C++ side can throw (std::bad_alloc, in practice).
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/Runtime.h"
#include "attn/runtime/attn.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct attn_runtime {
  std::unique_ptr<attn::Runtime> rt;
};

namespace {

thread_local std::string lastError;

attn_status report(const attn::Status &s) {
  if (s.ok())
    return ATTN_OK;
  lastError = s.message();
  return static_cast<attn_status>(s.code());
}

attn_status reportError(attn_status code, const char *msg) {
  lastError = msg;
  return code;
}

/// The rules an attn_kv_cache or attn_varlen shares: present, reserved 0,
/// check 0 or 1. `name` names it in the message.
template <typename T>
attn_status checkArraysStruct(const T *s, const std::string &name) {
  if (!s)
    return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                       (name + " is null").c_str());
  if (s->reserved)
    return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                       (name + "->reserved must be 0").c_str());
  if (s->check != 0 && s->check != 1)
    return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                       (name + "->check must be 0 or 1").c_str());
  return ATTN_OK;
}

// Runs `body` (returning attn_status), turning exceptions into errors.
template <typename F> attn_status guarded(F body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return reportError(ATTN_ERROR_INTERNAL, "out of host memory");
  } catch (const std::exception &e) {
    return reportError(ATTN_ERROR_INTERNAL, e.what());
  } catch (...) {
    return reportError(ATTN_ERROR_INTERNAL, "unknown exception");
  }
}

void copyString(char *dst, size_t size, const std::string &src) {
  std::snprintf(dst, size, "%s", src.c_str());
}

attn::Strides toStrides(const attn_strides &s) {
  attn::Strides r;
  r.batch = s.batch;
  r.head = s.head;
  r.seq = s.seq;
  r.dim = s.dim;
  return r;
}

/// The C dtype's C++ one; false for a value attn_dtype does not name.
bool toDType(int32_t in, attn::DType &out) {
  switch (in) {
  case ATTN_DTYPE_F32:
    out = attn::DType::F32;
    return true;
  case ATTN_DTYPE_F16:
    out = attn::DType::F16;
    return true;
  case ATTN_DTYPE_BF16:
    out = attn::DType::BF16;
    return true;
  case ATTN_DTYPE_E4M3:
    out = attn::DType::E4M3;
    return true;
  default:
    return false;
  }
}

attn::Status toProblem(const attn_problem *in, attn::ForwardProblem &out) {
  using attn::Status;
  using attn::StatusCode;
  if (!in)
    return Status::error(StatusCode::InvalidArgument, "problem is null");
  // Reserved fields must be zero, so that a later version can give them a
  // meaning (a flag that is off at 0) without old callers' garbage turning
  // it on. attn_problem_init zeroes them.
  if (in->reserved != 0)
    return Status::error(StatusCode::InvalidArgument,
                         "attn_problem.reserved is " +
                             std::to_string(in->reserved) +
                             ": reserved fields must be 0 (attn_problem_init "
                             "sets them)");
  if (!toDType(in->dtype, out.dtype))
    return Status::error(StatusCode::InvalidArgument,
                         "unknown dtype " + std::to_string(in->dtype) +
                             " (ATTN_DTYPE_F32/F16/BF16/E4M3 are 0/1/2/3)");
  if ((in->causal != 0 && in->causal != 1) ||
      (in->with_lse != 0 && in->with_lse != 1))
    return Status::error(StatusCode::InvalidArgument,
                         "causal and with_lse must be 0 or 1");
  out.causal = in->causal;
  out.withLse = in->with_lse;
  out.batch = in->batch;
  out.headsQ = in->heads_q;
  out.headsKV = in->heads_kv;
  out.seqQ = in->seq_q;
  out.seqK = in->seq_k;
  out.headDim = in->head_dim;
  out.headDimV = in->head_dim_v;
  out.scale = in->scale;
  out.q = toStrides(in->q);
  out.k = toStrides(in->k);
  out.v = toStrides(in->v);
  out.o = toStrides(in->o);
  return Status::success();
}

void toKernelInfo(const attn::KernelChoice &c, attn_kernel_info *out) {
  std::memset(out, 0, sizeof(*out));
  copyString(out->name, sizeof(out->name), c.kernel.name);
  copyString(out->chip, sizeof(out->chip), c.kernel.chip.str());
  copyString(out->device_name, sizeof(out->device_name), c.device.name);
  out->device = c.device.ordinal;
  out->cc_major = c.device.ccMajor;
  out->cc_minor = c.device.ccMinor;
  out->head_dim = c.kernel.headDim;
  out->head_dim_v = c.kernel.headDimV;
  out->causal = c.kernel.causal;
  out->block_m = c.kernel.blockM;
  out->block_n = c.kernel.blockN;
  out->threads = c.kernel.threads;
  out->smem = c.kernel.smem;
}

#define ATTN_CHECK_RT(rt)                                                      \
  if (!(rt) || !(rt)->rt)                                                      \
    return reportError(ATTN_ERROR_INVALID_ARGUMENT, "runtime is null");

} // namespace

attn_status attn::detail::reportToC(const attn::Status &status) {
  return report(status);
}

extern "C" {

int attn_c_api_version(void) { return ATTN_C_API_VERSION; }

const char *attn_status_name(attn_status status) {
  return attn::statusCodeName(static_cast<attn::StatusCode>(status));
}

const char *attn_last_error_message(void) { return lastError.c_str(); }

void attn_problem_init(attn_problem *p) {
  if (!p)
    return;
  std::memset(p, 0, sizeof(*p));
  p->dtype = ATTN_DTYPE_BF16;
  p->batch = p->heads_q = p->heads_kv = p->seq_q = p->seq_k = 1;
  p->head_dim = p->head_dim_v = 64;
}

attn_status attn_runtime_create(const attn_runtime_options *options,
                                attn_runtime **out) {
  return attn_runtime_create_with_compiler(options, nullptr, out);
}

attn_status
attn_runtime_create_with_compiler(const attn_runtime_options *options,
                                  attn_compiler *compiler, attn_runtime **out) {
  return guarded([&] {
    if (!out)
      return reportError(ATTN_ERROR_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    attn::RuntimeOptions opts;
    if (options && options->bundle_dir)
      opts.bundleDir = options->bundle_dir;
    if (options && options->driver_library)
      opts.driverLibrary = options->driver_library;
    if (compiler) {
      if (!compiler->impl)
        return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                           "compiler has no implementation");
      opts.compiler = compiler->impl;
    }
    auto handle = std::make_unique<attn_runtime>();
    if (attn_status s = report(attn::Runtime::create(opts, handle->rt)))
      return s;
    *out = handle.release();
    return ATTN_OK;
  });
}

void attn_runtime_destroy(attn_runtime *rt) { delete rt; }

const char *attn_default_bundle_dir(void) {
  thread_local std::string dir;
  try {
    dir = attn::defaultBundleDir();
  } catch (...) {
    dir.clear();
  }
  return dir.c_str();
}

const char *attn_runtime_bundle_dir(const attn_runtime *rt) {
  return rt && rt->rt ? rt->rt->bundle().dir.c_str() : "";
}

int attn_runtime_device_count(const attn_runtime *rt) {
  return rt && rt->rt ? rt->rt->deviceCount() : 0;
}

attn_status attn_device_get_info(attn_runtime *rt, int device,
                                 attn_device_info *out) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    if (!out)
      return reportError(ATTN_ERROR_INVALID_ARGUMENT, "out is null");
    attn::DeviceInfo info;
    if (attn_status s = report(rt->rt->deviceInfo(device, info)))
      return s;
    std::memset(out, 0, sizeof(*out));
    copyString(out->name, sizeof(out->name), info.name);
    out->ordinal = info.ordinal;
    out->cc_major = info.ccMajor;
    out->cc_minor = info.ccMinor;
    out->sm_count = info.smCount;
    out->max_smem_per_block_optin = info.maxSmemPerBlockOptin;
    return ATTN_OK;
  });
}

attn_status attn_forward(attn_runtime *rt, const attn_problem *problem,
                         const void *q, const void *k, const void *v, void *o,
                         float *lse, void *stream) {
  return guarded([&] {
    // The problem struct first: checking it needs no runtime (so it is
    // testable, and reported the same, without a GPU).
    attn::ForwardProblem p;
    if (attn_status s = report(toProblem(problem, p)))
      return s;
    ATTN_CHECK_RT(rt);
    return report(rt->rt->forward(p, q, k, v, o, lse, stream));
  });
}

namespace {
attn_status variantProblem(const attn_problem *problem,
                           const attn_variant &variant,
                           attn::ForwardProblem &p);

/// attn_backward with the forward's variant (null: none).
attn_status backwardOf(attn_runtime *rt, const attn_problem *problem,
                       const attn_variant *variant,
                       const attn_grad_strides *grad_strides, const void *d_o,
                       const void *q, const void *k, const void *v,
                       const void *o, const float *lse, void *dq, void *dk,
                       void *dv, void *stream) {
  attn::ForwardProblem f;
  if (attn_status s = variant ? variantProblem(problem, *variant, f)
                              : report(toProblem(problem, f)))
    return s;
  if (!f.withLse)
    return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                       "with_lse must be 1: the backward reads the LSE the "
                       "forward wrote");
  attn::BackwardProblem p;
  p.shape() = f.shape();
  p.alibiSlopes = f.alibiSlopes;
  p.q = f.q;
  p.k = f.k;
  p.v = f.v;
  p.o = f.o;
  if (grad_strides) {
    p.dO = toStrides(grad_strides->d_o);
    p.dQ = toStrides(grad_strides->dq);
    p.dK = toStrides(grad_strides->dk);
    p.dV = toStrides(grad_strides->dv);
  }
  // The problem's rules need no runtime: reported the same without a GPU.
  if (attn_status s = report(attn::checkBackwardProblem(p)))
    return s;
  ATTN_CHECK_RT(rt);
  return report(rt->rt->backward(p, d_o, q, k, v, o, lse, dq, dk, dv, stream));
}
} // namespace

attn_status attn_backward(attn_runtime *rt, const attn_problem *problem,
                          const attn_grad_strides *grad_strides,
                          const void *d_o, const void *q, const void *k,
                          const void *v, const void *o, const float *lse,
                          void *dq, void *dk, void *dv, void *stream) {
  return guarded([&] {
    return backwardOf(rt, problem, nullptr, grad_strides, d_o, q, k, v, o, lse,
                      dq, dk, dv, stream);
  });
}

attn_status attn_backward_variant(attn_runtime *rt, const attn_problem *problem,
                                  const attn_variant *variant,
                                  const attn_grad_strides *grad_strides,
                                  const void *d_o, const void *q, const void *k,
                                  const void *v, const void *o,
                                  const float *lse, void *dq, void *dk,
                                  void *dv, void *stream) {
  return guarded([&] {
    if (!variant)
      return report(attn::Status::error(attn::StatusCode::InvalidArgument,
                                        "variant is NULL"));
    return backwardOf(rt, problem, variant, grad_strides, d_o, q, k, v, o, lse,
                      dq, dk, dv, stream);
  });
}

namespace {
/// The problem of a forward with a score variant (window, soft-cap): the
/// variant's rules and the problem's are checked before the runtime is
/// touched, so they are reported the same without a GPU.
attn_status variantProblem(const attn_problem *problem,
                           const attn_variant &variant,
                           attn::ForwardProblem &p) {
  if (attn_status s = report(toProblem(problem, p)))
    return s;
  p.windowLeft = variant.window_left;
  p.windowRight = variant.window_right;
  p.softcap = variant.softcap;
  p.alibi = variant.alibi_slopes != nullptr;
  p.alibiSlopes = variant.alibi_slopes;
  // A rate of 0 drops nothing: the kernel without dropout. NaN and
  // negative rates reach checkProblem, which refuses them.
  p.dropout = !(variant.dropout_p == 0.0f);
  p.dropoutRate = variant.dropout_p;
  p.dropoutSeed = variant.dropout_seed;
  p.dropoutOffset = variant.dropout_offset;
  p.bias = variant.bias != nullptr;
  p.biasData = variant.bias;
  p.biasBatch = variant.bias_batch;
  p.biasHeads = variant.bias_heads;
  p.biasStrides = toStrides(variant.bias_strides);
  if (p.bias) {
    if (!toDType(variant.bias_dtype, p.biasType))
      return report(attn::Status::error(
          attn::StatusCode::InvalidArgument,
          "attn_variant.bias_dtype " + std::to_string(variant.bias_dtype) +
              " is not an attn_dtype (ATTN_DTYPE_F32/F16/BF16 are 0/1/2)"));
  }
  for (auto [name, value] : {std::pair{"reserved", variant.reserved},
                             std::pair{"reserved2", variant.reserved2}})
    if (value != 0)
      return report(attn::Status::error(
          attn::StatusCode::InvalidArgument,
          std::string("attn_variant.") + name + " is " + std::to_string(value) +
              ": reserved fields must be 0 (attn_variant_init sets them)"));
  return report(attn::checkProblem(p));
}

attn_status forwardVariant(attn_runtime *rt, const attn_problem *problem,
                           const attn_variant &variant, const void *q,
                           const void *k, const void *v, void *o, float *lse,
                           void *stream) {
  attn::ForwardProblem p;
  if (attn_status s = variantProblem(problem, variant, p))
    return s;
  ATTN_CHECK_RT(rt);
  return report(rt->rt->forward(p, q, k, v, o, lse, stream));
}
} // namespace

attn_status attn_forward_window(attn_runtime *rt, const attn_problem *problem,
                                const attn_window *window, const void *q,
                                const void *k, const void *v, void *o,
                                float *lse, void *stream) {
  return guarded([&] {
    if (!window)
      return report(attn::Status::error(attn::StatusCode::InvalidArgument,
                                        "window is NULL"));
    if (window->left == -1 && window->right == -1)
      return report(attn::Status::error(
          attn::StatusCode::InvalidArgument,
          "window: left and right are both -1 (no window: use "
          "attn_forward)"));
    attn_variant variant;
    attn_variant_init(&variant);
    variant.window_left = window->left;
    variant.window_right = window->right;
    return forwardVariant(rt, problem, variant, q, k, v, o, lse, stream);
  });
}

void attn_variant_init(attn_variant *variant) {
  if (!variant)
    return;
  *variant = attn_variant{};
  variant->window_left = variant->window_right = -1;
  variant->bias_batch = variant->bias_heads = 1;
}

attn_status attn_forward_variant(attn_runtime *rt, const attn_problem *problem,
                                 const attn_variant *variant, const void *q,
                                 const void *k, const void *v, void *o,
                                 float *lse, void *stream) {
  return guarded([&] {
    if (!variant)
      return report(attn::Status::error(attn::StatusCode::InvalidArgument,
                                        "variant is NULL"));
    return forwardVariant(rt, problem, *variant, q, k, v, o, lse, stream);
  });
}

void attn_fp8_init(attn_fp8 *fp8) {
  if (!fp8)
    return;
  *fp8 = attn_fp8{};
  fp8->q_descale = fp8->k_descale = fp8->v_descale = 1;
}

attn_status attn_forward_fp8(attn_runtime *rt, const attn_problem *problem,
                             const attn_fp8 *fp8, const void *q, const void *k,
                             const void *v, void *o, float *lse, void *stream) {
  return guarded([&] {
    attn::ForwardProblem p;
    if (attn_status s = report(toProblem(problem, p)))
      return s;
    if (!fp8)
      return reportError(ATTN_ERROR_INVALID_ARGUMENT, "fp8 is NULL");
    if (fp8->reserved != 0)
      return report(attn::Status::error(
          attn::StatusCode::InvalidArgument,
          "attn_fp8.reserved is " + std::to_string(fp8->reserved) +
              ": reserved fields must be 0 (attn_fp8_init sets them)"));
    if (p.dtype != attn::DType::E4M3)
      return report(attn::Status::error(
          attn::StatusCode::InvalidArgument,
          std::string("attn_forward_fp8 takes an ATTN_DTYPE_E4M3 problem, "
                      "got ") +
              attn::dtypeName(p.dtype)));
    p.qDescale = fp8->q_descale;
    p.kDescale = fp8->k_descale;
    p.vDescale = fp8->v_descale;
    // The problem's rules (descales included) before the runtime is
    // touched: reported the same without a GPU.
    if (attn_status s = report(attn::checkProblem(p)))
      return s;
    ATTN_CHECK_RT(rt);
    return report(rt->rt->forward(p, q, k, v, o, lse, stream));
  });
}

void attn_kv_cache_init(attn_kv_cache *cache) {
  if (!cache)
    return;
  *cache = attn_kv_cache{};
  cache->check = 1;
}

attn_status attn_forward_kv_cache(attn_runtime *rt, const attn_problem *problem,
                                  const attn_kv_cache *cache, const void *q,
                                  const void *k, const void *v, void *o,
                                  float *lse, void *stream) {
  return guarded([&] {
    attn::ForwardProblem p;
    if (attn_status s = report(toProblem(problem, p)))
      return s;
    if (attn_status s = checkArraysStruct(cache, "cache"))
      return s;
    p.kvLayout =
        cache->block_table ? attn::KVLayout::Paged : attn::KVLayout::SeqLens;
    p.pageSize = cache->page_size;
    p.numPages = cache->num_pages;
    p.maxPages = cache->max_pages;
    p.tableStride = cache->table_stride;
    p.checkKVCache = cache->check != 0;
    ATTN_CHECK_RT(rt);
    attn::KVCacheArgs args;
    args.seqLens = cache->seq_lens;
    args.blockTable = cache->block_table;
    return report(rt->rt->forward(p, args, q, k, v, o, lse, stream));
  });
}

void attn_varlen_init(attn_varlen *varlen) {
  if (!varlen)
    return;
  *varlen = attn_varlen{};
  varlen->check = 1;
}

attn_status attn_forward_varlen(attn_runtime *rt, const attn_problem *problem,
                                const attn_varlen *varlen, const void *q,
                                const void *k, const void *v, void *o,
                                float *lse, void *stream) {
  return guarded([&] {
    attn::ForwardProblem p;
    if (attn_status s = report(toProblem(problem, p)))
      return s;
    if (attn_status s = checkArraysStruct(varlen, "varlen"))
      return s;
    p.kvLayout = attn::KVLayout::Varlen;
    p.totalQ = varlen->total_q;
    p.totalK = varlen->total_k;
    p.checkKVCache = varlen->check != 0;
    ATTN_CHECK_RT(rt);
    attn::KVCacheArgs args;
    args.cuSeqlensQ = varlen->cu_seqlens_q;
    args.cuSeqlensK = varlen->cu_seqlens_k;
    return report(rt->rt->forward(p, args, q, k, v, o, lse, stream));
  });
}

namespace {
/// The kernel `p` (checked) would run on `device`, into `out`.
attn_status selectKernel(attn_runtime *rt, const attn::ForwardProblem &p,
                         int device, attn_kernel_info *out) {
  ATTN_CHECK_RT(rt);
  if (!out)
    return reportError(ATTN_ERROR_INVALID_ARGUMENT, "out is null");
  attn::KernelChoice choice;
  if (attn_status s = report(rt->rt->selectKernel(p, device, choice)))
    return s;
  toKernelInfo(choice, out);
  return ATTN_OK;
}
} // namespace

attn_status attn_select_kernel(attn_runtime *rt, const attn_problem *problem,
                               int device, attn_kernel_info *out) {
  return guarded([&] {
    attn::ForwardProblem p; // first, as in attn_forward
    if (attn_status s = report(toProblem(problem, p)))
      return s;
    return selectKernel(rt, p, device, out);
  });
}

attn_status attn_select_kernel_variant(attn_runtime *rt,
                                       const attn_problem *problem,
                                       const attn_variant *variant, int device,
                                       attn_kernel_info *out) {
  return guarded([&] {
    if (!variant)
      return report(attn::Status::error(attn::StatusCode::InvalidArgument,
                                        "variant is NULL"));
    attn::ForwardProblem p;
    if (attn_status s = variantProblem(problem, *variant, p))
      return s;
    return selectKernel(rt, p, device, out);
  });
}

attn_status attn_prepare(attn_runtime *rt, const attn_problem *problems,
                         size_t count, int device) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    if (count && !problems)
      return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                         "problems is null (count is not 0)");
    std::vector<attn::ForwardProblem> list(count);
    for (size_t i = 0; i < count; ++i)
      if (attn::Status s = toProblem(&problems[i], list[i]); !s.ok())
        return report(attn::Status::error(
            s.code(), "problem " + std::to_string(i) + ": " + s.message()));
    return report(rt->rt->prepare(list, device));
  });
}

attn_status attn_last_kernel(const attn_runtime *rt, attn_kernel_info *out) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    if (!out)
      return reportError(ATTN_ERROR_INVALID_ARGUMENT, "out is null");
    attn::KernelChoice choice;
    if (!rt->rt->lastKernel(choice))
      return reportError(ATTN_ERROR_INVALID_ARGUMENT,
                         "no forward call has succeeded on this runtime");
    toKernelInfo(choice, out);
    return ATTN_OK;
  });
}

attn_status attn_malloc(attn_runtime *rt, int device, size_t bytes,
                        void **ptr) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    return report(rt->rt->allocate(device, bytes, ptr));
  });
}

attn_status attn_free(attn_runtime *rt, void *ptr) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    return report(rt->rt->release(ptr));
  });
}

attn_status attn_memcpy_htod(attn_runtime *rt, void *dst, const void *src,
                             size_t bytes) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    return report(rt->rt->copyToDevice(dst, src, bytes));
  });
}

attn_status attn_memcpy_dtoh(attn_runtime *rt, void *dst, const void *src,
                             size_t bytes) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    return report(rt->rt->copyToHost(dst, src, bytes));
  });
}

attn_status attn_synchronize(attn_runtime *rt, int device) {
  return guarded([&] {
    ATTN_CHECK_RT(rt);
    return report(rt->rt->synchronize(device));
  });
}

} // extern "C"
