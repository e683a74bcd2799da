/*===- attn.h - the attn GPU runtime (C API) ----------------------*- C -*-===*
 *
 * A C interface to the runtime for other languages (Python's ctypes, ...).
 * Handles are opaque; every call returns an attn_status, and on failure
 * attn_last_error_message() holds a message for the calling thread. Device
 * pointers and streams are plain pointers (CUdeviceptr / CUstream values),
 * e.g. torch's tensor.data_ptr() and torch.cuda.current_stream().cuda_stream.
 *
 *   attn_runtime *rt;
 *   if (attn_runtime_create(NULL, &rt) != ATTN_OK)
 *     fprintf(stderr, "%s\n", attn_last_error_message());
 *   attn_problem p;
 *   attn_problem_init(&p);
 *   p.batch = 2; p.heads_q = p.heads_kv = 16; p.seq_q = p.seq_k = 4096;
 *   p.head_dim = p.head_dim_v = 128; p.causal = 1;
 *   attn_forward(rt, &p, q, k, v, o, NULL, stream);
 *
 * Fields named `reserved` must be 0 (attn_problem_init zeroes them): a call
 * that passes a struct with a non-zero one fails with
 * ATTN_ERROR_INVALID_ARGUMENT, so that later versions can give them a
 * meaning. The C++ API (Runtime.h) has no such fields.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ATTN_RUNTIME_ATTN_H
#define ATTN_RUNTIME_ATTN_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ATTN_API __attribute__((visibility("default")))
#else
#define ATTN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a struct below changes layout. */
#define ATTN_C_API_VERSION 4

typedef enum attn_status {
  ATTN_OK = 0,
  ATTN_ERROR_INVALID_ARGUMENT = 1, /* the arguments break a rule */
  ATTN_ERROR_UNSUPPORTED = 2,      /* this bundle or GPU cannot run it */
  ATTN_ERROR_NO_DRIVER = 3,        /* no usable libcuda.so.1 (or the stub) */
  ATTN_ERROR_NO_DEVICE = 4,        /* a driver but no usable GPU */
  ATTN_ERROR_BUNDLE = 5,           /* kernel bundle missing or malformed */
  ATTN_ERROR_CUDA = 6,             /* a CUDA driver call failed */
  ATTN_ERROR_INTERNAL = 7,
  ATTN_ERROR_NOT_IN_BUNDLE = 8 /* the bundle lacks the kernel and the runtime
                                  has no compiler (see attn_jit.h) */
} attn_status;

typedef enum attn_dtype {
  ATTN_DTYPE_F32 = 0,
  ATTN_DTYPE_F16 = 1,
  ATTN_DTYPE_BF16 = 2,
  /* fp8 (FlashAttention-3's forward, sm_90): Q, K, V f8E4M3FN (e4m3), O
   * bf16, V stored transposed: keys contiguous, strides {batch, head,
   * seq = 1, dim = the row stride}; all zero means contiguous
   * [B, Hkv, Dv, Nk], whose rows (Nk bytes) must then be a multiple of 16
   * bytes. Descale factors: attn_forward_fp8. */
  ATTN_DTYPE_E4M3 = 3
} attn_dtype;

/* Element strides of a [batch, head, seq, dim] tensor; all zero means
 * contiguous, otherwise dim must be 1 (seq for an e4m3 V). */
typedef struct attn_strides {
  int64_t batch, head, seq, dim;
} attn_strides;

/* Q [B, Hq, Nq, D], K [B, Hkv, Nk, D], V [B, Hkv, Nk, Dv] -> O [B, Hq, Nq, Dv],
 * LSE [B, Hq, Nq] (f32, contiguous) if with_lse. */
