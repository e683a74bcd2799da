#!/usr/bin/env bash
# The one script to run on the lent GPU machine, from the repo root:
#
#   tools/scripts/gpu_check.sh [--quick] [--no-sanitize] [--sanitize-only]
#       [--jit-only] [--sanitize-chips all|selected] [--no-plot] [--no-mosaic]
#       [--fa4 DIR] [extra gpu_check.py args, e.g. --only correctness]
#
# 1. builds the runtime there with its CMake (no MLIR: -DATTN_ENABLE_COMPILER=OFF)
#    against the kernel bundle carried from the build machine
#    ($ATTN_BUNDLE_DIR, else bundle/ in the repo root), with the sanitizer
#    driver (CMake target attn-sanitize-driver,
#    tools/attn-sanitize-driver/attn-sanitize-driver.cpp);
# 2. runs the runtime's unit tests with the GPU tests required
#    (ATTN_REQUIRE_GPU=1: a GPU test that cannot run fails instead of skipping);
# 3. runs examples/embed, and examples/torch/train_tiny.py (a tiny
#    transformer trained with attn's forward and backward beside SDPA);
# 3b. runs tools/scripts/jit_check.py when static/ was carried (the statically
#    linked attn-run and attn-jit-check of `tools/scripts/build_static.sh
#    static --xz-only --tools attn-run,attn-jit-check`):
#    first call of a bundled kernel (SASS) and of its PTX, problems the
#    bundle lacks through libattn_jit (cold, disk cache, threads, processes,
#    damaged and read-only caches); --jit-only stops after it;
# 4. runs tools/scripts/gpu_check.py: correctness over many shapes, then timing
#    (bf16 and f16) against torch SDPA (FlashAttention-2 and cuDNN) and, for
#    f16, Mosaic GPU (tools/scripts/bench_mosaic.py, run first when jax is
#    there; a reference, not a failure when it cannot run; --no-mosaic skips
#    it); and FlashAttention-4 in the same process when --fa4 DIR names a
#    folder holding fa4-site.tar.xz, its wheels unpacked
#    (tools/scripts/fa4_site.sh makes it on the build machine, in parts
#    fa4-site.tar.xz.part-* small enough for the device tool's 64 MiB a call:
#    carry them over two calls into one folder; they are joined here). FA4
#    missing or failing is noted in the tables, not a failure;
# 5. runs tools/scripts/gpu_programs.py when gpuprog/ was carried (--quick:
#    fewer shapes there too), and tools/scripts/gpu_backward.py (the backward
#    pass's kernels: correctness against float64 autograd, determinism, a
#    table beside FA2, cuDNN and FA4) when gpubwd/ was carried;
# 6. (--sanitize, the default) runs tools/scripts/sanitize_gpu.py: every kernel
#    family of the bundle (dtype x head dim x causal x LSE/no-LSE), each chip's
#    PTX of the manifest that this GPU runs (sm_80 and sm_90a on an H100;
#    --sanitize-chips selected: only what the runtime picks), and the gpuprog/
#    programs, over a few small shapes under compute-sanitizer memcheck (with
#    leak check), racecheck, synccheck and initcheck; any finding fails the
#    check, and so does a planted bug that the tool fails to report;
# 7. writes gpu_check.png beside the table (tools/scripts/plot_gpu_check.py:
#    TFLOP/s against N per dtype, head dim and mask, one line per
#    implementation); a missing PNG (no matplotlib, no timing rows) is a
#    warning, not a failure.
# The tables come last, then a summary: the sanitizer's result, the PNG's
# path and the verdict. --sanitize-only runs steps 1 and 6 alone.
#
# Logs and results go to $OUT if set (the device tool brings that folder
# back), else to build-gpu/gpu-check-out/. GoogleTest is taken from .dev/gtest
# if it was carried there (see the end of this file), else from the system;
# without it step 2 is skipped. Exit status: non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

SANITIZE=1
SANITIZE_ONLY=0
JIT_ONLY=0
SANITIZE_CHIPS=all
PLOT=1
MOSAIC=1
QUICK=0
FA4_DIR=
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
  --sanitize) SANITIZE=1 ;;
  --no-sanitize) SANITIZE=0 ;;
  --sanitize-only) SANITIZE=1 SANITIZE_ONLY=1 ;;
  --jit-only) JIT_ONLY=1 ;;
  --sanitize-chips)
    SANITIZE_CHIPS=${2:-}
    shift
    ;;
  --sanitize-chips=*) SANITIZE_CHIPS=${1#*=} ;;
  --no-plot) PLOT=0 ;;
  --no-mosaic) MOSAIC=0 ;;
  --fa4)
    FA4_DIR=${2:-}
    shift
    ;;
  --quick) QUICK=1 ARGS+=("$1") ;;
  *) ARGS+=("$1") ;;
  esac
  shift
