"""Inputs for train-nonfinite.test: 10 batches of 64 random 8x8 "images"
and labels for examples/mlp.mlir, the same images with one NaN pixel in
batch 3 (and one with an infinity there), and the data without batch 3."""

import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
images = rng.standard_normal((640, 64)).astype(np.float32)
labels = rng.integers(0, 10, 640).astype(np.int64)
np.save(f"{out}/images.npy", images)
np.save(f"{out}/labels.npy", labels)
for name, value in (("nan", np.nan), ("inf", np.inf)):
    bad = images.copy()
    bad[3 * 64 + 5, 7] = value
    np.save(f"{out}/images_{name}.npy", bad)
keep = np.r_[0:3 * 64, 4 * 64:640]
np.save(f"{out}/images_without3.npy", images[keep])
np.save(f"{out}/labels_without3.npy", labels[keep])
