#!/usr/bin/env python3
"""Plots the GPU check's speed table: TFLOP/s against sequence length N, one
panel per (dtype, head dim, mask) and one line per implementation (attn,
SDPA FlashAttention-2, cuDNN, and any other *_tflops column, e.g. Mosaic
GPU), as in FlashAttention's README figures.

Reads tools/scripts/gpu_check.py's JSON (its "timing" rows) and, when given,
tools/scripts/gpu_programs.py's JSON (its "bench" rows: the tile-IR kernels
launched from their PTX, drawn dashed). Older runs that kept only the logs
work too: pass gpu_check.log / gpu_programs.log and the tables printed there
are read.

  tools/scripts/plot_gpu_check.py gpu_check.json \\
      [--programs gpu_programs.json] [--out gpu_check.png]

Exit status: 0 PNG written, 3 no timing rows to plot (nothing written),
4 matplotlib missing, 2 unreadable input.
"""

import argparse
import json
import math
import os
import re
import sys

# Column prefix -> (legend label, colour, marker). Unknown prefixes get the
# next colour of the cycle and their own name.
KNOWN = {
    "ours": ("attn (runtime)", "#d62728", "o"),
    "fa2": ("SDPA flash (FA2)", "#1f77b4", "s"),
    "cudnn": ("cuDNN (SDPA)", "#2ca02c", "^"),
    "mosaic": ("Mosaic GPU", "#9467bd", "D"),
    "program": ("attn (tile-IR PTX program)", "#ff7f0e", "v"),
}
EXTRA_COLOURS = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def is_json(text):
    """JSON or a log, by the first character (names can mislead)."""
    return text.lstrip()[:1] == "{"


def read_timing_json(text):
    """[(dtype, D, causal, N, {impl: tflops})], device, note."""
    data = json.loads(text)
    rows = []
    for r in data.get("timing", []):
        vals = {k[:-len("_tflops")]: v for k, v in r.items()
                if k.endswith("_tflops") and isinstance(v, (int, float))
                and v > 0}
        if vals:
            rows.append((r.get("dtype", "bf16"), int(r["D"]),
                         bool(r["causal"]), int(r["N"]), vals))
    note = ""
    if rows and "B" in data.get("timing", [{}])[0]:
        note = "B·N = 16384, H·D = 2048"
    return rows, data.get("device", ""), note


TABLE_HDR = re.compile(r"^(\w+) forward, (.*), ([^,]+?) \(TFLOP/s")


def read_timing_log(text):
    """The table gpu_check.py prints at the end of its log."""
    rows, device, note, dtype, cols = [], "", "", "bf16", None
    for line in text.splitlines():
        m = TABLE_HDR.match(line)
        if m:
            dtype, note, device = m.group(1), m.group(2), m.group(3)
            rows, cols = [], None  # the last table wins
            continue
        w = line.split()
        if w[:3] == ["D", "mask", "N"]:
            cols = [c.lower() for c in w[3:]]
            continue
        if cols and len(w) >= 3 + len(cols) and w[1] in ("full", "causal") \
                and w[0].isdigit():
            vals = {}
            for name, text in zip(cols, w[3:]):
                if "/" in name:
                    continue
                key = "ours" if name == "ours" else name
                try:
                    vals[key] = float(text)
                except ValueError:
                    pass
            rows.append((dtype, int(w[0]), w[1] == "causal", int(w[2]),
                         vals))
    return rows, device, note


PROG_NAME = re.compile(r"^(bf16|f16)_d(\d+)(_causal)?$")


def read_programs(text):
    """[(dtype, D, causal, N, {program, fa2, cudnn})] of the plain kernels
    (variants like bias or soft-cap are not comparable with SDPA)."""
    rows = []
    if is_json(text):
        bench = json.loads(text).get("bench", [])
        items = [(b["prog"], int(b["n"]), b.get("attn"), b.get("fa2"),
                  b.get("cudnn")) for b in bench]
    else:
        items, in_table = [], False
        for line in text.splitlines():
            w = line.split()
            if w[:3] == ["kernel", "N", "attn"]:
                in_table, items = True, []
                continue
            if in_table and len(w) >= 5 and w[1].isdigit():
                f = [None if x == "-" else float(x) for x in w[2:5]]
                items.append((w[0], int(w[1]), *f))
    for name, n, attn, fa2, cudnn in items:
        m = PROG_NAME.match(name)
        if not m or not attn:
            continue
        vals = {"program": attn}
        if fa2:
            vals["fa2"] = fa2
        if cudnn:
            vals["cudnn"] = cudnn
        rows.append((m.group(1), int(m.group(2)), bool(m.group(3)), n, vals))
    return rows


