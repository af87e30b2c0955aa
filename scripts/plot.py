#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = []
# ///
"""Draw the plots of a bench-suite results folder as SVG, from its runs.csv.

  scripts/plot.py results/2025-01-31-myhost [more folders ...]

Writes into each folder:
  time-vs-n.svg               median seconds against n at the fewest threads measured (usually
                              1), log-scale time axis, one line per algorithm found in runs.csv
                              (join, symmetry, plain, yardstick; older folders lack join)
  time-vs-n-<T>threads.svg    the same for each other thread count T
  speedup-vs-threads.svg      speedup over the fewest threads against the thread count, for each
                              algorithm at the largest n, with the ideal (linear) line

Python standard library only; the SVG is written by hand.
"""

import csv
import math
import statistics
import sys
from pathlib import Path
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 860, 540
LEFT, RIGHT, TOP, BOTTOM = 96, 32, 84, 72
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"

# Colour, marker and dash per algorithm: told apart by shape as well as colour.
STYLES = {
    "join": ("#2a9d4b", "diamond", ""),  # not a triangle: that is the yardstick's
    "symmetry": ("#1f5fbf", "circle", ""),
    "plain": ("#d9730d", "square", ""),
    "yardstick": ("#4d4d4d", "triangle", "7 5"),
}
# Any further algorithm (none yet): dotted, in colours none of the above uses.
EXTRA = [("#b0359b", "circle", "3 3"), ("#8c6d1f", "square", "3 3"), ("#0f8c8c", "diamond", "3 3")]
ORDER = ["join", "symmetry", "plain", "yardstick"]


def style(alg, algorithms):
    if alg in STYLES:
        return STYLES[alg]
    others = [a for a in algorithms if a not in STYLES]
    return EXTRA[others.index(alg) % len(EXTRA)]


def read_runs(folder):
    path = Path(folder) / "runs.csv"
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise SystemExit(f"plot.py: {path} holds no runs")
    cells = {}
    for r in rows:
        key = (int(r["threads"]), int(r["n"]), r["algorithm"])
        cells.setdefault(key, []).append(float(r["seconds"]))
    return {k: statistics.median(v) for k, v in cells.items()}


def machine_caption(folder):
    """'<folder name> · <CPU>' from machine.md when it is there."""
    caption = Path(folder).resolve().name
    try:
        for line in (Path(folder) / "machine.md").read_text().splitlines():
            if line.startswith("| CPU |"):
                caption += " · " + line.split("|")[2].strip()
                break
    except OSError:
        pass
    return caption


# ---------------------------------------------------------------------------------------------
# SVG parts


