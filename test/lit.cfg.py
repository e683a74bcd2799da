# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ATTN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attn_obj_root, "test")
# Unit/ is its own suite (GoogleTest format); Inputs/ holds RUN-less data.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%attn_src_root", config.attn_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

tool_dirs = [config.attn_tools_dir, config.llvm_tools_dir]
tools = [
    "attn-opt",
    "attn-run",
    "attn-bundle",
    ToolSubst("%ptxas", command="/usr/local/cuda/bin/ptxas", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas (CUDA toolkit) validates the generated PTX when it is installed.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# GPU-gated tests: "gpu" where a CUDA GPU is visible, "no-gpu" elsewhere
# (the GPU check itself runs through tools/gpu-check.sh on the lent GPU).
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
