#!/usr/bin/env bash
# Builds attn-opt, attn-run and attn-bundle linked statically against the
# LLVM/MLIR component libraries (-DATTN_STATIC_TOOLS=ON, in build-static/),
# copies them stripped into OUT_DIR and prints their sizes (raw, stripped,
# xz -9) and what they still load at run time. The copies run on a machine
# without LLVM/MLIR (the lent GPU machine: glibc 2.36+; attn-run's CPU path
# would still want libmlir_c_runner_utils and libomp, its GPU path does not).
#
#   tools/scripts/build_static.sh OUT_DIR [--xz|--xz-only]
#                                 [--tools attn-run,attn-jit-check]
#
# --xz also writes OUT_DIR/<tool>.xz (xz -9, about a minute per tool), the
# smallest thing to carry (unpack with xz -d).
# Environment: ATTN_STATIC_BUILD_DIR (default build-static), CMAKE_BUILD_TYPE
# (default Release). Fails if a tool needs a shared library outside
# libc/libm/libdl/libpthread/librt/libz/libzstd and the loader.
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() { echo "usage: $0 OUT_DIR [--xz|--xz-only] [--tools a,b,...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
xz=0
TOOLS=(attn-opt attn-run attn-bundle attn-jit-check)
while [ $# -gt 0 ]; do
  case $1 in
    --xz) xz=1 ;;
    # Only the .xz files stay in OUT_DIR (what travels to the GPU machine).
    --xz-only) xz=2 ;;
    # The GPU check needs attn-run and attn-jit-check only (the carry limit
    # is 64 MiB): --tools attn-run,attn-jit-check.
    --tools) [ $# -ge 2 ] || usage; IFS=, read -r -a TOOLS <<<"$2"; shift ;;
    *) usage ;;
  esac
  shift
done

B=${ATTN_STATIC_BUILD_DIR:-build-static}

if [ ! -f "$B/build.ninja" ]; then
  cmake -G Ninja -S . -B "$B" \
    -DATTN_STATIC_TOOLS=ON \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
start=$(date +%s)
ninja -C "$B" "${TOOLS[@]}"
echo "build-static: ninja took $(( $(date +%s) - start )) s"

mkdir -p "$out"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
allowed='^(libc|libm|libdl|libpthread|librt|libz|libzstd)\.so\.[0-9]+$|^ld-linux'
bad=0
printf '%-12s %10s %10s %10s  %s\n' tool "raw MiB" "strip MiB" "xz MiB" "needs"
total=0
for t in "${TOOLS[@]}"; do
  strip --strip-all -o "$out/$t" "$B/bin/$t"
  raw=$(stat -c %s "$B/bin/$t")
  stripped=$(stat -c %s "$out/$t")
  packed=-
  if ((xz)); then
    xz -9 -T1 -c "$out/$t" > "$out/$t.xz"
    packed=$(mib "$(stat -c %s "$out/$t.xz")")
    total=$((total + $(stat -c %s "$out/$t.xz")))
  else
    total=$((total + stripped))
  fi
  needed=$(readelf -d "$out/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  printf '%-12s %10s %10s %10s  %s\n' "$t" "$(mib "$raw")" "$(mib "$stripped")" \
    "$packed" "$needed"
  for lib in $needed; do
    if ! [[ $lib =~ $allowed ]]; then
      echo "build-static: $t needs $lib (not a base system library)" >&2
      bad=1
    fi
  done
  if ((xz == 2)); then
    rm -f "$out/$t"
  fi
done
if ((xz)); then
  echo "build-static: $(mib $total) MiB as .xz in $out"
else
  echo "build-static: $(mib $total) MiB stripped in $out (--xz: about a quarter)"
fi
exit $bad