def nice_n(n):
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timing", help="gpu_check.json (or gpu_check.log)")
    ap.add_argument("--programs",
                    help="gpu_programs.json (or .log), if it was run")
    ap.add_argument("--out", help="PNG path (default: beside the input, "
                    "gpu_check.png)")
    ap.add_argument("--title", help="figure title (default: from the data)")
    a = ap.parse_args()

    try:
        text = open(a.timing, errors="replace").read()
        if is_json(text):
            rows, device, note = read_timing_json(text)
        else:
            rows, device, note = read_timing_log(text)
        prog_rows = []
        if a.programs and os.path.exists(a.programs):
            prog_rows = read_programs(open(a.programs,
                                           errors="replace").read())
    except (OSError, ValueError, KeyError) as e:
        print(f"plot: cannot read the timing data: {e}")
        return 2

    # Panels: (dtype, D, causal) -> impl -> {N: tflops}. The runtime's rows
    # give the SDPA lines; a program's own SDPA numbers fill in only panels
    # the runtime did not time.
    panels = {}
    for dtype, d, causal, n, vals in rows:
        p = panels.setdefault((dtype, d, causal), {})
        for impl, v in vals.items():
            p.setdefault(impl, {})[n] = v
    for dtype, d, causal, n, vals in prog_rows:
        p = panels.setdefault((dtype, d, causal), {})
        for impl, v in vals.items():
            if impl == "program" or n not in p.get(impl, {}):
                p.setdefault(impl, {})[n] = v
    if not panels:
        print(f"plot: no timing rows in {a.timing}"
              + (f" or {a.programs}" if a.programs else "")
              + ": no PNG written (was the timing part skipped?)")
        return 3

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plot: matplotlib is not installed ({e}): no PNG written; "
              "`python3 -m pip install matplotlib`, or plot later with "
              f"tools/scripts/plot_gpu_check.py {a.timing}")
        return 4

    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.timing)),
                                "gpu_check.png")
    # Rows: (dtype, head dim); columns: full, causal.
    row_keys = sorted({(k[0], k[1]) for k in panels},
                      key=lambda k: (k[0] != "bf16", k[0], k[1]))
    masks = sorted({k[2] for k in panels})
    order = ["ours", "program", "fa2", "cudnn", "mosaic"]
    impls = sorted({i for p in panels.values() for i in p},
                   key=lambda i: (order.index(i) if i in order else 99, i))
    style = {}
    extra = iter(EXTRA_COLOURS * 4)
    for i in impls:
        style[i] = KNOWN.get(i, (i, next(extra), "x"))

    nrows, ncols = len(row_keys), len(masks)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols,
                                                   3.3 * nrows + 0.7),
                             squeeze=False)
    ymax = max(v for p in panels.values() for s in p.values()
               for v in s.values())
    for r, (dtype, d) in enumerate(row_keys):
        for c, causal in enumerate(masks):
            ax = axes[r][c]
            p = panels.get((dtype, d, causal))
            ax.set_title(f"{dtype}, head dim {d}, "
                         f"{'causal' if causal else 'non-causal'}",
                         fontsize=10)
            if not p:
                ax.text(0.5, 0.5, "not timed", ha="center", va="center",
                        transform=ax.transAxes, color="0.5")
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            ns = sorted({n for s in p.values() for n in s})
            for impl in impls:
                if impl not in p:
                    continue
                label, colour, marker = style[impl]
                pts = sorted(p[impl].items())
                ax.plot([n for n, _ in pts], [v for _, v in pts],
                        marker=marker, color=colour, label=label,
                        linewidth=2 if impl == "ours" else 1.4,
                        linestyle="--" if impl == "program" else "-",
                        markersize=5)
                if impl == "ours":
                    # Each value of ours: above its point, else below,
                    # wherever no other line passes close by; else above
                    # the points crowded just over it.
                    for n, v in pts:
                        gap = 0.09 * ymax
                        near = [s[n] - v for i, s in p.items()
                                if i != impl and n in s]
                        above = [x for x in near if 0 <= x <= gap]
                        y, dy = v, 5
                        if above:
                            if not any(-gap <= x <= 0 for x in near):
                                dy = -7
                            else:
                                y = v + max(above)
                        ax.annotate(f"{v:.0f}", (n, y), fontsize=7,
                                    color=colour, xytext=(0, dy),
                                    textcoords="offset points", ha="center",
                                    va="bottom" if dy > 0 else "top")
            ax.set_xscale("log", base=2)
            ax.set_xticks(ns)
            ax.set_xticklabels([nice_n(n) for n in ns], fontsize=8)
            ax.minorticks_off()
            ax.set_ylim(0, ymax * 1.12)
            ax.tick_params(axis="y", labelsize=8)
            ax.grid(True, alpha=0.3)
            if c == 0:
                ax.set_ylabel("TFLOP/s", fontsize=9)
            if r == nrows - 1:
                ax.set_xlabel("sequence length N", fontsize=9)
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()),
               loc="upper center", ncol=min(len(handles), 5), fontsize=9,
               frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.32 / fig.get_figheight()))
    title = a.title or ("Attention forward speed"
                        + (f", {device}" if device else "")
                        + (f" ({note}; causal FLOPs halved)" if note else ""))
    fig.suptitle(title, fontsize=11, y=1 - 0.08 / fig.get_figheight())
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.62 / fig.get_figheight()))
    fig.savefig(out, dpi=110)
    npts = sum(len(s) for p in panels.values() for s in p.values())
    print(f"plot: wrote {out} ({len(panels)} panels, {npts} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
