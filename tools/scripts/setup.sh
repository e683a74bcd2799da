#!/usr/bin/env bash
# Installs what attn needs to build (Debian 12: LLVM/MLIR 22, CMake, Ninja,
# GoogleTest), then configures and builds everything into build/.
# Safe to run again: installed packages and an existing build are reused.
set -euo pipefail
cd "$(dirname "$0")/../.."

# pkg-config: test/Tools/install-package.test builds against the installed
# attn-runtime.pc (its pkg-config steps are skipped without it).
# libomp5-14: LLVM's OpenMP runtime (libomp.so.5), which attn-run's JIT loads
# for the CPU path's threaded grid loop (there is no libomp5-22).
# lld, libzstd-dev: the statically linked tools (tools/scripts/build_static.sh):
# lld for --icf=all, libzstd.a so that they do not need libzstd on the target.
PKGS=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools ninja-build cmake
      g++ libgtest-dev pkg-config libomp5-14 lld libzstd-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  if ! apt-cache policy llvm-22-dev 2>/dev/null | grep -q Candidate; then
    echo "setup: llvm-22 packages are not in the apt sources; add" >&2
    echo "  deb http://apt.llvm.org/bookworm/ llvm-toolchain-bookworm-22 main" >&2
  fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C build attn-opt attn-run all
