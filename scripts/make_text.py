#!/usr/bin/python3
#===- scripts/make_text.py - A text file as character-level .npy ---------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Turns a text file (by default the GPL-3 that every Debian machine ships in
# /usr/share/common-licenses) into next-character training data for
# examples/gpt/gpt.mlir:
#
#   DIR/text_tokens.npy   R x CONTEXT i64, row r = characters [r*C, r*C + C)
#   DIR/text_targets.npy  R x CONTEXT i64, the same shifted by one character
#
# for `of-run --input tokens=@DIR/text_tokens.npy:loop --input
# targets=@DIR/text_targets.npy:loop`. Rows are consecutive windows of the
# text, in order, so batch b holds rows [b*batch, b*batch + batch).
#
# The vocabulary has 96 ids: 0 is a newline, 1 to 95 are the printable ASCII
# characters ' ' (32) to '~' (126), i.e. id = ord(c) - 31. A tab becomes a
# space; any other character is an error naming its line and column.
#
#===----------------------------------------------------------------------===#
import argparse
import os
import sys

import numpy as np

VOCAB = 96
DEFAULT_TEXT = "/usr/share/common-licenses/GPL-3"


def encode(text, path):
    """Returns the ids of `text`'s characters (see the vocabulary above)."""
    ids = np.empty(len(text), dtype=np.int64)
    line, column = 1, 0
    for i, c in enumerate(text):
        column += 1
        if c == "\n":
            ids[i] = 0
            line, column = line + 1, 0
        elif c == "\t":
            ids[i] = 1
        elif " " <= c <= "~":
            ids[i] = ord(c) - 31
        else:
            sys.exit(f"{path}:{line}:{column}: error: character {c!r} is "
                     f"outside the vocabulary (newline, tab, ' ' to '~')")
    return ids


def windows(path, context):
    """Returns (tokens, targets) of the text file at `path`: R x `context`
    ids each, targets shifted by one character. Exits with an error naming
    the file when it cannot be read or is too short."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"{path}: error: {e}")
    ids = encode(text, path)
    rows = (len(ids) - 1) // context
    if rows < 1:
        sys.exit(f"{path}: error: fewer than {context + 1} characters")
    span = rows * context
    return (ids[:span].reshape(rows, context),
            ids[1:span + 1].reshape(rows, context))


def main():
    parser = argparse.ArgumentParser(
        description="Writes a text file as character-level token/target .npy "
        "files")
    parser.add_argument("dir", help="where to write the two .npy files")
    parser.add_argument("--text", default=DEFAULT_TEXT)
    parser.add_argument("--context", type=int, default=32)
    args = parser.parse_args()
    if args.context < 1:
        parser.error(f"--context {args.context} is not positive")
    tokens, targets = windows(args.text, args.context)
    os.makedirs(args.dir, exist_ok=True)
    for name, array in (("tokens", tokens), ("targets", targets)):
        np.save(os.path.join(args.dir, f"text_{name}.npy"), array)
    print(f"wrote {len(tokens)} rows of {args.context} characters to "
          f"{args.dir}")

if __name__ == "__main__":
    main()
