//===- DriverTest.cpp - no driver, the stub, no GPU: clean errors -*- C++
//-*-===//
//
// A program linked with the runtime must start anywhere and say why it
// cannot run. These paths are exercised on every machine: a library that does
// not exist, one that is not a driver, CUDA's stub libcuda (cuInit returns
// CUDA_ERROR_STUB_LIBRARY), and whatever libcuda.so.1 this machine has.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "attn/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>

using namespace attn;

namespace {

const char *kManifest =
    "kernel name=k ptx=k.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 "
    "block_m=64 threads=128 smem=0 abi=memref\n";

bool contains(const std::string &s, const std::string &needle) {
  return s.find(needle) != std::string::npos;
}

TEST(Driver, MissingLibrary) {
  RuntimeOptions opts;
  opts.driverLibrary = "libattn-no-such-driver.so.1";
  std::unique_ptr<Runtime> rt;
  Status s = Runtime::create(opts, rt);
  EXPECT_EQ(s.code(), StatusCode::NoDriver);
  EXPECT_TRUE(contains(s.message(),
                       "no CUDA driver: libattn-no-such-driver.so.1 not found"))
      << s.message();
  EXPECT_EQ(rt, nullptr);
}

TEST(Driver, NotADriver) {
  RuntimeOptions opts;
  opts.driverLibrary = "libm.so.6";
  std::unique_ptr<Runtime> rt;
  Status s = Runtime::create(opts, rt);
  EXPECT_EQ(s.code(), StatusCode::NoDriver);
  EXPECT_TRUE(contains(s.message(), "has no cuInit")) << s.message();
}

TEST(Driver, StubLibrary) {
  struct stat st;
  if (::stat(ATTN_CUDA_STUB_LIBRARY, &st) != 0)
    GTEST_SKIP() << "no CUDA stub library at " ATTN_CUDA_STUB_LIBRARY;
  RuntimeOptions opts;
  opts.driverLibrary = ATTN_CUDA_STUB_LIBRARY;
  for (int attempt = 0; attempt < 2; ++attempt) { // the failure is not cached
    std::unique_ptr<Runtime> rt;
    Status s = Runtime::create(opts, rt);
    EXPECT_EQ(s.code(), StatusCode::NoDriver);
    EXPECT_TRUE(
        contains(s.message(), "CUDA driver is the stub library (no GPU)"))
        << s.message();
    EXPECT_EQ(rt, nullptr);
  }
}

/// What this machine's libcuda.so.1 says, found independently of the
/// runtime: not loadable (-1), else cuInit(0)'s result.
int probeSystemDriver() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return -1;
  using InitFn = int (*)(unsigned);
  auto init = reinterpret_cast<InitFn>(dlsym(h, "cuInit"));
  int r = init ? init(0) : -2;
  // The handle stays open: unloading a driver after cuInit is not supported.
  return r;
}

TEST(Driver, SystemDriverWorksOrFailsCleanly) {
  test::TempDir dir;
  dir.write("manifest.txt", kManifest);
  dir.write("k.ptx", "// not loaded by this test\n");
  RuntimeOptions opts;
  opts.bundleDir = dir.path();
  std::unique_ptr<Runtime> rt;
  Status s = Runtime::create(opts, rt);
  // The outcome the probe predicts, each with its own exact message.
  const int probe = probeSystemDriver();
  constexpr int kStub = 34,
                kNoDevice = 100; // CUDA_ERROR_STUB_LIBRARY, ..._NO_DEVICE
  if (probe == 0) {
    ASSERT_TRUE(s.ok()) << "cuInit works here, yet: " << s.message();
    ASSERT_NE(rt, nullptr);
    EXPECT_GE(rt->deviceCount(), 1);
    DeviceInfo info;
    Status d = rt->deviceInfo(0, info);
    ASSERT_TRUE(d.ok()) << d.message();
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.smCount, 0);
    Status bad = rt->deviceInfo(rt->deviceCount(), info);
    EXPECT_EQ(bad.code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(contains(bad.message(), "does not exist")) << bad.message();
    return;
  }
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(rt, nullptr);
  if (probe == -1) {
    EXPECT_EQ(s.code(), StatusCode::NoDriver);
    EXPECT_TRUE(contains(s.message(), "no CUDA driver: libcuda.so.1 not found"))
        << s.message();
  } else if (probe == -2) {
    EXPECT_EQ(s.code(), StatusCode::NoDriver);
    EXPECT_TRUE(contains(s.message(), "has no cuInit")) << s.message();
  } else if (probe == kStub) {
    EXPECT_EQ(s.code(), StatusCode::NoDriver);
    EXPECT_TRUE(
        contains(s.message(), "CUDA driver is the stub library (no GPU)"))
        << s.message();
  } else if (probe == kNoDevice) {
    EXPECT_EQ(s.code(), StatusCode::NoDevice);
    EXPECT_TRUE(contains(s.message(), "no CUDA device: cuInit")) << s.message();
  } else {
    EXPECT_EQ(s.code(), StatusCode::NoDriver);
    EXPECT_TRUE(contains(s.message(), "cuInit: ")) << s.message();
  }
}

TEST(Driver, DefaultBundleDirFollowsTheEnvironment) {
  const char *old = std::getenv("ATTN_BUNDLE_DIR");
  std::string saved = old ? old : "";
  setenv("ATTN_BUNDLE_DIR", "/some/bundle", 1);
  EXPECT_EQ(defaultBundleDir(), "/some/bundle");
  unsetenv("ATTN_BUNDLE_DIR");
  EXPECT_FALSE(defaultBundleDir().empty()); // the configured default
  if (old)
    setenv("ATTN_BUNDLE_DIR", saved.c_str(), 1);
}

} // namespace
