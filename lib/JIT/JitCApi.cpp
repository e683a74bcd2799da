//===- JitCApi.cpp - libattn_jit (C API) ------------------------*- C++ -*-===//
#include "attn/JIT/attn_jit.h"

#include "attn/JIT/Jit.h"


using attn::Status;
using attn::StatusCode;

namespace {

Status toOptions(const attn_jit_options *in, attn::jit::JitOptions &out) {
  if (!in)
    return Status::success();
  for (int32_t r : in->reserved)
    if (r != 0)
      return Status::error(StatusCode::InvalidArgument,
                           "attn_jit_options.reserved is not 0: reserved "
                           "fields must be 0 (attn_jit_options_init sets "
                           "them)");
  switch (in->cache_mode) {
  case ATTN_JIT_CACHE_READ_WRITE:
    out.cache = attn::jit::CacheMode::ReadWrite;
    break;
  case ATTN_JIT_CACHE_READ_ONLY:
    out.cache = attn::jit::CacheMode::ReadOnly;
    break;
  case ATTN_JIT_CACHE_OFF:
    out.cache = attn::jit::CacheMode::Off;
    break;
  default:
    return Status::error(StatusCode::InvalidArgument,
                         "attn_jit_options.cache_mode is " +
                             std::to_string(in->cache_mode) +
                             " (ATTN_JIT_CACHE_READ_WRITE/READ_ONLY/OFF are "
                             "0/1/2)");
  }
  if (in->use_nvjitlink != 0 && in->use_nvjitlink != 1)
    return Status::error(StatusCode::InvalidArgument,
                         "attn_jit_options.use_nvjitlink must be 0 or 1");
  out.useNvJitLink = in->use_nvjitlink;
  if (in->cache_dir)
    out.cacheDir = in->cache_dir;
  if (in->nvjitlink_library)
    out.nvJitLinkLibrary = in->nvjitlink_library;
  return Status::success();
}

} // namespace

extern "C" {

void attn_jit_options_init(attn_jit_options *options) {
  if (!options)
    return;
  *options = attn_jit_options{};
  options->cache_mode = ATTN_JIT_CACHE_READ_WRITE;
  options->use_nvjitlink = 1;
}

attn_status attn_jit_create(const attn_jit_options *options,
                            attn_compiler **out) {
  // Built without exceptions, as LLVM is: nothing here throws.
  {
    if (!out)
      return attn::detail::reportToC(
          Status::error(StatusCode::InvalidArgument, "out is null"));
    *out = nullptr;
    attn::jit::JitOptions jo;
    if (Status s = toOptions(options, jo); !s.ok())
      return attn::detail::reportToC(s);
    auto handle = std::make_unique<attn_compiler>();
    if (Status s = attn::jit::createCompiler(jo, handle->impl); !s.ok())
      return attn::detail::reportToC(s);
    *out = handle.release();
    return ATTN_OK;
  }
}

void attn_jit_destroy(attn_compiler *compiler) { delete compiler; }

attn_status attn_runtime_create_with_jit(const attn_runtime_options *options,
                                         const attn_jit_options *jit,
                                         attn_runtime **out) {
  attn_compiler *compiler = nullptr;
  if (attn_status s = attn_jit_create(jit, &compiler); s != ATTN_OK) {
    if (out)
      *out = nullptr;
    return s;
  }
  // The runtime shares the compiler; this handle is only the C wrapper.
  attn_status s = attn_runtime_create_with_compiler(options, compiler, out);
  attn_jit_destroy(compiler);
  return s;
}

const char *attn_jit_compiler_version(void) {
  return attn::jit::compilerVersion().c_str();
}

} // extern "C"
