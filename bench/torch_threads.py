"""PyTorch on N threads, its BLAS included.

torch.set_num_threads caps PyTorch's OpenMP threads but not the threads of
Debian's OpenBLAS (the pthread build behind its BLAS_INFO=generic): there,
a "1-thread" PyTorch matmul ran on both cores of a 2-core machine (112
GFLOP/s and 1.7 cores busy, against 67 GFLOP/s capped). set_threads caps
both, so that a benchmark's peer uses the threads it is given.

Debian's OpenBLAS 0.3.21 picks its kernels by CPU model, and a model it
does not know (a recent Xeon) gets its SSE3 "Prescott" kernels: PyTorch's
GPT step then took 855 ms where it takes 264 with the AVX-512 kernels.
Imported before torch, this module names the kernels the processor can run
(OPENBLAS_CORETYPE: SkylakeX with AVX-512, Haswell with AVX2 or when
ONEDNN_MAX_CPU_ISA caps the run at AVX2) in that case, so that the peer is
not slowed by a detection miss. Under an AVX2 cap it also names Haswell
where OpenBLAS detected AVX-512 kernels, for both peers (of-run inherits
the environment): a capped run is then an AVX2 machine's in its GEMM too.
`blas_note()` says what it did.
"""
import ctypes
import os
import subprocess
import sys

_BLAS_NOTE = "OpenBLAS kernels as detected"


def _fair_openblas_kernels():
    """Sets OPENBLAS_CORETYPE where OpenBLAS would fall back to SSE3
    kernels on a processor with AVX2; must run before torch loads."""
    global _BLAS_NOTE
    if "OPENBLAS_CORETYPE" in os.environ:
        _BLAS_NOTE = "OPENBLAS_CORETYPE=%s (given)" % os.environ[
            "OPENBLAS_CORETYPE"]
        return
    probe = ("import ctypes; l = ctypes.CDLL('libblas.so.3'); "
             "f = getattr(l, 'openblas_get_corename', None); "
             "f and setattr(f, 'restype', ctypes.c_char_p); "
             "print(f().decode() if f else '')")
    core = subprocess.run([sys.executable, "-c", probe], capture_output=True,
                          text=True).stdout.strip()
    with open("/proc/cpuinfo") as info:
        flags = next((line.split(":", 1)[1].split() for line in info
                      if line.startswith("flags")), [])
    capped = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper().startswith(
        ("AVX2", "AVX", "SSE"))
    if capped and core in ("SkylakeX", "Cooperlake", "SapphireRapids"):
        # Both sides' OpenBLAS (the environment reaches of-run too) run as
        # on an AVX2 machine, as oneDNN does under the cap.
        os.environ["OPENBLAS_CORETYPE"] = "Haswell"
        _BLAS_NOTE = ("OPENBLAS_CORETYPE=Haswell (ONEDNN_MAX_CPU_ISA caps "
                      "the run at AVX2; OpenBLAS detected %s)" % core)
        return
    if core not in ("Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                    "Atom", "Sandybridge") or "avx2" not in flags:
        return
    kernels = "SkylakeX" if "avx512f" in flags and not capped else "Haswell"
    os.environ["OPENBLAS_CORETYPE"] = kernels
    _BLAS_NOTE = ("OPENBLAS_CORETYPE=%s (OpenBLAS detected %s, SSE3 kernels, "
                  "on this %s processor)" % (
                      kernels, core,
                      "AVX-512" if "avx512f" in flags else "AVX2"))


def blas_note():
    """How the peer's OpenBLAS kernels were chosen."""
    return _BLAS_NOTE


_fair_openblas_kernels()
import torch  # noqa: E402 (after OPENBLAS_CORETYPE)


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
    return "torch threads: %d, its %s capped to %d; %s" % (
        threads, library.openblas_get_config().decode().split(" DYNAMIC")[0],
        threads, blas_note())


def cpu_line(runner):
    """What our CPU kernels compute with here, from `runner --list-devices`
    (of-run or of-run-plan): "cpu:0 2 cores (...): oneDNN with AVX2, f32 GEMM
    on OpenBLAS 0.3.21 (OpenMP, Zen kernels)"; ONEDNN_MAX_CPU_ISA lowers the
    ISA."""
    if not os.access(runner, os.X_OK):
        return "cpu: (no %s to ask)" % runner
    listing = subprocess.run([runner, "--list-devices"], capture_output=True,
                             text=True).stdout
    return next((line for line in listing.splitlines()
                 if line.startswith("cpu:0")), "cpu: (not listed)")
