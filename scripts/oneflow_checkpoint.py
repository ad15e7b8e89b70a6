#!/usr/bin/python3
#===- scripts/oneflow_checkpoint.py - Read and write of-run checkpoints --===#
#
# SPDX-License-Identifier: Apache-2.0
#
# The checkpoint format of `of-run --save` / `--resume` (version 1), for
# reference scripts that hand PyTorch and of-run the same initial weights or
# compare trained ones:
#
#   DIR/manifest.json  {"format": "oneflow-checkpoint", "version": 1,
#                       "step": <steps completed>,
#                       "tensors": {NAME: {"file": F, "dtype": "f32",
#                                          "shape": [...], "crc32": C}}}
#   DIR/F              one NumPy .npy file per logical variable
#
# crc32 is zlib's (IEEE) CRC-32 of the .npy file's bytes. The manifest is
# written last, through a temporary file and a rename, so that a directory
# with a manifest is complete.
#
#   import oneflow_checkpoint as ckpt
#   ckpt.write("init", {"fc1.weight": w1, ...}, step=0)
#   step, tensors = ckpt.read("init")
#
#===----------------------------------------------------------------------===#
import json
import os
import re
import zlib

import numpy as np

FORMAT = "oneflow-checkpoint"
VERSION = 1
DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def _file_name(name):
    """A file name for variable `name` (its characters outside [A-Za-z0-9._-]
    become '_')."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".npy"


def _dtype_name(array):
    for key, dtype in DTYPES.items():
        if array.dtype == dtype:
            return key
    raise ValueError(f"unsupported dtype {array.dtype}")


def write(directory, tensors, step=0):
    """Writes `tensors` (name -> numpy array) as a checkpoint in `directory`."""
    os.makedirs(directory, exist_ok=True)
    entries = {}
    used = set()
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        file = _file_name(name)
        if file in used:
            raise ValueError(f"two variables map to file {file}")
        used.add(file)
        path = os.path.join(directory, file)
        np.save(path, array.astype(array.dtype.newbyteorder("<"), copy=False))
        with open(path, "rb") as f:
            crc = zlib.crc32(f.read()) & 0xFFFFFFFF
        entries[name] = {"file": file, "dtype": _dtype_name(array),
                         "shape": list(array.shape), "crc32": crc}
    manifest = {"format": FORMAT, "version": VERSION, "step": int(step),
                "tensors": entries}
    tmp = os.path.join(directory, "manifest.json.tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(directory, "manifest.json"))


def read(directory):
    """Returns (step, {name: numpy array}) of the checkpoint in `directory`,
    checking its format, version, checksums, dtypes and shapes."""
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise ValueError(f"{directory}: not a version {VERSION} {FORMAT}")
    tensors = {}
    for name, entry in manifest["tensors"].items():
        path = os.path.join(directory, entry["file"])
        with open(path, "rb") as f:
            data = f.read()
        if zlib.crc32(data) & 0xFFFFFFFF != entry["crc32"]:
            raise ValueError(f"{path}: checksum mismatch for {name}")
        array = np.load(path)
        if array.dtype != DTYPES[entry["dtype"]] or \
                list(array.shape) != entry["shape"]:
            raise ValueError(f"{path}: {name} is {array.dtype}{array.shape}, "
                             f"manifest says {entry['dtype']}{entry['shape']}")
        tensors[name] = array
    return manifest["step"], tensors
