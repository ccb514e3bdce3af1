#!/usr/bin/python3
"""Draws Table 1 of the 2012 NESL-on-GPU paper for this machine: per benchmark program, the time
of the classic interpreter, vinterp (VCODE, one thread and all threads; FCODE), the hand-written
baseline and, where a GPU run's CSV exists, the GPU; log scale, as a PNG.

    bench/plot.py RESULTS.csv -o figure.png [--gpu GPU.csv ...] [--title TEXT]

RESULTS.csv comes from bench/run_benchmarks.sh --csv; GPU CSVs from bench/gpu/run_all.sh's e2e
stage (default: every bench/gpu/results/*.csv). A GPU row is drawn only where its program and size
match a row of RESULTS.csv. Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import glob
import os
import sys

# The bars, in order: (variant in the CSV, legend label, colour).
SERIES = [
    ("classic", "classic interpreter", "#7f7f7f"),
    ("vcode-1", "vinterp, 1 thread", "#9ecae1"),
    ("vcode-all", "vinterp, all threads", "#3182bd"),
    ("fcode-1", "FCODE, 1 thread", "#a1d99b"),
    ("fcode-all", "FCODE, all threads", "#31a354"),
    ("baseline-1", "hand-written C++, 1 thread", "#fdae6b"),
    ("baseline-all", "hand-written C++, all threads", "#e6550d"),
    ("cuda", "GPU: vinterp --backend cuda", "#756bb1"),
    ("cuda+fused", "GPU: FCODE, cuda", "#54278f"),
]
METRICS = [("wall_s", "whole process, wall seconds"), ("timed_s", "timed region (the program's timer), seconds")]


def read_rows(path):
    """The rows of one results CSV (lines starting with # are comments), as dicts."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    except OSError as e:
        sys.exit(f"plot.py: cannot read {path}: {e.strerror}")
    needed = {"program", "size", "variant", "wall_s", "timed_s"}
    if not rows or not needed <= set(rows[0].keys()):
        sys.exit(f"plot.py: {path}: not a results CSV (needs a header with {', '.join(sorted(needed))} and rows)")
    return rows


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="CSV from bench/run_benchmarks.sh --csv")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--gpu", action="append", help="a GPU run's CSV (default: bench/gpu/results/*.csv)")
    parser.add_argument("--title", default="NESL benchmarks on this machine", help="the figure's title")
    args = parser.parse_args()

    rows = read_rows(args.results)
    gpu_files = args.gpu if args.gpu is not None else sorted(glob.glob(os.path.join(here, "gpu", "results", "*.csv")))
    programs = []  # (program, size) in the order of the CSV
    for row in rows:
        key = (row["program"], row["size"])
        if key not in programs:
            programs.append(key)
    for path in gpu_files:
        for row in read_rows(path):
            if (row["program"], row["size"]) in programs and row["variant"] in ("cuda", "cuda+fused"):
                rows.append(row)
            elif row["variant"] in ("cuda", "cuda+fused"):
                print(f"plot.py: {path}: no CPU row for {row['program']} {row['size']}; its GPU time is left out")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: needs matplotlib (Debian: apt-get install python3-matplotlib)")

    values = {}  # (metric, program, size, variant) -> seconds
    for row in rows:
        for metric, _ in METRICS:
            value = number(row.get(metric))
            if value is not None:
                values[(metric, row["program"], row["size"], row["variant"])] = value
    series = [s for s in SERIES if any(k[3] == s[0] for k in values)]
    if not series:
        sys.exit(f"plot.py: {args.results}: no times to draw")

    figure, axes = plt.subplots(len(METRICS), 1, figsize=(max(8, 2.2 * len(programs) + 2), 9), squeeze=False)
    width = 0.85 / len(series)
    for axis, (metric, label) in zip(axes[:, 0], METRICS):
        for i, (variant, legend, colour) in enumerate(series):
            xs, ys = [], []
            for p, (program, size) in enumerate(programs):
                value = values.get((metric, program, size, variant))
                if value is not None:
                    xs.append(p - 0.425 + width * (i + 0.5))
                    ys.append(value)
            bars = axis.bar(xs, ys, width, label=legend, color=colour, edgecolor="black", linewidth=0.4)
            for bar, y in zip(bars, ys):
                text = f"{y:.3g}" if y >= 0.001 else f"{y:.1e}"
                axis.annotate(text, (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom",
                              fontsize=6, rotation=90, xytext=(0, 2), textcoords="offset points")
        axis.set_yscale("log")
        axis.set_ylabel(label)
        axis.set_xticks(range(len(programs)))
        axis.set_xticklabels([f"{program}\n{int(size):,}" if size.isdigit() else f"{program}\n{size}"
                              for program, size in programs])
        axis.grid(axis="y", which="both", linewidth=0.3, alpha=0.5)
        low, high = axis.get_ylim()
        axis.set_ylim(low, high * 3)  # room for the labels above the bars
    figure.suptitle(args.title)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=8, ncol=min(4, len(series)), loc="lower center")
    figure.tight_layout(rect=(0, 0.06, 1, 1))  # the legend below the panels
    figure.savefig(args.output, dpi=130)
    print(f"plot.py: wrote {args.output} ({len(programs)} programs, {len(series)} series)")


if __name__ == "__main__":
    main()