typedef struct attn_problem {
  int32_t dtype;    /* attn_dtype */
  int32_t causal;   /* 0 or 1; bottom-right aligned when Nq != Nk */
  int32_t with_lse; /* 0 or 1 */
  int32_t reserved; /* must be 0, else ATTN_ERROR_INVALID_ARGUMENT */
  int64_t batch, heads_q, heads_kv, seq_q, seq_k, head_dim, head_dim_v;
  double scale; /* 0: 1/sqrt(head_dim) */
  attn_strides q, k, v, o;
} attn_problem;

/* A KV cache for attn_forward_kv_cache (decoding from a serving engine's
 * cache). seq_lens: device array of B int32 key counts, each in
 * [0, seq_k] (causal alignment uses it for Nk). block_table: NULL for a
 * contiguous cache (K and V as in attn_problem); else a device array
 * [B, max_pages] int32 (rows table_stride elements apart, 0: max_pages),
 * and K and V are pages [num_pages, Hkv, page_size, D] whose strides'
 * `batch` entry steps over pages (vLLM's [num_pages, page_size, Hkv, D]
 * storage is the strides {page, D, Hkv * D, 1}); key j of sequence b is in
 * page block_table[b, j / page_size], page_size a power of two >= 16, and
 * the problem's seq_k must be max_pages * page_size. check: 1 (what
 * attn_kv_cache_init sets) reads seq_lens and block_table back (a stream
 * synchronisation) and refuses an entry out of range before launching; 0
 * trusts them (a serving loop, CUDA graphs). */
typedef struct attn_kv_cache {
  const int32_t *seq_lens;
  const int32_t *block_table;
  int64_t num_pages, page_size, max_pages, table_stride;
  int32_t check;
  int32_t reserved; /* must be 0 */
} attn_kv_cache;

/* A packed batch for attn_forward_varlen (FlashAttention's varlen): the
 * problem's batch is the number of sequences B and seq_q / seq_k the longest
 * sequence's query and key counts; Q and O hold total_q rows, K and V
 * total_k, one after another (their strides' `batch` entry is unused: e.g.
 * [total, H, D] storage is the strides {0, D, H * D, 1}); sequence b owns
 * rows [cu_seqlens_q[b], cu_seqlens_q[b+1]) and keys [cu_seqlens_k[b],
 * cu_seqlens_k[b+1]) (device arrays of B + 1 int32, from 0,
 * non-decreasing), causal aligned in each; LSE is [Hq, total_q]. check: as
 * in attn_kv_cache. */
typedef struct attn_varlen {
  const int32_t *cu_seqlens_q;
  const int32_t *cu_seqlens_k;
  int64_t total_q, total_k;
  int32_t check;
  int32_t reserved; /* must be 0 */
} attn_varlen;

typedef struct attn_kernel_info {
  char name[128];
  char chip[16];
  char device_name[128];
  int32_t device;
  int32_t cc_major, cc_minor;
  int32_t head_dim, head_dim_v, causal;
  int32_t block_m, block_n, threads, smem;
} attn_kernel_info;

typedef struct attn_device_info {
  char name[128];
  int32_t ordinal;
  int32_t cc_major, cc_minor;
  int32_t sm_count;
  int32_t max_smem_per_block_optin;
} attn_device_info;

typedef struct attn_runtime_options {
  const char *bundle_dir;     /* NULL: attn_default_bundle_dir() */
  const char *driver_library; /* NULL: "libcuda.so.1" */
} attn_runtime_options;

typedef struct attn_runtime attn_runtime;
/* Compiles kernels the bundle lacks; libattn_jit makes one (attn_jit.h). */
typedef struct attn_compiler attn_compiler;

ATTN_API int attn_c_api_version(void);
/* "ok", "invalid argument", ... */
ATTN_API const char *attn_status_name(attn_status status);
/* The message of the calling thread's last failed call ("" if none). Valid
 * until that thread's next call into this API. */
ATTN_API const char *attn_last_error_message(void);

/* bf16, B = Hq = Hkv = Nq = Nk = 1, D = Dv = 64, not causal, default scale,
 * contiguous, no LSE. */
ATTN_API void attn_problem_init(attn_problem *problem);

