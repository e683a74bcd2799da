/*===- attn_jit.h - libattn_jit (C API) ---------------------------*- C -*-===*
 *
 * A compiler for the runtime (attn.h): kernels the bundle lacks are compiled
 * in process for the GPU that is present and kept in a disk cache.
 *
 *   attn_jit_options jo;
 *   attn_jit_options_init(&jo);            // cache: $ATTN_CACHE_DIR, else
 *   jo.cache_dir = "/var/cache/myapp";     // $XDG_CACHE_HOME/attn, else
 *                                          // ~/.cache/attn
 *   attn_runtime *rt;
 *   if (attn_runtime_create_with_jit(NULL, &jo, &rt) != ATTN_OK) ...
 *
 * Link libattn_jit (and the runtime). Fields named `reserved` must be 0.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ATTN_JIT_ATTN_JIT_H
#define ATTN_JIT_ATTN_JIT_H

#include "attn/runtime/attn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum attn_jit_cache_mode {
  ATTN_JIT_CACHE_READ_WRITE = 0, /* look up, store what was compiled */
  ATTN_JIT_CACHE_READ_ONLY = 1,  /* look up only */
  ATTN_JIT_CACHE_OFF = 2         /* always compile */
} attn_jit_cache_mode;

typedef struct attn_jit_options {
  const char *cache_dir;   /* NULL: the default (above) */
  int32_t cache_mode;      /* attn_jit_cache_mode */
  int32_t use_nvjitlink;   /* 1: PTX to SASS in process; 0: driver JIT */
  const char *nvjitlink_library; /* NULL: search (attn/JIT/Jit.h) */
  int32_t reserved[4];     /* must be 0 */
} attn_jit_options;

/* The defaults: default cache directory, read-write, nvJitLink searched. */
ATTN_API void attn_jit_options_init(attn_jit_options *options);
/* options may be NULL (the defaults). Warnings go to stderr. */
ATTN_API attn_status attn_jit_create(const attn_jit_options *options,
                                     attn_compiler **out);
ATTN_API void attn_jit_destroy(attn_compiler *compiler);
/* attn_jit_create + attn_runtime_create_with_compiler. */
ATTN_API attn_status attn_runtime_create_with_jit(
    const attn_runtime_options *options, const attn_jit_options *jit,
    attn_runtime **out);
/* The compiler version every cache key includes. */
ATTN_API const char *attn_jit_compiler_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTN_JIT_ATTN_JIT_H */
