#!/usr/bin/env bash
# On the GPU machine: times every kernel bundle under bundles/ (made here by
# attn-bundle with different tuning knobs) side by side with torch SDPA, in
# one run, so that variants compare on the same GPU at the same moment.
#   tools/scripts/bench_variants.sh [N ...]      (default N: 2048 8192)
# TIMING_D="64 128 256" picks the head dims (default: gpu_check.py's).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR=${OUT:-$PWD/build-gpu/bench-out}
mkdir -p "$OUT_DIR"
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(2048 8192)
first=$(ls -d bundles/*/ | head -1)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DATTN_ENABLE_COMPILER=OFF \
  -DATTN_BUNDLE_DIR="$PWD/$first" -DATTN_RUNTIME_TESTS=OFF >"$OUT_DIR/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >>"$OUT_DIR/build.log" 2>&1 ||
  { tail -30 "$OUT_DIR/build.log"; exit 1; }
for b in bundles/*/; do
  name=$(basename "$b")
  echo "=== $name"
  PYTHONUNBUFFERED=1 python3 tools/scripts/gpu_check.py \
    --lib build-gpu/lib/libattn_runtime_c.so --bundle "$b" --only timing \
    --timing-n "${NS[@]}" ${TIMING_D:+--timing-d $TIMING_D} \
    --out "$OUT_DIR/$name.json" \
    >"$OUT_DIR/$name.log" 2>&1
  sed -n '/^bf16 forward, /,$p' "$OUT_DIR/$name.log"
done