done
case "$SANITIZE_CHIPS" in
selected | all) ;;
*)
  echo "gpu-check: --sanitize-chips takes selected or all"
  exit 2
  ;;
esac

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
  echo "gpu-check: no kernel bundle at $BUNDLE (carry bundle/ or set ATTN_BUNDLE_DIR;" \
    "for an H100/H200 an sm_90a-only bundle fits the device tool's 64 MiB:" \
    "build/bin/attn-bundle --out-dir bundle --chips sm_90a --ptxas" \
    "/usr/local/cuda/bin/ptxas --sass-chips sm_90a)"
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
# The program compute-sanitizer runs (the C API, no torch): the runtime's
# CMake target attn-sanitize-driver, built above.
SAN_DRIVER=$BUILD/bin/attn-sanitize-driver
if [ $SANITIZE -eq 1 ] && ! [ -x "$SAN_DRIVER" ]; then
  fail "the build made no $SAN_DRIVER (runtime/CMakeLists.txt)"
fi
PROGRAMS=${ATTN_GPU_PROGRAMS:-$PWD/gpuprog}
BACKWARD=${ATTN_GPU_BACKWARD:-$PWD/gpubwd}

sanitize_line="sanitizer: skipped (--no-sanitize)"
run_sanitizer() {
  step "compute-sanitizer (tools/scripts/sanitize_gpu.py)"
  local prog=()
  [ -f "$PROGRAMS/programs.json" ] && prog=(--programs "$PROGRAMS")
  if [ ! -x "$SAN_DRIVER" ]; then
    sanitize_line="sanitizer: FAILED: no driver (build.log)"
    return
  fi
  PYTHONUNBUFFERED=1 python3 tools/scripts/sanitize_gpu.py \
    --driver "$SAN_DRIVER" --bundle "$BUNDLE" "${prog[@]}" \
    --chips "$SANITIZE_CHIPS" \
    --timeout 200 --out-dir "$OUT_DIR" --work-dir "$BUILD/sanitize" 2>&1 |
    tee "$OUT_DIR/sanitize_console.log"
  local rc=${PIPESTATUS[0]}
  sanitize_line=$(grep -E '^sanitize: (clean|FAILED)' \
    "$OUT_DIR/sanitize_console.log" | tail -1)
  if [ -z "$sanitize_line" ]; then
    sanitize_line=$(tail -1 "$OUT_DIR/sanitize_console.log")
    sanitize_line="sanitize: FAILED: ${sanitize_line#sanitize: }"
  fi
  sanitize_line="sanitizer: ${sanitize_line#sanitize: }"
  # sanitize.log holds every report; the console lines are its summary.
  rm -f "$OUT_DIR/sanitize_console.log"
  [ "$rc" -eq 0 ] || fail "compute-sanitizer (see sanitize.log)"
}

if [ $SANITIZE_ONLY -eq 1 ]; then
  run_sanitizer
  step "summary"
  echo "$sanitize_line"
  if [ $status -eq 0 ]; then
    echo "gpu-check: sanitizer only: passed (logs in $OUT_DIR)"
  else
    echo "gpu-check: sanitizer only: FAILED (logs in $OUT_DIR)"
  fi
  exit $status
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
"$BUILD/bin/attn-embed" --batch 4 --heads 32 --kv-heads 8 --seq 3000 \
  --paged 16 2>&1 | tee -a "$OUT_DIR/embed.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "attn-embed (paged KV cache decode)"

# Training with attn's forward and backward (examples/torch: an autograd
# Function over the C API), beside the same model on torch SDPA: the losses
# must agree to 1e-2 at every logged step.
step "examples/torch/train_tiny.py"
if python3 -c "import torch, sys; sys.exit(not torch.cuda.is_available())" \
  2>/dev/null; then
  PYTHONUNBUFFERED=1 python3 examples/torch/train_tiny.py \
    --lib "$BUILD/lib/libattn_runtime_c.so" --bundle "$BUNDLE" 2>&1 |
    tee "$OUT_DIR/train_tiny.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "examples/torch/train_tiny.py"
  # The same with ALiBi (the bundle's causal bf16 D = 128 forward and
  # backward: attn_forward_variant / attn_backward_variant), beside SDPA
  # with the bias as its attn_mask, for the 30 steps before its steep phase
  # (ALiBi's model learns the token two back by step ~35, where two runs
  # that differ only in rounding part by up to 14% before meeting again).
  PYTHONUNBUFFERED=1 python3 examples/torch/train_tiny.py --alibi \
    --d-model 512 --steps 30 --log-every 5 \
    --lib "$BUILD/lib/libattn_runtime_c.so" \
    --bundle "$BUNDLE" 2>&1 | tee "$OUT_DIR/train_tiny_alibi.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "examples/torch/train_tiny.py --alibi"
