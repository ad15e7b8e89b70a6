# -*- Python -*-
# lit configuration for the OneFlow-MLIR IR and tool tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "OneFlow"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.oneflow_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%oneflow_libs", config.oneflow_libs_dir))
config.substitutions.append(("%oneflow_src", config.oneflow_src_root))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))
# The interpreter that sees Debian's python3-* packages.
config.substitutions.append(("%python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# With OF_OPT_VERIFY_ROUNDTRIP=1 in the environment, every of-opt run also
# checks that its output parses back to the same IR (as CIRCT does).
of_opt = "of-opt"
if os.environ.get("OF_OPT_VERIFY_ROUNDTRIP") == "1":
    of_opt = ToolSubst("of-opt", extra_args=["--verify-roundtrip"])

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# of-run --strategy auto keeps this machine's measured figures here, not in
# the user's cache (tests of the cache itself set their own).
config.environment["OF_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                  "of-cache")
llvm_config.add_tool_substitutions(
    [of_opt, "of-translate", "of-run", "of-run-plan", "of-check", "of-calibrate",
     "of-tblgen"],
    [config.oneflow_tools_dir])

# Multi-node runs meet through a Redis server; tests start a private one.
import shutil
import subprocess
if shutil.which("redis-server"):
    config.available_features.add("redis-server")
lit_config.parallelism_groups["multi-rank"] = 1
# Jobs under mpirun (root needs --allow-run-as-root; more ranks than cores
# need --oversubscribe).
if shutil.which("dot"):
    config.available_features.add("graphviz")
# Source checks read function extents with Universal Ctags.
if shutil.which("ctags") and b"Universal" in subprocess.run(
        ["ctags", "--version"], capture_output=True).stdout:
    config.available_features.add("universal-ctags")
if shutil.which("mpirun"):
    config.available_features.add("mpirun")
config.substitutions.append(
    ("%mpirun", "mpirun --allow-run-as-root --oversubscribe "
                "--mca btl self,vader --bind-to none"))
# Pictures (scripts/plot_metrics.py) need Debian's python3-matplotlib.
if subprocess.call(["/usr/bin/python3", "-c", "import matplotlib"],
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("matplotlib")
# The Python package (python/), built when python3-dev and pybind11-dev are
# there: "python-module", and %oneflow_python for PYTHONPATH.
import glob
python_dir = os.path.join(config.oneflow_obj_root, "python")
if glob.glob(os.path.join(python_dir, "oneflow_mlir", "_native*.so")):
    config.available_features.add("python-module")
config.substitutions.append(("%oneflow_python", python_dir))
# GPU tests: "cuda-backend" when of-run was built with the CUDA backend,
# "cuda-gpu" when it can also use a GPU here (tests that need one say
# REQUIRES: cuda-gpu and are reported unsupported, never passed, without).
import re
devices = subprocess.run(
    [os.path.join(config.oneflow_tools_dir, "of-run"), "--list-devices"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
if re.search(r"^cuda", devices, re.M):
    config.available_features.add("cuda-backend")
if re.search(r"^cuda:\d", devices, re.M):
    config.available_features.add("cuda-gpu")
# "cpu-bf16" when oneDNN has bf16 kernels on this processor (--precision
# bf16 on cpu; the processors without are told so by of-run).
if re.search(r"^cpu: bf16 yes", devices, re.M):
    config.available_features.add("cpu-bf16")
config.substitutions.append(
    ("%oneflow_unittests", os.path.join(config.oneflow_obj_root,
                                        "unittests", "bin")))
config.substitutions.append(("%oneflow_bin", config.oneflow_tools_dir))
