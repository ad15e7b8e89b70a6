#!/usr/bin/python3
#===- scripts/make_digits.py - scikit-learn's digits as .npy -------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Writes the 1,797 8x8 handwritten digits that Debian's python3-sklearn ships
# as DIR/digits_images.npy (N x 64 f32, pixels scaled to [0, 1]) and
# DIR/digits_labels.npy (N i64, 0 to 9), shuffled with a fixed seed, for
# `of-run --input images=@DIR/digits_images.npy:loop --input labels=@...`.
#
#===----------------------------------------------------------------------===#
import argparse
import os

import numpy as np
from sklearn.datasets import load_digits


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir", help="where to write the two .npy files")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    digits = load_digits()
    order = np.random.default_rng(args.seed).permutation(len(digits.target))
    images = (digits.data[order] / 16.0).astype(np.float32)
    labels = digits.target[order].astype(np.int64)
    os.makedirs(args.dir, exist_ok=True)
    np.save(os.path.join(args.dir, "digits_images.npy"), images)
    np.save(os.path.join(args.dir, "digits_labels.npy"), labels)
    print(f"wrote {len(labels)} digits to {args.dir}")


if __name__ == "__main__":
    main()
