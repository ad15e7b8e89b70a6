"""PyTorch on N threads, its BLAS included.

torch.set_num_threads caps PyTorch's OpenMP threads but not the threads of
Debian's OpenBLAS (the pthread build behind its BLAS_INFO=generic): there,
a "1-thread" PyTorch matmul ran on both cores of a 2-core machine (112
GFLOP/s and 1.7 cores busy, against 67 GFLOP/s capped). set_threads caps
both, so that a benchmark's peer uses the threads it is given.
"""
import ctypes
import os
import subprocess

import torch


def _openblas():
    """The OpenBLAS this process loaded (through libblas.so.3), if any."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line
                 and line.split()[-1].startswith("/")}
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        if hasattr(library, "openblas_set_num_threads"):
            return library
    return None


def set_threads(threads):
    """Runs PyTorch, and its OpenBLAS if it has one, on `threads` threads;
    returns a line saying what was capped."""
    torch.set_num_threads(threads)
    torch.ones(2, 2) @ torch.ones(2, 2)  # Loads the BLAS.
    library = _openblas()
    if library is None:
        return "torch threads: %d (no OpenBLAS loaded)" % threads
    library.openblas_set_num_threads(threads)
    library.openblas_get_config.restype = ctypes.c_char_p
    return "torch threads: %d, its %s capped to %d" % (
        threads, library.openblas_get_config().decode().split(" DYNAMIC")[0],
        threads)


def cpu_line(runner):
    """What our CPU kernels compute with here, from `runner --list-devices`
    (of-run or of-run-plan): "cpu:0 2 cores (...): oneDNN with AVX2, f32 GEMM
    on OpenBLAS 0.3.21 (OpenMP)"; ONEDNN_MAX_CPU_ISA lowers the ISA."""
    if not os.access(runner, os.X_OK):
        return "cpu: (no %s to ask)" % runner
    listing = subprocess.run([runner, "--list-devices"], capture_output=True,
                             text=True).stdout
    return next((line for line in listing.splitlines()
                 if line.startswith("cpu:0")), "cpu: (not listed)")
