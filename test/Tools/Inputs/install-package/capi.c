/* A C program against an installed attn runtime's C API, built with
 * pkg-config (attn-runtime: the shared library; attn-runtime-static: the
 * static ones). Used by test/Tools/install-package.test. Needs no GPU: it
 * prints what the runtime says (no driver, the stub, no device, or ok). */
#include <attn/runtime/attn.h>

#include <stdio.h>

int main(void) {
  printf("attn C API version %d\n", attn_c_api_version());

  /* A non-zero reserved field is rejected before anything else. */
  attn_problem p;
  attn_problem_init(&p);
  p.reserved = 3;
  attn_kernel_info info;
  attn_status s = attn_select_kernel(NULL, &p, 0, &info);
  printf("reserved=3: %s: %s\n", attn_status_name(s),
         attn_last_error_message());

  attn_runtime *rt = NULL;
  s = attn_runtime_create(NULL, &rt);
  if (s == ATTN_OK) {
    printf("runtime: ok, bundle %s\n", attn_runtime_bundle_dir(rt));
    attn_runtime_destroy(rt);
  } else {
    printf("runtime: %s: %s\n", attn_status_name(s),
           attn_last_error_message());
  }
  printf("default bundle: %s\n", attn_default_bundle_dir());
  return 0;
}
