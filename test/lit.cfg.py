# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ATTN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attn_obj_root, "test")
# Unit/ is its own suite (GoogleTest format); Inputs/ holds RUN-less data.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%attn_src_root", config.attn_src_root))
config.substitutions.append(("%attn_obj_root", config.attn_obj_root))
config.substitutions.append(("%attn_bundle_dir", config.attn_bundle_dir))
config.substitutions.append(("%attn_version", config.attn_version))
# Configuring and building programs against an installed prefix
# (Tools/install-package.test) with this build's CMake, generator and
# compilers (an ASan build's libraries need its clang to link them).
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake_make_program", config.cmake_make_program))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%attn_cxx", config.attn_cxx_compiler))
config.substitutions.append(("%attn_cc", config.attn_c_compiler))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

tool_dirs = [config.attn_tools_dir, config.llvm_tools_dir]
tools = [
    "attn-opt",
    "attn-run",
    "attn-bundle",
    ToolSubst("%ptxas", command="/usr/local/cuda/bin/ptxas", unresolved="ignore"),
    # Built with the runtime (tests that use it say REQUIRES: attn-runtime).
    ToolSubst("attn-sanitize-driver", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The runtime was built (cuda.h found): it can be installed and linked.
if config.attn_have_runtime:
    config.available_features.add("attn-runtime")
# pkg-config (tools/scripts/setup.sh installs it) for the installed .pc files.
import shutil
if shutil.which("pkg-config"):
    config.available_features.add("pkg-config")
if config.cmake_generator == "Ninja":
    config.available_features.add("cmake-ninja")

# ptxas (CUDA toolkit) validates the generated PTX when it is installed.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# GPU-gated tests: "gpu" where a CUDA GPU is visible, "no-gpu" elsewhere
# (the GPU check itself runs through tools/scripts/gpu_check.sh on the lent GPU).
import shutil, subprocess
def _has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True,
                              timeout=20).returncode == 0
    except Exception:
        return False
config.available_features.add("gpu" if _has_gpu() else "no-gpu")

# The host CPU's instruction sets (attn-run --cpu-features): "cpu-avx512"
# where it has AVX-512F, "cpu-avx512bf16" with AVX512-BF16 too, "cpu-amx"
# where it has AMX bf16 tiles and AVX512-BF16 (Linux's /proc/cpuinfo flags).
def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()
_flags = _cpu_flags()
if "avx512f" in _flags:
    config.available_features.add("cpu-avx512")
if {"avx512f", "avx512_bf16"} <= _flags:
    config.available_features.add("cpu-avx512bf16")
if {"amx_tile", "amx_bf16", "avx512_bf16"} <= _flags:
    config.available_features.add("cpu-amx")
