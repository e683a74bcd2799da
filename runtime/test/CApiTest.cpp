//===- CApiTest.cpp - the C API without a GPU -------------------*- C++ -*-===//
#include "attn/runtime/attn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

TEST(CApi, LayoutMatchesTheDocumentedStructs) {
  // tools/scripts/gpu_check.py mirrors these structs with ctypes.
  EXPECT_EQ(sizeof(attn_strides), 32u);
  EXPECT_EQ(offsetof(attn_problem, batch), 16u);
  EXPECT_EQ(offsetof(attn_problem, scale), 72u);
  EXPECT_EQ(offsetof(attn_problem, q), 80u);
  EXPECT_EQ(sizeof(attn_problem), 208u);
  EXPECT_EQ(sizeof(attn_kernel_info), 128u + 16u + 128u + 10 * 4u);
  EXPECT_EQ(offsetof(attn_kv_cache, num_pages), 16u);
  EXPECT_EQ(offsetof(attn_kv_cache, check), 48u);
  EXPECT_EQ(sizeof(attn_kv_cache), 56u);
  EXPECT_EQ(offsetof(attn_varlen, total_q), 16u);
  EXPECT_EQ(offsetof(attn_varlen, check), 32u);
  EXPECT_EQ(sizeof(attn_varlen), 40u);
  EXPECT_EQ(sizeof(attn_window), 16u);
  EXPECT_EQ(offsetof(attn_variant, alibi_slopes), 24u);
  EXPECT_EQ(offsetof(attn_variant, dropout_p), 32u);
  EXPECT_EQ(offsetof(attn_variant, dropout_offset), 36u);
  EXPECT_EQ(offsetof(attn_variant, dropout_seed), 40u);
  EXPECT_EQ(offsetof(attn_variant, bias), 48u);
  EXPECT_EQ(offsetof(attn_variant, bias_dtype), 56u);
  EXPECT_EQ(offsetof(attn_variant, bias_batch), 64u);
  EXPECT_EQ(offsetof(attn_variant, bias_strides), 80u);
  EXPECT_EQ(sizeof(attn_variant), 112u);
  EXPECT_EQ(attn_c_api_version(), ATTN_C_API_VERSION);
}

TEST(CApi, ProblemDefaults) {
  attn_problem p;
  attn_problem_init(&p);
  EXPECT_EQ(p.dtype, ATTN_DTYPE_BF16);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.seq_k, 1);
  EXPECT_EQ(p.head_dim, 64);
  EXPECT_EQ(p.causal, 0);
  EXPECT_EQ(p.with_lse, 0);
  EXPECT_EQ(p.scale, 0.0);
  EXPECT_EQ(p.q.seq, 0);
  attn_problem_init(nullptr); // harmless
}

TEST(CApi, NoDriverIsAnErrorWithAMessage) {
  attn_runtime_options opts = {nullptr, "libattn-no-such-driver.so.1"};
  attn_runtime *rt = reinterpret_cast<attn_runtime *>(0x1);
  EXPECT_EQ(attn_runtime_create(&opts, &rt), ATTN_ERROR_NO_DRIVER);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("no CUDA driver: libattn-no-such-driver.so.1 not found"),
            std::string::npos)
      << attn_last_error_message();
  EXPECT_STREQ(attn_status_name(ATTN_ERROR_NO_DRIVER), "no CUDA driver");
}

