#!/usr/bin/python3
"""Draws peak resident memory against problem size for the streaming benchmarks: one panel per
program, streamed and materializing (--eager) runs at each thread count, log-log, as a PNG. A run
that failed is an x at the top of its panel.

    bench/streaming/plot.py RESULTS.csv... -o figure.png [--title TEXT]

RESULTS.csv comes from bench/streaming/run.sh --csv; of several (the default sizes and the large
ones), a later file's row for the same program, size, threads and mode replaces an earlier one's.
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import sys

# Line style per mode and colour per thread count (others: matplotlib's cycle).
MODES = [("stream", "streamed", "-"), ("eager", "materializing (--eager)", "--")]
THREAD_COLOURS = {"1": "#3182bd", "all": "#e6550d"}


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    except OSError as e:
        sys.exit(f"plot.py: cannot read {path}: {e.strerror}")
    needed = {"program", "elements", "threads", "mode", "status", "peak_mib"}
    if not rows or not needed <= set(rows[0].keys()):
        sys.exit(f"plot.py: {path}: not a streaming results CSV (needs a header with {', '.join(sorted(needed))} and rows)")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="CSV from bench/streaming/run.sh --csv")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--title", default="Peak memory, streamed and materializing", help="the figure's title")
    args = parser.parse_args()
    latest = {}
    for path in args.results:
        for row in read_rows(path):
            latest[(row["program"], row["elements"], row["threads"], row["mode"])] = row
    rows = list(latest.values())

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import NullFormatter, ScalarFormatter
    except ImportError:
        sys.exit("plot.py: needs matplotlib (Debian: python3-matplotlib)")

    programs = list(dict.fromkeys(row["program"] for row in rows))
    columns = min(2, len(programs))
    lines = (len(programs) + columns - 1) // columns
    figure, axes = plt.subplots(lines, columns, figsize=(6 * columns, 4.2 * lines), squeeze=False)
    for panel, program in zip(axes.flat, programs):
        mine = [row for row in rows if row["program"] == program]
        threads = list(dict.fromkeys(row["threads"] for row in mine))
        peaks = [float(row["peak_mib"]) for row in mine if row["status"] == "ok"]
        top = max(peaks) * 2 if peaks else 1.0
        for mode, label, style in MODES:
            for t in threads:
                series = sorted((float(row["elements"]), row) for row in mine if row["mode"] == mode and row["threads"] == t)
                if not series:
                    continue
                colour = THREAD_COLOURS.get(t)
                done = [(x, float(row["peak_mib"])) for x, row in series if row["status"] == "ok"]
                failed = [x for x, row in series if row["status"] != "ok"]
                name = f"{label}, {t} thread{'' if t == '1' else 's'}"
                if done:
                    plt_line = panel.plot(*zip(*done), style, marker="o", color=colour, label=name)
                    colour = plt_line[0].get_color()
                if failed:
                    panel.plot(failed, [top] * len(failed), "x", color=colour, markersize=10,
                               label=f"{name}: failed" if not done else None)
        panel.set_xscale("log")
        panel.set_yscale("log")
        panel.yaxis.set_major_formatter(ScalarFormatter())
        panel.yaxis.set_minor_formatter(NullFormatter())
        panel.set_title(program)
        panel.set_xlabel("elements (problem size)")
        panel.set_ylabel("peak resident memory, MiB")
        panel.grid(True, which="both", alpha=0.3)
        panel.legend(fontsize=7)
    for panel in list(axes.flat)[len(programs):]:
        panel.set_visible(False)
    figure.suptitle(args.title + " (x: the run failed)")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"plot.py: wrote {args.output}")


if __name__ == "__main__":
    main()