class Svg:
    def __init__(self, title, caption):
        self.parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}">',
            f"<title>{escape(title)}</title>",
            f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        ]
        self.text(WIDTH / 2, 32, title, size=20, anchor="middle", weight="bold")
        self.text(WIDTH / 2, 56, caption, size=14, anchor="middle", fill="#555555")

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=14, anchor="start", fill="#222222", weight="normal",
             rotate=None, baseline=None):
        extra = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        if baseline == "central":  # by offset: renderers differ on dominant-baseline
            y += size * 0.36
        bold = f' font-weight="{weight}"' if weight != "normal" else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                 f'fill="{fill}"{bold}{extra}>{escape(str(s))}</text>')

    def line(self, x1, y1, x2, y2, stroke="#000000", width=1.0, dash=""):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                 f'stroke="{stroke}" stroke-width="{width}"{d}/>')

    def polyline(self, points, stroke, width=2.5, dash=""):
        if len(points) < 2:
            return
        d = f' stroke-dasharray="{dash}"' if dash else ""
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.add(f'<polyline points="{pts}" fill="none" stroke="{stroke}" stroke-width="{width}" '
                 f'stroke-linejoin="round" stroke-linecap="round"{d}/>')

    def marker(self, x, y, shape, fill, r=5.5):
        common = f'fill="{fill}" stroke="#ffffff" stroke-width="1.2"'
        if shape == "square":
            self.add(f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" '
                     f'height="{2 * r:.1f}" {common}/>')
        elif shape == "triangle":
            h = r * 1.25
            self.add(f'<polygon points="{x:.1f},{y - h:.1f} {x - h:.1f},{y + h * 0.8:.1f} '
                     f'{x + h:.1f},{y + h * 0.8:.1f}" {common}/>')
        elif shape == "diamond":
            h = r * 1.3
            self.add(f'<polygon points="{x:.1f},{y - h:.1f} {x + h:.1f},{y:.1f} {x:.1f},'
                     f'{y + h:.1f} {x - h:.1f},{y:.1f}" {common}/>')
        else:
            self.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" {common}/>')

    def frame(self):
        self.add(f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
                 f'height="{HEIGHT - TOP - BOTTOM}" fill="none" stroke="#333333" '
                 f'stroke-width="1.2"/>')

    def axis_titles(self, x_title, y_title):
        self.text(LEFT + (WIDTH - LEFT - RIGHT) / 2, HEIGHT - 20, x_title, size=16,
                  anchor="middle")
        y = TOP + (HEIGHT - TOP - BOTTOM) / 2
        self.text(24, y, y_title, size=16, anchor="middle", rotate=-90)

    def legend(self, entries, x=None, y=None, where="top-left"):
        """entries: (label, colour, marker, dash)."""
        if not entries:
            return
        row_h, pad, sample = 24, 10, 36
        text_w = max(len(label) for label, *_ in entries) * 9.0
        w = pad * 2 + sample + 10 + text_w
        h = pad * 2 + row_h * len(entries) - 6
        if where == "top-left":
            x0, y0 = LEFT + 14, TOP + 14
        else:  # bottom-right
            x0, y0 = WIDTH - RIGHT - 14 - w, HEIGHT - BOTTOM - 14 - h
        self.add(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
                 f'fill="#ffffff" fill-opacity="0.92" stroke="#bbbbbb"/>')
        for i, (label, colour, shape, dash) in enumerate(entries):
            cy = y0 + pad + 9 + i * row_h
            self.line(x0 + pad, cy, x0 + pad + sample, cy, stroke=colour, width=2.5, dash=dash)
            if shape:
                self.marker(x0 + pad + sample / 2, cy, shape, colour)
            self.text(x0 + pad + sample + 10, cy, label, size=15, baseline="central")

    def write(self, path):
        self.parts.append("</svg>")
        Path(path).write_text("\n".join(self.parts) + "\n")


def decade_label(k):
    if k >= 0:
        return f"{10 ** k:g}"
    return f"{10.0 ** k:.{-k}f}"


def nice_step(span, target=6):
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


# ---------------------------------------------------------------------------------------------
# The plots


def algorithms_in(med):
    present = {a for (_, _, a) in med}
    return [a for a in ORDER if a in present] + sorted(present - set(ORDER))


def time_vs_n(med, threads, caption, path):
    algs = algorithms_in(med)
    series = {a: sorted((n, s) for (t, n, aa), s in med.items() if t == threads and aa == a)
              for a in algs}
    series = {a: v for a, v in series.items() if v}
    values = [s for v in series.values() for _, s in v if s > 0]
    ns = sorted({n for v in series.values() for n, _ in v})
    title = f"Median wall time against board size, {threads} thread{'s' if threads != 1 else ''}"
    svg = Svg(title, caption)
    x0, x1 = LEFT, WIDTH - RIGHT
    y0, y1 = HEIGHT - BOTTOM, TOP
    if not values:
        svg.frame()
        svg.text(WIDTH / 2, HEIGHT / 2, "no data", size=16, anchor="middle")
        svg.write(path)
        return
    lo = math.floor(math.log10(min(values)))
    hi = math.ceil(math.log10(max(values)))
    if hi == lo:
        hi += 1
    nmin, nmax = ns[0] - 0.5, ns[-1] + 0.5

    def X(n):
        return x0 + (n - nmin) / (nmax - nmin) * (x1 - x0)

    def Y(s):
        return y0 - (math.log10(s) - lo) / (hi - lo) * (y0 - y1)

    # Grid: minor lines at 2..9 of each decade, major lines and labels at the decades.
    for k in range(lo, hi):
        for m in range(2, 10):
            svg.line(x0, Y(m * 10.0 ** k), x1, Y(m * 10.0 ** k), stroke="#eeeeee")
    for k in range(lo, hi + 1):
        y = Y(10.0 ** k)
        svg.line(x0, y, x1, y, stroke="#c8c8c8", width=1.1)
        svg.text(x0 - 10, y, decade_label(k), size=14, anchor="end", baseline="central")
    step = max(1, math.ceil(len(ns) / 16))
    for i, n in enumerate(ns):
        x = X(n)
        svg.line(x, y0, x, y1, stroke="#f2f2f2")
        svg.line(x, y0, x, y0 + 6, stroke="#333333")
        if i % step == 0 or n == ns[-1]:
            svg.text(x, y0 + 24, n, size=14, anchor="middle")
    svg.frame()
    svg.axis_titles("board size n", "median wall time (seconds, log scale)")
    entries = []
    for a, pts in series.items():
        colour, shape, dash = style(a, algs)
        xy = [(X(n), Y(s)) for n, s in pts if s > 0]
        svg.polyline(xy, colour, dash=dash)
        for x, y in xy:
            svg.marker(x, y, shape, colour)
        entries.append((a, colour, shape, dash))
    svg.legend(entries, where="top-left")
    svg.write(path)


