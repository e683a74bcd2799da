//===- Driver.cpp - the CUDA driver, loaded at run time ---------*- C++ -*-===//
#include "Driver.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace attn {
namespace detail {

std::string Driver::errorText(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (!getErrorName || getErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (!getErrorString || getErrorString(r, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::string s = name ? name : "CUresult " + std::to_string(int(r));
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

Status Driver::fail(const std::string &what, CUresult r) const {
  return Status::error(StatusCode::CudaError, what + ": " + errorText(r));
}

namespace {

std::string loadedFrom(void *symbol, const std::string &fallback) {
  Dl_info info;
  if (symbol && dladdr(symbol, &info) && info.dli_fname)
    return info.dli_fname;
  return fallback;
}

Status open(const std::string &library, std::unique_ptr<Driver> &out) {
  dlerror();
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's
  // undefined references (a program may link the stub for other reasons).
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Status::error(StatusCode::NoDriver,
                         "no CUDA driver: " + library + " not found (" +
                             (why ? why : "dlopen failed") + ")");
  }
  auto d = std::make_unique<Driver>();
  d->init = reinterpret_cast<decltype(d->init)>(dlsym(handle, "cuInit"));
  d->getErrorName = reinterpret_cast<decltype(d->getErrorName)>(
      dlsym(handle, "cuGetErrorName"));
  d->getErrorString = reinterpret_cast<decltype(d->getErrorString)>(
      dlsym(handle, "cuGetErrorString"));
  if (!d->init) {
    dlclose(handle);
    return Status::error(StatusCode::NoDriver,
                         "no CUDA driver: " + library +
                             " has no cuInit (not a CUDA driver library)");
  }
  d->library = loadedFrom(reinterpret_cast<void *>(d->init), library);

  CUresult r = d->init(0);
  switch (r) {
  case CUDA_SUCCESS:
    break;
  case CUDA_ERROR_STUB_LIBRARY:
    return Status::error(StatusCode::NoDriver,
                         "CUDA driver is the stub library (no GPU): " +
                             d->library);
  case CUDA_ERROR_NO_DEVICE:
    return Status::error(StatusCode::NoDevice,
                         "no CUDA device: cuInit: " + d->errorText(r));
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return Status::error(StatusCode::NoDriver,
                         "unusable CUDA driver " + d->library +
                             ": cuInit: " + d->errorText(r));
  default:
    return Status::error(
        StatusCode::NoDriver,
        "CUDA driver " + d->library +
            " failed to initialise: cuInit: " + d->errorText(r));
  }

#define ATTN_RESOLVE(member, symbol)                                           \
  d->member = reinterpret_cast<decltype(d->member)>(dlsym(handle, #symbol));   \
  if (!d->member)                                                              \
    return Status::error(StatusCode::NoDriver,                                 \
                         "CUDA driver " + d->library +                         \
                             " is too old: it has no " #symbol);
  ATTN_CUDA_DRIVER_FUNCTIONS(ATTN_RESOLVE)
#undef ATTN_RESOLVE

  if (CUresult v = d->driverGetVersion(&d->version); v != CUDA_SUCCESS)
    return d->fail("cuDriverGetVersion", v);
  out = std::move(d);
  return Status::success();
}

} // namespace

Status loadDriver(const std::string &libraryIn, const Driver *&out) {
  // Never destroyed: kernels may still run (and the runtime's destructor
  // may still call the driver) during static destruction.
  static std::mutex *mu = new std::mutex;
  static auto *drivers = new std::map<std::string, std::unique_ptr<Driver>>;
  const std::string library = libraryIn.empty() ? "libcuda.so.1" : libraryIn;
  std::lock_guard<std::mutex> lock(*mu);
  auto it = drivers->find(library);
  if (it == drivers->end()) {
    std::unique_ptr<Driver> d;
    if (Status s = open(library, d); !s.ok())
      return s;
    it = drivers->emplace(library, std::move(d)).first;
  }
  out = it->second.get();
  return Status::success();
}

} // namespace detail
} // namespace attn
