#!/usr/bin/env bash
# FlashAttention-4 (flash-attn-4 over NVIDIA's CuTe DSL) for the GPU check's
# FA4 column, made on the build machine (the device has no package index):
#
#   tools/scripts/fa4_site.sh OUT_DIR
#
# downloads the wheels for the device's Python (cp312, manylinux x86_64),
# unpacks them into one site folder (none of them has scripts or .data), and
# writes OUT_DIR/fa4-site.tar.xz.part-aa, -ab: xz-compressed (~70 MB) and
# split so that each part travels in one device call beside the bundle
# (64 MiB a call). Carry the first part in one call, copying it to a folder
# that outlives the call (e.g. /root/stash), the second in the next, and run
# `tools/scripts/gpu_check.sh --fa4 /root/stash` there. The versions are
# those of the anchors (../shared/anchors/h200-2026-11-23-fa4.md).
set -euo pipefail
OUT=${1:?usage: tools/scripts/fa4_site.sh OUT_DIR}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PKGS=(flash-attn-4==4.0.0b36 nvidia-cutlass-dsl==4.8.1
  nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1
  nvidia-cutlass-dsl-libs-cu13==4.8.1 apache-tvm-ffi==0.1.15.post2
  torch-c-dlpack-ext==0.1.5 quack-kernels==0.6.5 einops==0.8.2)
python3 -m pip download -q --no-deps --only-binary=:all: \
  --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any -d "$WORK/whl" "${PKGS[@]}"
mkdir "$WORK/site"
for w in "$WORK"/whl/*.whl; do
  python3 -m zipfile -e "$w" "$WORK/site"
done
rm -f "$OUT"/fa4-site.tar.xz.part-*
tar -C "$WORK/site" -cf - . | xz -T0 -6 | split -b 48M - "$OUT/fa4-site.tar.xz.part-"
ls -l "$OUT"/fa4-site.tar.xz.part-*
