//===- Driver.h - the CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen, never linked: a program built with the
// runtime must start on a machine without a GPU and say why it cannot run.
// cuda.h is included for its types only. Its macros rename many entry points
// (cuMemAlloc -> cuMemAlloc_v2, ...); the table below names the exported
// symbol each pointer is looked up by, so it always gets the ABI its
// prototype describes.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_LIB_DRIVER_H
#define ATTN_RUNTIME_LIB_DRIVER_H

#include "attn/runtime/Status.h"

#include <cuda.h>

#include <string>

namespace attn {
namespace detail {

// X(member, exported symbol). cuInit and the error strings come first: they
// are resolved before the rest so that the stub library is diagnosed as the
// stub, not as a driver with missing symbols.
#define ATTN_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(init, cuInit)                                                              \
  X(getErrorName, cuGetErrorName)                                              \
  X(getErrorString, cuGetErrorString)                                          \
  X(driverGetVersion, cuDriverGetVersion)                                      \
  X(deviceGetCount, cuDeviceGetCount)                                          \
  X(deviceGet, cuDeviceGet)                                                    \
  X(deviceGetName, cuDeviceGetName)                                            \
  X(deviceGetAttribute, cuDeviceGetAttribute)                                  \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain)                                \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease_v2)                           \
  X(ctxPushCurrent, cuCtxPushCurrent_v2)                                       \
  X(ctxPopCurrent, cuCtxPopCurrent_v2)                                         \
  X(ctxGetCurrent, cuCtxGetCurrent)                                            \
  X(ctxSynchronize, cuCtxSynchronize)                                          \
  X(moduleLoadDataEx, cuModuleLoadDataEx)                                      \
  X(moduleGetFunction, cuModuleGetFunction)                                    \
  X(moduleUnload, cuModuleUnload)                                              \
  X(funcGetAttribute, cuFuncGetAttribute)                                      \
  X(funcSetAttribute, cuFuncSetAttribute)                                      \
  X(launchKernel, cuLaunchKernel)                                              \
  X(launchKernelEx, cuLaunchKernelEx)                                          \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled)                              \
  X(pointerGetAttributes, cuPointerGetAttributes)                              \
  X(streamGetCtx, cuStreamGetCtx)                                              \
  X(streamSynchronize, cuStreamSynchronize)                                    \
  X(memAlloc, cuMemAlloc_v2)                                                   \
  X(memFree, cuMemFree_v2)                                                     \
  X(memcpyHtoD, cuMemcpyHtoD_v2)                                               \
  X(memcpyDtoH, cuMemcpyDtoH_v2)                                               \
  X(memsetD8, cuMemsetD8_v2)                                                   \
  X(memPoolCreate, cuMemPoolCreate)                                            \
  X(memPoolDestroy, cuMemPoolDestroy)                                          \
  X(memPoolSetAttribute, cuMemPoolSetAttribute)                                \
  X(memAllocFromPoolAsync, cuMemAllocFromPoolAsync)                            \
  X(memFreeAsync, cuMemFreeAsync)                                              \
  X(memsetD32Async, cuMemsetD32Async)                                          \
  X(streamIsCapturing, cuStreamIsCapturing)

struct Driver {
#define ATTN_DECLARE_MEMBER(member, symbol)                                    \
  decltype(&::symbol) member = nullptr;
  ATTN_CUDA_DRIVER_FUNCTIONS(ATTN_DECLARE_MEMBER)
#undef ATTN_DECLARE_MEMBER

  std::string library; ///< the file that was loaded
  int version = 0;     ///< cuDriverGetVersion: 13000 for CUDA 13.0

  /// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string errorText(CUresult r) const;
  /// A CudaError status "<what>: <errorText>".
  Status fail(const std::string &what, CUresult r) const;
};

/// Opens `library` (empty: libcuda.so.1), resolves the entry points and
/// calls cuInit. The driver stays loaded for the life of the process (libcuda
/// must not be unloaded under live contexts), one per library path.
Status loadDriver(const std::string &library, const Driver *&out);

/// Makes a context current for the life of the object.
class ScopedContext {
public:
  ScopedContext(const Driver &d, CUcontext ctx) : d_(d) {
    r_ = d_.ctxPushCurrent(ctx);
  }
  ~ScopedContext() {
    if (r_ == CUDA_SUCCESS) {
      CUcontext popped;
      // Nothing useful to do if the pop fails: the push succeeded, so it
      // can only fail after the driver was torn down.
      (void)d_.ctxPopCurrent(&popped);
    }
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
  Status status() const {
    return r_ == CUDA_SUCCESS ? Status::success()
                              : d_.fail("cuCtxPushCurrent", r_);
  }

private:
  const Driver &d_;
  CUresult r_;
};

} // namespace detail
} // namespace attn

#endif // ATTN_RUNTIME_LIB_DRIVER_H