else
  echo "gpu-check: no torch with CUDA here: train_tiny.py skipped" |
    tee "$OUT_DIR/train_tiny.log"
fi

# Start-up and the JIT (issue 14), with the statically linked tools built on
# the build machine by
#   tools/scripts/build_static.sh static --xz-only \
#     --tools attn-run,attn-jit-check
# (27 MiB of .xz) and carried (name
# static in the device tool's carry list): first call of a bundled kernel,
# problems the bundle lacks compiled in process and read from the disk cache,
# threads and processes compiling at once, damaged and read-only caches.
STATIC=${ATTN_STATIC_DIR:-static}
run_jit_check() {
  for t in attn-run attn-jit-check; do
    if [ ! -x "$STATIC/$t" ] && [ -f "$STATIC/$t.xz" ]; then
      # xz(1), else Python's lzma (a machine may lack the tool).
      { xz -dc "$STATIC/$t.xz" 2>/dev/null ||
        python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' \
          "$STATIC/$t.xz"; } >"$STATIC/$t" && chmod +x "$STATIC/$t"
    fi
  done
  if [ -x "$STATIC/attn-run" ] && [ -x "$STATIC/attn-jit-check" ]; then
    step "start-up and JIT (tools/scripts/jit_check.py, $STATIC)"
    PYTHONUNBUFFERED=1 python3 tools/scripts/jit_check.py --tools "$STATIC" \
      --bundle "$BUNDLE" --out "$OUT_DIR" 2>&1 | tee "$OUT_DIR/jit_check.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "jit_check.py"
  else
    echo "gpu-check: no static tools in $STATIC" \
      "(tools/scripts/build_static.sh): the start-up and JIT step is skipped"
  fi
}
if [ $JIT_ONLY -eq 1 ]; then
  run_jit_check
  step "summary"
  if [ $status -eq 0 ]; then
    echo "gpu-check: JIT only: passed (logs in $OUT_DIR)"
  else
    echo "gpu-check: JIT only: FAILED (logs in $OUT_DIR)"
  fi
  exit $status
fi
run_jit_check

# Timing: bf16 and f16 unless the arguments say which; f16 beside Mosaic
# GPU (Hopper; jax on the machine), at the criteria's sizes.
TIMING_ARGS=()
case " ${ARGS[*]} " in
*" --only correctness "* | *" --only=correctness "*) MOSAIC=0 ;;
*" --timing-dtypes "*) ;;
*) TIMING_ARGS+=(--timing-dtypes bf16 f16) ;;
esac
if [ $MOSAIC -eq 1 ]; then
  step "Mosaic GPU (tools/scripts/bench_mosaic.py)"
  MOSAIC_ARGS=()
  [ $QUICK -eq 1 ] && MOSAIC_ARGS=(--d 64 128 --n 4096)
  rm -f "$OUT_DIR/mosaic.json"
  XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 timeout 420 \
    python3 tools/scripts/bench_mosaic.py --out "$OUT_DIR/mosaic.json" \
    "${MOSAIC_ARGS[@]}" 2>&1 | tee "$OUT_DIR/mosaic.log"
  [ -f "$OUT_DIR/mosaic.json" ] &&
    TIMING_ARGS+=(--mosaic "$OUT_DIR/mosaic.json")
fi

if [ -n "$FA4_DIR" ]; then
  step "FlashAttention-4 ($FA4_DIR)"
  rm -rf "$BUILD/fa4-site"
  mkdir -p "$BUILD/fa4-site"
  # xz(1) may be missing there: Python's lzma and tarfile unpack it.
  if { [ -f "$FA4_DIR/fa4-site.tar.xz" ] && cat "$FA4_DIR/fa4-site.tar.xz" ||
    cat "$FA4_DIR"/fa4-site.tar.xz.part-*; } |
    python3 -c 'import sys, tarfile
tarfile.open(fileobj=sys.stdin.buffer, mode="r|xz").extractall(sys.argv[1])' \
      "$BUILD/fa4-site"; then
    export ATTN_FA4_SITE=$PWD/$BUILD/fa4-site
    du -sh "$BUILD/fa4-site"
  else
    echo "gpu-check: no FA4 site unpacked from $FA4_DIR: no FA4 column"
  fi
fi

step "tools/scripts/gpu_check.py"
PYTHONUNBUFFERED=1 python3 tools/scripts/gpu_check.py \
  --lib "$BUILD/lib/libattn_runtime_c.so" --bundle "$BUNDLE" \
  --out "$OUT_DIR/gpu_check.json" "${TIMING_ARGS[@]}" "${ARGS[@]}" 2>&1 |
  tee "$OUT_DIR/gpu_check.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_check.py"

