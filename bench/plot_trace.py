#!/usr/bin/python3
"""Draws a timeline from `vinterp --trace-json FILE` as a PNG (the Perfetto UI is not available
offline; chrome://tracing and Perfetto open the same file interactively).

    bench/plot_trace.py TRACE.json -o timeline.png [--title TEXT] [--from MS --to MS]

Top: the spans, one row per call depth (function calls in grey, instructions coloured by opcode,
runs of short instructions hatched). Bottom: the vector memory track (host and device bytes).
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys
from collections import Counter


def load_events(path):
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_trace.py: cannot read {path}: {e}")
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return [e for e in events if e.get("ph") in ("X", "C")]


def depths(spans):
    """Each span's row: the number of function spans that enclose it (spans nest)."""
    spans = sorted(spans, key=lambda s: (s["ts"], -s["dur"]))
    open_ends = []  # ends of the enclosing function spans, innermost last
    rows = []
    for s in spans:
        while open_ends and open_ends[-1] <= s["ts"]:
            open_ends.pop()
        rows.append((s, len(open_ends)))
        if s["cat"] == "function":
            open_ends.append(s["ts"] + s["dur"])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--title", default=None)
    parser.add_argument("--from", dest="start_ms", type=float, default=None, help="window start, ms")
    parser.add_argument("--to", dest="end_ms", type=float, default=None, help="window end, ms")
    parser.add_argument("--top", type=int, default=8, help="opcodes given their own colour")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        sys.exit("plot_trace.py: needs matplotlib (Debian: python3-matplotlib)")

    events = load_events(args.trace)
    spans = [e for e in events if e["ph"] == "X" and e.get("cat") != "phase"]
    counters = [e for e in events if e["ph"] == "C"]
    if not spans:
        sys.exit(f"plot_trace.py: {args.trace} has no spans")
    lo = args.start_ms * 1000 if args.start_ms is not None else min(s["ts"] for s in spans)
    hi = args.end_ms * 1000 if args.end_ms is not None else max(s["ts"] + s["dur"] for s in spans)
    visible = [s for s in spans if s["ts"] + s["dur"] >= lo and s["ts"] <= hi]

    # The busiest opcodes (by time) get colours; the rest share one.
    time_by_opcode = Counter()
    for s in visible:
        if s["cat"] == "instruction":
            time_by_opcode[s["args"]["opcode"]] += s["dur"]
    palette = plt.get_cmap("tab10").colors
    colours = {op: palette[i % 10] for i, (op, _) in enumerate(time_by_opcode.most_common(args.top))}
    other = "#bbbbbb"

    fig, (ax, mem) = plt.subplots(2, 1, figsize=(14, 7), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1]})
    max_depth = 0
    for s, depth in depths(visible):
        start, width = (s["ts"] - lo) / 1000, max(s["dur"], 0.05) / 1000
        max_depth = max(max_depth, depth)
        if s["cat"] == "function":
            ax.barh(depth, width, left=start, height=0.9, color="#e0e0e0", edgecolor="#909090", linewidth=0.3)
        elif s["cat"] == "instructions":
            ax.barh(depth, width, left=start, height=0.9, color="white", edgecolor="#909090", hatch="///", linewidth=0.3)
        else:
            ax.barh(depth, width, left=start, height=0.9, color=colours.get(s["args"]["opcode"], other), linewidth=0)
    ax.set_ylim(max_depth + 0.7, -0.7)
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_ylabel("call depth")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    labels = list(colours)
    handles += [plt.Rectangle((0, 0), 1, 1, color=other), plt.Rectangle((0, 0), 1, 1, color="#e0e0e0", ec="#909090"),
                plt.Rectangle((0, 0), 1, 1, fc="white", ec="#909090", hatch="///")]
    labels += ["other opcodes", "function call", "short instructions"]
    ax.legend(handles, labels, loc="upper right", fontsize=8, ncol=2)
    ax.set_title(args.title or args.trace)

    for key, colour in (("host bytes", "#3182bd"), ("device bytes", "#e6550d")):
        points = [((c["ts"] - lo) / 1000, c["args"].get(key, 0) / 2**20) for c in counters]
        if any(v for _, v in points):
            xs, ys = zip(*sorted(points))
            mem.step(xs, ys, where="post", color=colour, label=key.replace(" bytes", " vector memory"))
    mem.set_ylabel("MiB")
    mem.set_xlabel("ms since vinterp started")
    if mem.get_legend_handles_labels()[0]:
        mem.legend(loc="upper right", fontsize=8)
    mem.set_xlim(0, (hi - lo) / 1000)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"plot_trace.py: wrote {args.output} ({len(visible)} spans)")


if __name__ == "__main__":
    main()