/* options may be NULL. */
ATTN_API attn_status attn_runtime_create(const attn_runtime_options *options,
                                         attn_runtime **out);
/* A runtime that asks `compiler` for every kernel its bundle lacks (NULL:
 * none, as attn_runtime_create). The runtime shares the compiler: it may be
 * destroyed (attn_jit_destroy) right after this call. */
ATTN_API attn_status
attn_runtime_create_with_compiler(const attn_runtime_options *options,
                                  attn_compiler *compiler, attn_runtime **out);
ATTN_API void attn_runtime_destroy(attn_runtime *rt);
/* The bundle used when options->bundle_dir is NULL: $ATTN_BUNDLE_DIR if set,
 * else <dir>/../share/attn/bundle if that has a manifest.txt, where <dir>
 * holds the runtime's code (libattn_runtime_c.so, or the program linking
 * libattn_runtime.a): in an installed prefix, <prefix>/share/attn/bundle;
 * else the directory the runtime was configured with. Valid until this
 * thread calls it again. */
ATTN_API const char *attn_default_bundle_dir(void);
ATTN_API const char *attn_runtime_bundle_dir(const attn_runtime *rt);
ATTN_API int attn_runtime_device_count(const attn_runtime *rt);
ATTN_API attn_status attn_device_get_info(attn_runtime *rt, int device,
                                          attn_device_info *out);

/* Validates, then launches on `stream` (NULL: the default stream). On error
 * nothing is written to o or lse. */
ATTN_API attn_status attn_forward(attn_runtime *rt, const attn_problem *problem,
                                  const void *q, const void *k, const void *v,
                                  void *o, float *lse, void *stream);
/* attn_forward over a KV cache (attn_kv_cache above). */
ATTN_API attn_status attn_forward_kv_cache(attn_runtime *rt,
                                           const attn_problem *problem,
                                           const attn_kv_cache *cache,
                                           const void *q, const void *k,
                                           const void *v, void *o, float *lse,
                                           void *stream);
/* No cache arrays, check = 1, everything else 0. */
ATTN_API void attn_kv_cache_init(attn_kv_cache *cache);
/* attn_forward over a packed batch (attn_varlen above). */
ATTN_API attn_status attn_forward_varlen(attn_runtime *rt,
                                         const attn_problem *problem,
                                         const attn_varlen *varlen,
                                         const void *q, const void *k,
                                         const void *v, void *o, float *lse,
                                         void *stream);
/* No arrays, check = 1, everything else 0. */
ATTN_API void attn_varlen_init(attn_varlen *varlen);

/* A sliding window (Mistral's and Gemma's local attention, FlashAttention's
 * window_size=(left, right)): query i sees key j only if
 * i + (Nk - Nq) - left <= j <= i + (Nk - Nq) + right; -1: no bound (at
 * least one must be set; with causal, right must be -1: causal is
 * right = 0). */
typedef struct attn_window {
  int64_t left, right;
} attn_window;

/* attn_forward with a sliding window: served by a kernel built for exactly
 * this window (the bundle's, e.g. causal with left = 4096 at head dim 128,
 * else one libattn_jit compiles); not over a KV cache or a packed batch
 * yet. */
ATTN_API attn_status attn_forward_window(attn_runtime *rt,
                                         const attn_problem *problem,
                                         const attn_window *window,
                                         const void *q, const void *k,
                                         const void *v, void *o, float *lse,
                                         void *stream);
/* Score variants of the forward, each served by a kernel built for exactly
 * its values (the bundle's, else one libattn_jit compiles): a sliding window
 * (as attn_window; -1, -1 for none), a soft-cap (Gemma 2's, Grok's:
 * every scaled score S becomes softcap·tanh(S / softcap) before the mask;
 * 0 for none, else positive and finite) and ALiBi (BLOOM's, MPT's;
 * FlashAttention's alibi_slopes: S becomes S − slope[h]·|i + Nk − Nq − j|,
 * alibi_slopes a device array of Hq f32, 4-byte aligned; NULL for none;
 * not with a soft-cap; the kernels take the slopes at run time). */