TEST(CApi, NullArguments) {
  EXPECT_EQ(attn_runtime_create(nullptr, nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  attn_problem p;
  attn_problem_init(&p);
  EXPECT_EQ(attn_forward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                         nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  attn_kernel_info info;
  EXPECT_EQ(attn_last_kernel(nullptr, &info), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(attn_malloc(nullptr, 0, 16, nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(attn_runtime_device_count(nullptr), 0);
  EXPECT_STREQ(attn_runtime_bundle_dir(nullptr), "");
  attn_runtime_destroy(nullptr);
}

TEST(CApi, KVCacheArguments) {
  attn_kv_cache c;
  attn_kv_cache_init(&c);
  EXPECT_EQ(c.seq_lens, nullptr);
  EXPECT_EQ(c.block_table, nullptr);
  EXPECT_EQ(c.check, 1);
  EXPECT_EQ(c.page_size, 0);
  attn_kv_cache_init(nullptr); // harmless
  attn_problem p;
  attn_problem_init(&p);
  // The struct is checked before the runtime is looked at.
  EXPECT_EQ(attn_forward_kv_cache(nullptr, &p, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "cache is null");
  c.reserved = 1;
  EXPECT_EQ(attn_forward_kv_cache(nullptr, &p, &c, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "cache->reserved must be 0");
  c.reserved = 0;
  c.check = 2;
  EXPECT_EQ(attn_forward_kv_cache(nullptr, &p, &c, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "cache->check must be 0 or 1");
}

TEST(CApi, VarlenArguments) {
  attn_varlen v;
  attn_varlen_init(&v);
  EXPECT_EQ(v.cu_seqlens_q, nullptr);
  EXPECT_EQ(v.check, 1);
  attn_varlen_init(nullptr); // harmless
  attn_problem p;
  attn_problem_init(&p);
  EXPECT_EQ(attn_forward_varlen(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "varlen is null");
  v.reserved = 2;
  EXPECT_EQ(attn_forward_varlen(nullptr, &p, &v, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "varlen->reserved must be 0");
}

TEST(CApi, WindowArguments) {
  // Checked before the runtime is touched: the same without a GPU.
  attn_problem p;
  attn_problem_init(&p);
  p.head_dim = p.head_dim_v = 64;
  p.dtype = ATTN_DTYPE_BF16;
  auto call = [&](const attn_window *w) {
    return attn_forward_window(nullptr, &p, w, nullptr, nullptr, nullptr,
                               nullptr, nullptr, nullptr);
  };
  EXPECT_EQ(call(nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "window is NULL");
  attn_window w{-1, -1};
  EXPECT_EQ(call(&w), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("both -1"),
            std::string::npos);
  w = {-7, 3};
  EXPECT_EQ(call(&w), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("window_left must be -1 (no bound) or in [0, 2^31), "
                      "got -7"),
            std::string::npos)
      << attn_last_error_message();
  p.causal = 1;
  w = {128, 0};
  EXPECT_EQ(call(&w), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(attn_last_error_message()).find("causal is window_right = 0"),
      std::string::npos);
  // A good window reaches the runtime check.
  w = {128, -1};
  EXPECT_EQ(call(&w), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
}

TEST(CApi, VariantArguments) {
  // Checked before the runtime is touched: the same without a GPU.
  attn_problem p;
  attn_problem_init(&p);
  p.head_dim = p.head_dim_v = 64;
  p.dtype = ATTN_DTYPE_BF16;
  auto call = [&](const attn_variant *v) {
    return attn_forward_variant(nullptr, &p, v, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr);
  };
  EXPECT_EQ(call(nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "variant is NULL");
  attn_variant v;
  attn_variant_init(&v);
  EXPECT_EQ(v.window_left, -1);
  EXPECT_EQ(v.window_right, -1);
  EXPECT_EQ(v.softcap, 0.0f);
  v.softcap = -2;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("softcap must be 0 (none) or a positive, finite, "
                      "normal f32"),
            std::string::npos)
      << attn_last_error_message();
  v.softcap = 30;
  v.window_left = -4;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("window_left"),
            std::string::npos);
  v.window_left = 4096;
  // ALiBi with a soft-cap is refused before the runtime; a reserved field
  // must stay 0.
  float fakeSlopes[4];
  v.alibi_slopes = fakeSlopes;
  EXPECT_EQ(call(&v), ATTN_ERROR_UNSUPPORTED);
  EXPECT_NE(
      std::string(attn_last_error_message()).find("ALiBi with a soft-cap"),
      std::string::npos)
      << attn_last_error_message();
  v.alibi_slopes = nullptr;
  v.reserved = 1;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(attn_last_error_message()).find("attn_variant.reserved is 1"),
      std::string::npos);
  v.reserved = 0;
  // Dropout: a rate in [0, 1) (NaN is not), the dense forward only.
  for (float bad : {1.0f, -0.25f, std::nanf("")}) {
    v.dropout_p = bad;
    EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(attn_last_error_message())
                  .find("dropout rate must be in [0, 1)"),
              std::string::npos)
        << attn_last_error_message();
  }
  v.dropout_p = 0.1f;
  v.dropout_seed = 0xfedcba9876543210ull;
  v.dropout_offset = 7;
  p.dtype = ATTN_DTYPE_E4M3;
  EXPECT_EQ(call(&v), ATTN_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("dropout with e4m3 (fp8) inputs"),
            std::string::npos)
      << attn_last_error_message();
  p.dtype = ATTN_DTYPE_BF16;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  v.dropout_p = 0;
  // A good variant (and none at all) reaches the runtime check.
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  attn_variant_init(&v);
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  // The kernel choice for a variant problem checks the same, first.
  attn_kernel_info info;
  EXPECT_EQ(attn_select_kernel_variant(nullptr, &p, nullptr, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "variant is NULL");
  v.softcap = -1;
  EXPECT_EQ(attn_select_kernel_variant(nullptr, &p, &v, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("softcap must be"),
            std::string::npos);
  v.softcap = 50;
  EXPECT_EQ(attn_select_kernel_variant(nullptr, &p, &v, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
}

TEST(CApi, BiasArguments) {
  attn_problem p;
  attn_problem_init(&p);
  p.batch = 2;
  p.heads_q = p.heads_kv = 4;
  p.seq_q = 100;
  p.seq_k = 300;
  p.head_dim = p.head_dim_v = 128;
  auto call = [&](const attn_variant *v) {
    return attn_forward_variant(nullptr, &p, v, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr);
  };
  attn_variant v;
  attn_variant_init(&v);
  EXPECT_EQ(v.bias, nullptr);
  EXPECT_EQ(v.bias_batch, 1);
  EXPECT_EQ(v.bias_heads, 1);
  // A bias broadcast over the batch, per head, in the inputs' type: the
  // problem's rules pass and the call reaches the runtime check.
  alignas(16) static uint16_t fakeBias[8];
  v.bias = fakeBias;
  v.bias_dtype = ATTN_DTYPE_BF16;
  v.bias_heads = 4;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  // Each rule, before the runtime is touched.
  v.bias_dtype = ATTN_DTYPE_F16;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("bias dtype f16 must be f32 or the inputs' (bf16)"),
            std::string::npos)
      << attn_last_error_message();
  v.bias_dtype = 7;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("attn_variant.bias_dtype 7 is not an attn_dtype"),
            std::string::npos)
      << attn_last_error_message();
  v.bias_dtype = ATTN_DTYPE_F32;
  v.bias_heads = 2;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("bias heads (2) must be 1 or heads_q (4)"),
            std::string::npos)
      << attn_last_error_message();
  v.bias_heads = 1;
  v.bias_batch = 3;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("bias batch (3) must be 1 or the problem's (2)"),
            std::string::npos)
      << attn_last_error_message();
  v.bias_batch = 2;
  v.bias_strides = {4 * 100 * 300, 100 * 300, 300, 2};
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("bias: the last dim must be contiguous"),
            std::string::npos)
      << attn_last_error_message();
  // Rows of any length: the kernel reads the bias element by element.
  v.bias_strides = {100 * 301, 0, 301, 1};
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  v.reserved2 = 1;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("attn_variant.reserved2 is 1"),
            std::string::npos);
  v.reserved2 = 0;
  // Dims given without a bias.
  v.bias = nullptr;
  EXPECT_EQ(call(&v), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("bias data, strides or dims are given but the problem "
                      "has no bias"),
            std::string::npos)
      << attn_last_error_message();
  // Not over a packed batch or with fp8; no backward.
  attn_variant_init(&v);
  v.bias = fakeBias;
  v.bias_dtype = ATTN_DTYPE_F32;
  p.with_lse = 1;
  EXPECT_EQ(attn_backward_variant(nullptr, &p, &v, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("the backward of a forward with a score bias"),
            std::string::npos)
      << attn_last_error_message();
  p.dtype = ATTN_DTYPE_E4M3;
  EXPECT_EQ(call(&v), ATTN_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("a score bias with e4m3 (fp8) inputs"),
            std::string::npos)
      << attn_last_error_message();
}

TEST(CApi, Fp8Arguments) {
  // gpu_check.py mirrors attn_fp8 with ctypes.
  EXPECT_EQ(sizeof(attn_fp8), 16u);
  attn_problem p;
  attn_problem_init(&p);
  p.dtype = ATTN_DTYPE_E4M3;
  p.head_dim = p.head_dim_v = 128;
  p.seq_k = 16; // whole 16-byte rows of the transposed V
  auto call = [&](const attn_fp8 *f) {
    return attn_forward_fp8(nullptr, &p, f, nullptr, nullptr, nullptr, nullptr,
                            nullptr, nullptr);
  };
  EXPECT_EQ(call(nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "fp8 is NULL");
  attn_fp8 f;
  attn_fp8_init(&f);
  EXPECT_EQ(f.q_descale, 1.0f);
  EXPECT_EQ(f.v_descale, 1.0f);
  EXPECT_EQ(f.reserved, 0);
  f.reserved = 3;
  EXPECT_EQ(call(&f), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(attn_last_error_message()).find("attn_fp8.reserved is 3"),
      std::string::npos);
  attn_fp8_init(&f);
  f.v_descale = 0;
  EXPECT_EQ(call(&f), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("v_descale must be a positive, finite, normal f32"),
            std::string::npos)
      << attn_last_error_message();
  // A problem of another dtype is not an fp8 problem.
  f.v_descale = 0.5f;
  p.dtype = ATTN_DTYPE_BF16;
  EXPECT_EQ(call(&f), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("attn_forward_fp8 takes an ATTN_DTYPE_E4M3 problem"),
            std::string::npos);
  // A good one reaches the runtime check.
  p.dtype = ATTN_DTYPE_E4M3;
  EXPECT_EQ(call(&f), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  // Contiguous Vᵀ rows of 17 keys are not 16-byte multiples.
  p.seq_k = 17;
  EXPECT_EQ(call(&f), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("v: dim stride 17 is not a multiple of 16 elements"),
            std::string::npos)
      << attn_last_error_message();
}

TEST(CApi, ErrorMessagesArePerThread) {
  attn_problem p;
  attn_problem_init(&p);
  EXPECT_EQ(attn_forward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                         nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  std::string other;
  std::thread([&] { other = attn_last_error_message(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
}

TEST(CApi, NonZeroReservedFieldIsRejected) {
  attn_problem p;
  attn_problem_init(&p);
  EXPECT_EQ(p.reserved, 0);
  p.reserved = 7;
  // Checked before anything else (the runtime too, so no GPU is needed).
  EXPECT_EQ(attn_forward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                         nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(),
               "attn_problem.reserved is 7: reserved fields must be 0 "
               "(attn_problem_init sets them)");
  attn_kernel_info info;
  EXPECT_EQ(attn_select_kernel(nullptr, &p, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("reserved"),
            std::string::npos)
      << attn_last_error_message();
  p.reserved = -1;
  EXPECT_EQ(attn_select_kernel(nullptr, &p, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("reserved is -1"),
            std::string::npos)
      << attn_last_error_message();
  // Zero again: the same calls now fail only for want of a runtime.
  p.reserved = 0;
  EXPECT_EQ(attn_forward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                         nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  EXPECT_EQ(attn_select_kernel(nullptr, &p, 0, &info),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
}

TEST(CApi, DefaultBundleDirFollowsTheEnvironment) {
  const char *old = std::getenv("ATTN_BUNDLE_DIR");
  std::string saved = old ? old : "";
  setenv("ATTN_BUNDLE_DIR", "/some/bundle", 1);
  EXPECT_STREQ(attn_default_bundle_dir(), "/some/bundle");
  unsetenv("ATTN_BUNDLE_DIR");
  // The build tree has no ../share/attn/bundle next to this test: the
  // configured default.
  EXPECT_STRNE(attn_default_bundle_dir(), "");
  EXPECT_EQ(std::string(attn_default_bundle_dir()).find("share/attn/bundle"),
            std::string::npos)
      << attn_default_bundle_dir();
  if (old)
    setenv("ATTN_BUNDLE_DIR", saved.c_str(), 1);
}

} // namespace

TEST(CApi, BackwardArguments) {
  attn_problem p;
  attn_problem_init(&p);
  p.with_lse = 1;
  // The problem's rules come first, without a runtime.
  EXPECT_EQ(attn_backward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "problem is null");
  p.with_lse = 0;
  EXPECT_EQ(attn_backward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("with_lse must be 1"),
            std::string::npos);
  p.with_lse = 1;
  p.dtype = ATTN_DTYPE_F32;
  EXPECT_EQ(attn_backward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr),
            ATTN_ERROR_UNSUPPORTED);
  p.dtype = ATTN_DTYPE_BF16;
  attn_grad_strides g = {};
  g.dq.dim = 2;
  EXPECT_EQ(attn_backward(nullptr, &p, &g, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("dq: the last dim"),
            std::string::npos)
      << attn_last_error_message();
  // A good problem reaches the runtime check.
  EXPECT_EQ(attn_backward(nullptr, &p, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  EXPECT_EQ(sizeof(attn_grad_strides), 4 * sizeof(attn_strides));

  // The backward of a forward's variant: the variant's rules as the
  // forward's, then the runtime check.
  EXPECT_EQ(attn_backward_variant(nullptr, &p, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "variant is NULL");
  attn_variant var;
  attn_variant_init(&var);
  var.window_left = 128;
  var.softcap = 30;
  EXPECT_EQ(attn_backward_variant(nullptr, &p, &var, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
  var.reserved = 1;
  EXPECT_EQ(attn_backward_variant(nullptr, &p, &var, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message()).find("reserved"),
            std::string::npos);
  // Dropout: the forward's rule on the rate, then the runtime check.
  attn_variant_init(&var);
  var.dropout_p = 1.5f;
  EXPECT_EQ(attn_backward_variant(nullptr, &p, &var, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error_message())
                .find("dropout rate must be in [0, 1)"),
            std::string::npos)
      << attn_last_error_message();
  var.dropout_p = 0.1f;
  EXPECT_EQ(attn_backward_variant(nullptr, &p, &var, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr),
            ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error_message(), "runtime is null");
}
