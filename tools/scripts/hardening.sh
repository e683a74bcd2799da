#!/usr/bin/env bash
# The builds that CI's Release-with-assertions build cannot replace:
#
#   tools/scripts/hardening.sh sanitize
#       ASan + UBSan build of everything (attn-opt, attn-run, attn-bundle,
#       the runtime and its unit tests) with clang 22 in build-san/, then the
#       whole lit suite there. A sanitizer report aborts the tool (no
#       recovery), so it fails the test that triggered it.
#       ATTN_SAN_BUNDLE=DIR: use the kernel bundle in DIR (the main build's
#       build/bundle, from the same sources) instead of generating the
#       990-cubin bundle again under ASan (17 minutes on 2 cores; CI does
#       this).
#   tools/scripts/hardening.sh fuzz [SECONDS] [libFuzzer args...]
#       the libFuzzer target attn-fuzz (same build: ASan + UBSan + coverage),
#       seeded from every MLIR input under test/ (each split at `// -----`
#       and paired with every stage), run for SECONDS (default 60). Crashes
#       land in build-san/fuzz/crashes/; the corpus grows in
#       build-san/fuzz/corpus/ and is reused by the next run.
#   tools/scripts/hardening.sh reproduce FILE...
#       runs attn-fuzz on saved inputs (a crash file) once each.
#
# Needs clang-22 and libclang-rt-22-dev (installed here if missing, as
# tools/scripts/setup.sh does for the main build).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${ATTN_SAN_BUILD:-build-san}
CMD=${1:-}
[ $# -gt 0 ] && shift

need_pkgs() {
  local missing=()
  for p in clang-22 libclang-rt-22-dev llvm-22-dev libmlir-22-dev \
    mlir-22-tools ninja-build cmake libgtest-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
      grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    local SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "hardening: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
  fi
}

configure() {
  need_pkgs
  local bundle=()
  if [ -n "${ATTN_SAN_BUNDLE:-}" ]; then
    bundle=(-DATTN_PREBUILT_BUNDLE_DIR="$(cd "$ATTN_SAN_BUNDLE" && pwd)")
    [ -f "$BUILD/build.ninja" ] && cmake "$BUILD" "${bundle[@]}" >/dev/null
  fi
  if [ ! -f "$BUILD/build.ninja" ]; then
    # -O1: sanitizer builds at -O3 take much longer to compile on 2 cores
    # and find the same bugs.
    cmake -G Ninja -S . -B "$BUILD" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
      -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
      -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
      -DATTN_SANITIZERS="address;undefined" -DATTN_ENABLE_FUZZER=ON \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${bundle[@]}"
  fi
}

# Reports name the source line; leaks are findings too.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free slab space
# when compiled with ASan. Our instrumented inline copies (e.g. an attribute
# storage's copyInto) and the uninstrumented libMLIR share one allocator, so
# memory that libMLIR hands out stays poisoned and every later read of it is
# a false "use-after-poison". Heap, stack and global checks are unaffected.
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

case "$CMD" in
sanitize)
  configure
  ninja -C "$BUILD" check-attn
  ;;
fuzz)
  SECONDS_TO_RUN=${1:-60}
  [ $# -gt 0 ] && shift
  configure
  ninja -C "$BUILD" attn-fuzz
  FUZZ=$BUILD/fuzz
  mkdir -p "$FUZZ/corpus" "$FUZZ/seeds" "$FUZZ/crashes"
  python3 tools/attn-fuzz/make_seeds.py test "$FUZZ/seeds"
  # -timeout: an input that takes longer is a hang (a finding);
  # -rss_limit_mb: so is one that needs more memory than CI has to spare.
  "$BUILD/bin/attn-fuzz" "$FUZZ/corpus" "$FUZZ/seeds" \
    -max_total_time="$SECONDS_TO_RUN" -timeout=20 -rss_limit_mb=4096 \
    -max_len=16384 -dict=tools/attn-fuzz/attn.dict \
    -artifact_prefix="$FUZZ/crashes/" -print_final_stats=1 "$@"
  ;;
reproduce)
  configure
  ninja -C "$BUILD" attn-fuzz
  "$BUILD/bin/attn-fuzz" -runs=1 "$@"
  ;;
*)
  sed -n '2,20p' "$0"
  exit 2
  ;;
esac
