//===- NvJitLink.cpp - PTX to SASS in process -------------------*- C++ -*-===//
#include "NvJitLink.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include <dlfcn.h>

namespace attn::jit {
namespace {

// The entry points used, as nvJitLink.h (CUDA 12+) declares them; declared
// here so that libattn_jit builds without the header and binds at run time
// to whichever 12.x/13.x library is found (the unversioned names are
// exported by every release).
using Handle = struct nvJitLinkOpaque *;
using Result = int; // nvJitLinkResult; 0 is NVJITLINK_SUCCESS
constexpr int kInputPtx = 2; // NVJITLINK_INPUT_PTX

using CreateFn = Result (*)(Handle *, uint32_t, const char *const *);
using DestroyFn = Result (*)(Handle *);
using AddDataFn = Result (*)(Handle, int, const void *, size_t, const char *);
using CompleteFn = Result (*)(Handle);
using SizeFn = Result (*)(Handle, size_t *);
using GetFn = Result (*)(Handle, void *);
using LogFn = Result (*)(Handle, char *);
using VersionFn = Result (*)(unsigned *, unsigned *);

const char *resultName(Result r) {
  static const char *names[] = {"NVJITLINK_SUCCESS",
                                "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
                                "NVJITLINK_ERROR_MISSING_ARCH",
                                "NVJITLINK_ERROR_INVALID_INPUT",
                                "NVJITLINK_ERROR_PTX_COMPILE",
                                "NVJITLINK_ERROR_NVVM_COMPILE",
                                "NVJITLINK_ERROR_INTERNAL",
                                "NVJITLINK_ERROR_THREADPOOL",
                                "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
                                "NVJITLINK_ERROR_FINALIZE",
                                "NVJITLINK_ERROR_NULL_INPUT",
                                "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
                                "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
                                "NVJITLINK_ERROR_ARCH_MISMATCH",
                                "NVJITLINK_ERROR_OUTDATED_LIBRARY",
                                "NVJITLINK_ERROR_MISSING_FATBIN"};
  if (r >= 0 && size_t(r) < sizeof(names) / sizeof(names[0]))
    return names[r];
  return "unknown nvJitLink error";
}

} // namespace

struct NvJitLink::Api {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  AddDataFn addData = nullptr;
  CompleteFn complete = nullptr;
  SizeFn cubinSize = nullptr;
  GetFn cubin = nullptr;
  SizeFn errorLogSize = nullptr;
  LogFn errorLog = nullptr;
  VersionFn version = nullptr;
};

Status NvJitLink::open(const std::string &library,
                       std::unique_ptr<NvJitLink> &out) {
  std::vector<std::string> candidates;
  if (!library.empty()) {
    candidates.push_back(library);
  } else {
    if (const char *env = std::getenv("ATTN_NVJITLINK"); env && *env)
      candidates.push_back(env);
    // The loader's path first (an installed toolkit, a wheel's lib dir on
    // LD_LIBRARY_PATH), then the usual toolkit locations.
    candidates.push_back("libnvJitLink.so.13");
    candidates.push_back("libnvJitLink.so.12");
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char *root = std::getenv(var); root && *root)
        candidates.push_back(std::string(root) + "/lib64/libnvJitLink.so");
    candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so");
  }
  std::string tried;
  void *handle = nullptr;
  std::string found;
  for (const std::string &c : candidates) {
    handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      found = c;
      break;
    }
    const char *err = dlerror();
    tried += "\n  " + c + ": " + (err ? err : "not found");
  }
  if (!handle)
    return Status::error(StatusCode::Unsupported,
                         "nvJitLink not found; tried:" + tried);

  auto api = std::make_unique<Api>();
  bool missing = false;
  std::string missingNames;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, name));
    if (!fn) {
      missing = true;
      missingNames += std::string(" ") + name;
    }
  };
  bind(api->create, "nvJitLinkCreate");
  bind(api->destroy, "nvJitLinkDestroy");
  bind(api->addData, "nvJitLinkAddData");
  bind(api->complete, "nvJitLinkComplete");
  bind(api->cubinSize, "nvJitLinkGetLinkedCubinSize");
  bind(api->cubin, "nvJitLinkGetLinkedCubin");
  bind(api->errorLogSize, "nvJitLinkGetErrorLogSize");
  bind(api->errorLog, "nvJitLinkGetErrorLog");
  bind(api->version, "nvJitLinkVersion");
  if (missing) {
    dlclose(handle);
    return Status::error(StatusCode::Unsupported,
                         found + " lacks" + missingNames);
  }
  unsigned major = 0, minor = 0;
  (void)api->version(&major, &minor);
  out.reset(new NvJitLink());
  out->api = std::move(api);
  out->handle = handle;
  out->description = "nvJitLink " + std::to_string(major) + "." +
                     std::to_string(minor) + " (" + found + ")";
  return Status::success();
}

NvJitLink::~NvJitLink() {
  // The library stays loaded: its static destructors at dlclose have been
  // seen to race with threads still inside it at process exit, and one
  // handle per process costs nothing.
}

Status NvJitLink::assemble(const std::string &ptx, const std::string &arch,
                           std::string &cubin) const {
  const std::string archOpt = "-arch=" + arch;
  const char *options[] = {archOpt.c_str(), "-O3"};
  Handle h = nullptr;
  if (Result r = api->create(&h, 2, options); r != 0)
    return Status::error(StatusCode::Internal,
                         std::string("nvJitLinkCreate: ") + resultName(r));
  auto failWithLog = [&](const char *what, Result r) {
    std::string msg = std::string(what) + " for " + arch + ": " + resultName(r);
    size_t n = 0;
    if (api->errorLogSize(h, &n) == 0 && n > 1) {
      std::string log(n, '\0');
      if (api->errorLog(h, log.data()) == 0) {
        log.resize(n - 1); // the size counts the NUL
        msg += "\n" + log;
      }
    }
    api->destroy(&h);
    return Status::error(StatusCode::Internal, msg);
  };
  // The PTX text, NUL excluded: nvJitLink takes the size of the data.
  if (Result r = api->addData(h, kInputPtx, ptx.data(), ptx.size(), "attn"))
    return failWithLog("nvJitLinkAddData", r);
  if (Result r = api->complete(h))
    return failWithLog("nvJitLinkComplete", r);
  size_t size = 0;
  if (Result r = api->cubinSize(h, &size))
    return failWithLog("nvJitLinkGetLinkedCubinSize", r);
  cubin.assign(size, '\0');
  if (Result r = api->cubin(h, cubin.data()))
    return failWithLog("nvJitLinkGetLinkedCubin", r);
  api->destroy(&h);
  return Status::success();
}

} // namespace attn::jit