# The kernels of the tile-IR backend (and the tile-level programs of
# test/GPU/programs: soft-cap, bias), built on the build machine with
#   tools/scripts/build_gpu_programs.py --out gpuprog --chip sm_90a
# and carried (name gpuprog in the device tool's carry list): launched from
# their PTX, checked against float64, timed beside SDPA.
if [ -f "$PROGRAMS/programs.json" ]; then
  step "tools/scripts/gpu_programs.py ($PROGRAMS)"
  PROG_ARGS=()
  [ $QUICK -eq 1 ] && PROG_ARGS=(--quick)
  PYTHONUNBUFFERED=1 python3 tools/scripts/gpu_programs.py "$PROGRAMS" \
    "${PROG_ARGS[@]}" --out "$OUT_DIR/gpu_programs.json" 2>&1 |
    tee "$OUT_DIR/gpu_programs.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_programs.py"
fi

# The backward pass (attn.attention_grad: its grad_q and grad_kv kernels),
# built on the build machine with
#   tools/scripts/gpu_backward.py build gpubwd --chip sm_90a
# and carried (name gpubwd): launched from their PTX, checked against
# float64 autograd (and for determinism), timed beside FA2, cuDNN and FA4.
if [ -f "$BACKWARD/backward.json" ]; then
  step "tools/scripts/gpu_backward.py ($BACKWARD)"
  BWD_ARGS=()
  [ $QUICK -eq 1 ] && BWD_ARGS=(--quick --ns 4096,16384)
  PYTHONUNBUFFERED=1 python3 tools/scripts/gpu_backward.py run "$BACKWARD" \
    "${BWD_ARGS[@]}" --json "$OUT_DIR/gpu_backward.json" 2>&1 |
    tee "$OUT_DIR/gpu_backward.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_backward.py"
fi

[ $SANITIZE -eq 1 ] && run_sanitizer

# The speed table as a figure, beside it. Not a failure when it cannot be
# drawn, but said in the summary.
plot_line="plot: skipped (--no-plot)"
if [ $PLOT -eq 1 ]; then
  step "plot (tools/scripts/plot_gpu_check.py)"
  rm -f "$OUT_DIR/gpu_check.png"
  PLOT_ARGS=()
  [ -f "$OUT_DIR/gpu_programs.json" ] &&
    PLOT_ARGS=(--programs "$OUT_DIR/gpu_programs.json")
  if [ -f "$OUT_DIR/gpu_check.json" ]; then
    python3 tools/scripts/plot_gpu_check.py "$OUT_DIR/gpu_check.json" \
      "${PLOT_ARGS[@]}" --out "$OUT_DIR/gpu_check.png" 2>&1 |
      tee "$OUT_DIR/plot.log"
  else
    echo "plot: no gpu_check.json (gpu_check.py failed?)" |
      tee "$OUT_DIR/plot.log"
  fi
  if [ -f "$OUT_DIR/gpu_check.png" ]; then
    plot_line="plot: $OUT_DIR/gpu_check.png"
  else
    plot_line="plot: WARNING: no PNG written: $(tail -1 "$OUT_DIR/plot.log")"
  fi
  rm -f "$OUT_DIR/plot.log"
fi

# The tables, then the summary, last.
[ -f "$OUT_DIR/jit_check.txt" ] && cat "$OUT_DIR/jit_check.txt"
sed -n '/^bf16 forward, /,$p' "$OUT_DIR/gpu_check.log"
[ -f "$OUT_DIR/gpu_programs.log" ] &&
  sed -n '/^correctness: /,$p' "$OUT_DIR/gpu_programs.log"
[ -f "$OUT_DIR/gpu_backward.log" ] &&
  sed -n '/^backward TFLOP/,$p' "$OUT_DIR/gpu_backward.log"
[ -f "$OUT_DIR/train_tiny.log" ] && tail -n 2 "$OUT_DIR/train_tiny.log"
[ -f "$OUT_DIR/train_tiny_alibi.log" ] && tail -n 2 "$OUT_DIR/train_tiny_alibi.log"
step "summary"
echo "$sanitize_line"
echo "$plot_line"
if [ $status -eq 0 ]; then
  echo "gpu-check: all passed (logs in $OUT_DIR)"
else
  echo "gpu-check: some steps failed (logs in $OUT_DIR)"
fi
exit $status

# To bring GoogleTest along (the GPU machine has none), on the build machine:
#   mkdir -p .dev/gtest/lib/x86_64-linux-gnu/cmake .dev/gtest/include
#   cp -r /usr/lib/x86_64-linux-gnu/cmake/GTest .dev/gtest/lib/x86_64-linux-gnu/cmake/
#   cp /usr/lib/x86_64-linux-gnu/lib{gtest,gtest_main,gmock,gmock_main}.a \
#      .dev/gtest/lib/x86_64-linux-gnu/
#   cp -r /usr/include/gtest /usr/include/gmock .dev/gtest/include/
# and name .dev in the device tool's carry list.
