#!/usr/bin/env bash
# The one script to run on the lent GPU machine, from the repo root:
#
#   tools/gpu-check.sh [--quick] [extra gpu_check.py args]
#
# 1. builds the runtime there with its CMake (no MLIR: -DATTN_ENABLE_COMPILER=OFF)
#    against the kernel bundle carried from the build machine
#    ($ATTN_BUNDLE_DIR, else bundle/ in the repo root);
# 2. runs the runtime's unit tests with the GPU tests required
#    (ATTN_REQUIRE_GPU=1: a GPU test that cannot run fails instead of skipping);
# 3. runs examples/embed;
# 4. runs tools/gpu_check.py: correctness over many shapes, then timing against
#    torch SDPA (FlashAttention-2 and cuDNN); its table is printed last.
#
# Logs and results go to $OUT if set (the device tool brings that folder
# back), else to build-gpu/gpu-check-out/. GoogleTest is taken from .dev/gtest
# if it was carried there (see the end of this file), else from the system;
# without it step 2 is skipped. Exit status: non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

OUT_DIR=${OUT:-$PWD/build-gpu/gpu-check-out}
mkdir -p "$OUT_DIR"
BUNDLE=$(realpath -m "${ATTN_BUNDLE_DIR:-$PWD/bundle}")
BUILD=build-gpu
status=0
step() { printf '\n=== %s\n' "$*"; }
fail() { echo "gpu-check: FAILED: $*"; status=1; }

step "machine"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  nvcc --version | tail -1 || true
  python3 -c 'import torch; print("torch", torch.__version__)' || true
  echo "bundle: $BUNDLE"
} 2>&1 | tee "$OUT_DIR/build.log"
if [ ! -f "$BUNDLE/manifest.txt" ]; then
  echo "gpu-check: no kernel bundle at $BUNDLE (carry bundle/ or set ATTN_BUNDLE_DIR)"
  exit 2
fi

step "build the runtime"
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
GTEST=()
if [ -d .dev/gtest ]; then
  GTEST=(-DGTest_DIR="$PWD/.dev/gtest/lib/x86_64-linux-gnu/cmake/GTest")
fi
{
  cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DATTN_ENABLE_COMPILER=OFF -DATTN_BUNDLE_DIR="$BUNDLE" "${GTEST[@]}" &&
    cmake --build "$BUILD" -j "$(nproc)"
} >>"$OUT_DIR/build.log" 2>&1
build_rc=$?
tail -5 "$OUT_DIR/build.log"
if [ $build_rc -ne 0 ]; then
  tail -40 "$OUT_DIR/build.log"
  echo "gpu-check: the build failed; see build.log"
  exit 1
fi

step "runtime unit tests (GPU tests required)"
if [ -x "$BUILD/test/Unit/AttnRuntimeTests" ]; then
  ATTN_REQUIRE_GPU=1 "$BUILD/test/Unit/AttnRuntimeTests" >"$OUT_DIR/unit.log" 2>&1
  unit_rc=$?
  grep -E '^\[  (FAILED|PASSED|SKIPPED) |^\[==|Failure|cases run|^device' \
    "$OUT_DIR/unit.log"
  [ $unit_rc -eq 0 ] || fail "runtime unit tests (see unit.log)"
else
  echo "gpu-check: unit tests not built (no GoogleTest here): skipped" |
    tee "$OUT_DIR/unit.log"
fi

step "examples/embed"
"$BUILD/bin/attn-embed" 2>&1 | tee "$OUT_DIR/embed.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "attn-embed"
"$BUILD/bin/attn-embed" --heads 8 --kv-heads 2 --seq 1000 --head-dim 64 \
  --causal 2>&1 | tee -a "$OUT_DIR/embed.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "attn-embed (GQA, causal, D=64)"

step "tools/gpu_check.py"
PYTHONUNBUFFERED=1 python3 tools/gpu_check.py \
  --lib "$BUILD/lib/libattn_runtime_c.so" --bundle "$BUNDLE" \
  --out "$OUT_DIR/gpu_check.json" "$@" 2>&1 | tee "$OUT_DIR/gpu_check.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_check.py"

# The kernels of the tile-IR backend (and the tile-level programs of
# test/GPU/programs: soft-cap, bias), built on the build machine with
#   tools/build_gpu_programs.py --out gpuprog --chip sm_90a
# and carried (name gpuprog in the device tool's carry list): launched from
# their PTX, checked against float64, timed beside SDPA.
PROGRAMS=${ATTN_GPU_PROGRAMS:-$PWD/gpuprog}
if [ -f "$PROGRAMS/programs.json" ]; then
  step "tools/gpu_programs.py ($PROGRAMS)"
  PYTHONUNBUFFERED=1 python3 tools/gpu_programs.py "$PROGRAMS" \
    --out "$OUT_DIR/gpu_programs.json" 2>&1 | tee "$OUT_DIR/gpu_programs.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_programs.py"
fi

echo
if [ $status -eq 0 ]; then
  echo "gpu-check: all passed (logs in $OUT_DIR)"
else
  echo "gpu-check: some steps failed (logs in $OUT_DIR)"
fi
# gpu_check.py's timing table, last.
sed -n '/^bf16 forward, /,$p' "$OUT_DIR/gpu_check.log"
[ -f "$OUT_DIR/gpu_programs.log" ] &&
  sed -n '/^correctness: /,$p' "$OUT_DIR/gpu_programs.log"
exit $status

# To bring GoogleTest along (the GPU machine has none), on the build machine:
#   mkdir -p .dev/gtest/lib/x86_64-linux-gnu/cmake .dev/gtest/include
#   cp -r /usr/lib/x86_64-linux-gnu/cmake/GTest .dev/gtest/lib/x86_64-linux-gnu/cmake/
#   cp /usr/lib/x86_64-linux-gnu/lib{gtest,gtest_main,gmock,gmock_main}.a \
#      .dev/gtest/lib/x86_64-linux-gnu/
#   cp -r /usr/include/gtest /usr/include/gmock .dev/gtest/include/
# and name .dev in the device tool's carry list.
