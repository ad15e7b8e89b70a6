#!/usr/bin/python3
#===- scripts/plot_metrics.py - Loss curves of of-run --metrics files ----===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: /usr/bin/python3 scripts/plot_metrics.py METRICS.csv [METRICS.csv ...]
#            -o loss.png [--column loss] [--label NAME ...] [--title T]
#            [--log-y] [--x step|seconds]
#
# Run it with /usr/bin/python3: that interpreter sees Debian's
# python3-matplotlib (scripts/install-deps.sh installs it); another python3
# on PATH (a virtual environment, conda) may not.
#
# Each file is what `of-run --metrics FILE` writes: a header
# step,seconds,samples_per_second then one column per scalar output (loss,
# ...), and one row per step; seconds is the wall time since the run
# started. Draws one curve per file, overlaid and labelled with the file's
# name without .csv (or --label, once per file, in order), against the step
# or, with --x seconds, against wall time. The picture's format follows the
# suffix of -o: .png, .svg or .pdf. Bad input exits 1 with a message naming
# the file and the line or column; nothing is drawn or written then.
#
#===----------------------------------------------------------------------===#
import argparse
import csv
import io
import os
import sys
import tempfile

FORMATS = ("png", "svg", "pdf")


def fail(message):
    print(f"plot_metrics.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def read(path, x, column):
    """The (x, column) values of every row of one metrics CSV."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                fail(f"'{path}' is empty")
            header = [name.strip() for name in header]
            for key in (x, column):
                if key not in header:
                    fail(f"'{path}' has no column '{key}' "
                         f"(it has {', '.join(header)})")
            xi, yi = header.index(x), header.index(column)
            xs, ys = [], []
            for row in reader:
                if not row:
                    continue  # A blank line, as at the end of some files.
                values = []
                for key, i in ((x, xi), (column, yi)):
                    if i >= len(row):
                        fail(f"'{path}' line {reader.line_num}: no value for "
                             f"'{key}' ({len(row)} fields, {len(header)} "
                             f"columns)")
                    try:
                        values.append(float(row[i]))
                    except ValueError:
                        fail(f"'{path}' line {reader.line_num}: {key} "
                             f"'{row[i]}' is not a number")
                xs.append(values[0])
                ys.append(values[1])
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    except (UnicodeDecodeError, csv.Error) as e:
        fail(f"'{path}' is not a CSV file ({e})")
    if not xs:
        fail(f"'{path}' has no rows")
    return xs, ys


def main():
    parser = argparse.ArgumentParser(
        prog="plot_metrics.py",
        description="draw the loss curves of of-run --metrics CSV files")
    parser.add_argument("metrics", nargs="+", metavar="METRICS.csv")
    parser.add_argument("-o", "--output", required=True,
                        help="the picture: .png, .svg or .pdf")
    parser.add_argument("--column", default="loss",
                        help="the column to draw (default: loss)")
    parser.add_argument("--label", action="append", default=[],
                        help="a curve's name, once per file in order "
                             "(default: the file name without .csv)")
    parser.add_argument("--title", default="")
    parser.add_argument("--log-y", action="store_true",
                        help="a logarithmic y axis")
    parser.add_argument("--x", choices=("step", "seconds"), default="step",
                        help="the x axis: step, or wall time since the run "
                             "started (default: step)")
    args = parser.parse_args()

    if args.label and len(args.label) != len(args.metrics):
        fail(f"{len(args.label)} --label for {len(args.metrics)} "
             f"METRICS.csv: give one per file, in order, or none")
    labels = args.label or [os.path.splitext(os.path.basename(p))[0]
                            for p in args.metrics]
    suffix = os.path.splitext(args.output)[1].lower().lstrip(".")
    if suffix not in FORMATS:
        fail(f"cannot tell the format of '{args.output}' from its suffix "
             f"(use .{', .'.join(FORMATS)})")
    curves = [read(path, args.x, args.column) for path in args.metrics]

    try:
        import matplotlib
        matplotlib.use("Agg")  # No display: draw into a file.
        from matplotlib.figure import Figure
    except ImportError:
        fail("no matplotlib: run this with /usr/bin/python3 after "
             "scripts/install-deps.sh (Debian's python3-matplotlib)")

    fig = Figure(figsize=(8, 5), layout="tight")
    ax = fig.add_subplot()
    for (xs, ys), label in zip(curves, labels):
        ax.plot(xs, ys, label=label, linewidth=1.2)
    ax.set_xlabel("step" if args.x == "step" else "seconds since the start")
    ax.set_ylabel(args.column)
    if args.log_y:
        ax.set_yscale("log")
    if args.title:
        ax.set_title(args.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    # Drawn in memory first: a title or label matplotlib cannot typeset
    # (malformed mathtext such as "$\\frac$") is an error, not a traceback
    # and an empty image.
    image = io.BytesIO()
    try:
        fig.savefig(image, format=suffix)
    except (ValueError, RuntimeError) as e:
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        fail(f"cannot draw the plot (a --title or --label matplotlib cannot "
             f"typeset?): {' '.join(lines) or type(e).__name__}")
    write(args.output, image.getvalue())


def write(path, data):
    """Writes `data` to `path` whole or not at all: a regular file through a
    temporary file renamed over it, anything else (a device) directly."""
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:
            fail(f"cannot write '{path}': {e.strerror}")
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".plot_metrics.")
    except OSError as e:
        fail(f"cannot write '{path}': {e.strerror}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except OSError as e:
        os.unlink(temp)
        fail(f"cannot write '{path}': {e.strerror}")


if __name__ == "__main__":
    main()