typedef struct attn_variant {
  int64_t window_left, window_right;
  float softcap;
  int32_t reserved; /* must be 0 */
  const float *alibi_slopes;
  /* Attention dropout (FlashAttention's dropout_p, for training): every
   * probability is kept with probability 1 - dropout_p and scaled by
   * 1/(1 - dropout_p), or dropped (0), after the softmax and before P·V
   * (the LSE is the undropped one). The mask is attn.attention's: Philox
   * 4x32-10 keyed by dropout_seed, its counter's last word dropout_offset
   * (give each call that needs its own mask its own offset); the same
   * (seed, offset) give the same mask on every GPU and on the CPU path.
   * dropout_p in [0, 1); 0: none. The dense forward of f16/bf16 inputs:
   * the bundle's kernel (bf16, head dim 128, not causal, with the LSE:
   * examples/attention-dropout.mlir), else one libattn_jit compiles. */
  float dropout_p;
  uint32_t dropout_offset;
  uint64_t dropout_seed;
  /* An additive score bias (SDPA's float attn_mask, T5's relative
   * positions, key padding as -inf): every scaled score S becomes
   * S + bias[b', h', i, j] after the soft-cap and before ALiBi and the
   * mask (-inf hides the key). A device tensor [bias_batch, bias_heads,
   * Nq, Nk] of bias_dtype (ATTN_DTYPE_F32 or the problem's dtype),
   * bias_batch 1 or B and bias_heads 1 or Hq (1 broadcasts over the dim),
   * element strides bias_strides (all zero: contiguous; otherwise dim,
   * the key's, must be 1), aligned to its element; NULL: none. The dense
   * forward of f16, bf16 or f32 inputs (not over a KV cache or a packed
   * batch; no backward yet): the bundle's kernel (bf16 head dim 128 with a
   * bf16 bias: examples/attention-bias.mlir), else one libattn_jit
   * compiles. */
  const void *bias;
  int32_t bias_dtype;
  int32_t reserved2; /* must be 0 */
  int64_t bias_batch, bias_heads;
  attn_strides bias_strides;
} attn_variant;
/* No window, no soft-cap, no ALiBi, no dropout, no bias (bias_batch and
 * bias_heads 1). */
ATTN_API void attn_variant_init(attn_variant *variant);

/* attn_forward with the variant's window and soft-cap; not over a KV cache
 * or a packed batch yet. */
ATTN_API attn_status attn_forward_variant(attn_runtime *rt,
                                          const attn_problem *problem,
                                          const attn_variant *variant,
                                          const void *q, const void *k,
                                          const void *v, void *o, float *lse,
                                          void *stream);
/* The per-tensor factors that dequantise an e4m3 problem's Q, K and V
 * (FlashAttention-3's q_descale, k_descale, v_descale): the forward computes
 * softmax(scale·qd·kd·Q·Kᵀ)·V·vd from the e4m3 codes. Each positive,
 * finite and a normal f32. */
typedef struct attn_fp8 {
  float q_descale, k_descale, v_descale;
  int32_t reserved; /* must be 0 */
} attn_fp8;
/* All three factors 1. */
ATTN_API void attn_fp8_init(attn_fp8 *fp8);

/* attn_forward of an ATTN_DTYPE_E4M3 problem with descale factors
 * (attn_forward runs one with all three 1): the dense forward, no window
 * or soft-cap, on sm_90 (the bundle's kernels at head dims 64, 128 and 256,
 * else one libattn_jit compiles for a multiple of 64). */
ATTN_API attn_status attn_forward_fp8(attn_runtime *rt,
                                      const attn_problem *problem,
                                      const attn_fp8 *fp8, const void *q,
                                      const void *k, const void *v, void *o,
                                      float *lse, void *stream);