def speedup_vs_threads(med, caption, path):
    algs = algorithms_in(med)
    n = max(n for (_, n, _) in med)
    thread_counts = sorted({t for (t, nn, _) in med if nn == n})
    base = thread_counts[0]
    series = {}
    for a in algs:
        b = med.get((base, n, a))
        if not b:
            continue
        series[a] = [(t, b / med[(t, n, a)]) for t in thread_counts
                     if med.get((t, n, a))]
    tmax = thread_counts[-1]
    ideal_max = tmax / base
    top = max([ideal_max] + [s for v in series.values() for _, s in v])
    ystep = nice_step(top * 1.1, 6)
    ytop = math.ceil(top * 1.1 / ystep) * ystep
    if tmax >= 4:
        xlo, xhi = 0, tmax * 1.06
    else:
        xlo, xhi = base - 0.5, tmax + 0.5
    basename = "1 thread" if base == 1 else f"{base} threads"
    svg = Svg(f"Speedup over {basename} at n = {n}", caption)
    x0, x1 = LEFT, WIDTH - RIGHT
    y0, y1 = HEIGHT - BOTTOM, TOP

    def X(t):
        return x0 + (t - xlo) / (xhi - xlo) * (x1 - x0)

    def Y(s):
        return y0 - s / ytop * (y0 - y1)

    k = 0.0
    while k <= ytop + 1e-9:
        svg.line(x0, Y(k), x1, Y(k), stroke="#dddddd")
        svg.text(x0 - 10, Y(k), f"{k:g}", size=14, anchor="end", baseline="central")
        k += ystep
    for t in thread_counts:
        svg.line(X(t), y0, X(t), y1, stroke="#eeeeee")
        svg.line(X(t), y0, X(t), y0 + 6, stroke="#333333")
        svg.text(X(t), y0 + 24, t, size=14, anchor="middle")
    svg.frame()
    svg.axis_titles("threads", f"speedup over {basename} (median times)")
    svg.line(X(base), Y(1), X(tmax), Y(ideal_max), stroke="#999999", width=1.8, dash="6 5")
    entries = [("ideal (linear)", "#999999", "", "6 5")]
    for a, pts in series.items():
        colour, shape, dash = style(a, algs)
        xy = [(X(t), Y(s)) for t, s in pts]
        svg.polyline(xy, colour, dash=dash)
        for x, y in xy:
            svg.marker(x, y, shape, colour)
        last_t, last_s = pts[-1]
        label = a if last_t == base else f"{a}: {last_s:.2f}× at {last_t} threads"
        entries.append((label, colour, shape, dash))
    svg.legend(entries, where="top-left")
    if len(thread_counts) == 1:
        svg.text((x0 + x1) / 2, Y(0.5), "only one thread count was measured", size=15,
                 anchor="middle", fill="#777777")
    svg.write(path)


def plot_folder(folder):
    med = read_runs(folder)
    caption = machine_caption(folder)
    thread_counts = sorted({t for (t, _, _) in med})
    written = []
    for i, t in enumerate(thread_counts):
        name = "time-vs-n.svg" if i == 0 else f"time-vs-n-{t}threads.svg"
        time_vs_n(med, t, caption, Path(folder) / name)
        written.append(name)
    speedup_vs_threads(med, caption, Path(folder) / "speedup-vs-threads.svg")
    written.append("speedup-vs-threads.svg")
    print(f"plot.py: wrote {', '.join(written)} in {folder}", file=sys.stderr)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    for folder in argv:
        if not (Path(folder) / "runs.csv").is_file():
            print(f"plot.py: {folder} has no runs.csv", file=sys.stderr)
            return 1
        plot_folder(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