/* The strides of the backward's gradients (attn_strides each; all zero:
 * laid out like what it differentiates: d_o like o, dq like q, dk like k,
 * dv like v). */
typedef struct attn_grad_strides {
  attn_strides d_o, dq, dk, dv;
} attn_grad_strides;

/* The backward of a forward that wrote its LSE (FlashAttention's: S and P
 * recomputed from Q, K and the LSE): dq [B, Hq, Nq, D], dk [B, Hkv, Nk, D]
 * and dv [B, Hkv, Nk, Dv] from d_o [B, Hq, Nq, Dv] and the forward's q, k,
 * v, o and lse. `problem` is the forward's (with_lse must be 1: the LSE is
 * an input here); grad_strides NULL: all zero. GQA sums dk and dv over
 * the query heads of a group; deterministic (a second call writes the
 * same bits). f16 and bf16, dense (attn_backward_variant for a window,
 * soft-cap or ALiBi), head_dim_v = head_dim; the bundle's kernels at head dims
 * 64, 96 and 128, else libattn_jit's (up to 128). Two kernels on `stream`, a
 * workspace of 4·B·Hq·Nq bytes from the runtime's pool between them. On error
 * nothing is written to dq, dk or dv. */
ATTN_API attn_status attn_backward(attn_runtime *rt,
                                   const attn_problem *problem,
                                   const attn_grad_strides *grad_strides,
                                   const void *d_o, const void *q,
                                   const void *k, const void *v, const void *o,
                                   const float *lse, void *dq, void *dk,
                                   void *dv, void *stream);

/* attn_backward of an attn_forward_variant: the same variant (window,
 * soft-cap, ALiBi's slopes; dropout_p must be 0: the runtime's backward
 * has no dropout yet). dS carries the modifier's derivative (the
 * soft-cap's 1 − tanh²); the slopes get no gradient. The kernels are the
 * bundle's where it has them, else libattn_jit's. */
ATTN_API attn_status attn_backward_variant(
    attn_runtime *rt, const attn_problem *problem, const attn_variant *variant,
    const attn_grad_strides *grad_strides, const void *d_o, const void *q,
    const void *k, const void *v, const void *o, const float *lse, void *dq,
    void *dk, void *dv, void *stream);

/* Which kernel forward would run on `device`, without launching. */
ATTN_API attn_status attn_select_kernel(attn_runtime *rt,
                                        const attn_problem *problem, int device,
                                        attn_kernel_info *out);
/* The same for attn_forward_variant's problem (its window and soft-cap). */
ATTN_API attn_status attn_select_kernel_variant(attn_runtime *rt,
                                                const attn_problem *problem,
                                                const attn_variant *variant,
                                                int device,
                                                attn_kernel_info *out);
/* Compile ahead: validates each of the `count` problems (pointers are not
 * looked at), and loads, compiling where the bundle lacks it, the kernel
 * each needs on `device`, so that the first attn_forward does not wait.
 * Stops at the first failure (the message names the problem's index). */
ATTN_API attn_status attn_prepare(attn_runtime *rt,
                                  const attn_problem *problems, size_t count,
                                  int device);
/* The kernel of the last successful attn_forward on this runtime. */
ATTN_API attn_status attn_last_kernel(const attn_runtime *rt,
                                      attn_kernel_info *out);

/* Device memory through the driver API (primary context of `device`). */
ATTN_API attn_status attn_malloc(attn_runtime *rt, int device, size_t bytes,
                                 void **ptr);
ATTN_API attn_status attn_free(attn_runtime *rt, void *ptr);
ATTN_API attn_status attn_memcpy_htod(attn_runtime *rt, void *dst,
                                      const void *src, size_t bytes);
ATTN_API attn_status attn_memcpy_dtoh(attn_runtime *rt, void *dst,
                                      const void *src, size_t bytes);
ATTN_API attn_status attn_synchronize(attn_runtime *rt, int device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTN_RUNTIME_ATTN_H */
