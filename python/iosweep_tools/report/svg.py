"""Inline SVG charts for iosweep-report: line and point charts on linear, log2 or log10 axes,
drawn as text (no script, no font or image fetched), each a <figure> with its legend and caption.

    from iosweep_tools.report import svg
    svg.chart([{"label": "seq-write", "color": "#d62728", "points": [(1, 90.5), (2, 170.1)],
                "dots": [(1, 88.0), (1, 93.1)], "ranges": [(1, 88.0, 93.1)]}],
              title="...", xlabel="active ranks (log2)", ylabel="MiB/s", xscale="log2")

A series draws its `points` as a line (and markers), its `dots` as unconnected points (every
repetition), its `ranges` as vertical whiskers (min to max over repetitions), its `bars`
(x0, x1, y) as steps from x0 to x1 at height y (a histogram, a time bin). Values that cannot be
drawn (NaN, or <= 0 on a log axis) are left out and the caption says how many.
"""
import math
from html import escape

PHASE_COLOURS = {
    "seq-write": "#d62728",
    "seq-read": "#1f77b4",
    "filter-count": "#2ca02c",
    "rand-write": "#ff7f0e",
    "rand-read": "#9467bd",
    "scan-only": "#bcbd22",
    "ship-count": "#8c564b",
    "md-mkdir": "#8c564b",
    "md-create": "#d62728",
    "md-stat": "#1f77b4",
    "md-read": "#9467bd",
    "md-remove": "#ff7f0e",
    "md-rmdir": "#7f7f7f",
}
OTHER_COLOURS = ["#e377c2", "#17becf", "#7f7f7f", "#000000", "#8c564b"]
DASHES = ["", "7 4", "2 3", "9 3 2 3", "4 4", "1 2"]
W, H = 540, 290
LEFT, RIGHT, TOP, BOTTOM = 74, 14, 12, 46


def phase_colour(phase, order):
    if phase in PHASE_COLOURS:
        return PHASE_COLOURS[phase]
    others = [p for p in order if p not in PHASE_COLOURS]
    i = others.index(phase) if phase in others else len(others)
    return OTHER_COLOURS[i % len(OTHER_COLOURS)]


def _ok(v, scale):
    return v is not None and math.isfinite(v) and (scale == "linear" or v > 0)


def _t(v, scale):
    if scale == "log2":
        return math.log2(v)
    return math.log10(v) if scale == "log10" else v


def nice_ticks(lo, hi, n=5):
    """Round ticks covering [lo, hi] (1, 2, 5 x 10^k steps)."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks, v = [], first
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 12))
        v += step
    return ticks


def number_text(v):
    """A tick label: 0.5, 12, 3.4k, 1.2M."""
    a = abs(v)
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return f"{v / div:.3g}{suffix}"
    return f"{v:.3g}"


def duration_text(ns):
    """A latency tick label from nanoseconds: 800 ns, 12 µs, 3.4 ms, 2 s."""
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= div:
            return f"{ns / div:.3g} {unit}"
    return f"{ns:.3g} ns"


def _axis_ticks(lo, hi, scale):
    if scale == "linear":
        return nice_ticks(lo, hi)
    a, b = math.floor(lo), math.ceil(hi)
    if b == a:
        b = a + 1
    step = max(1, math.ceil((b - a) / 10))
    base = 2 if scale == "log2" else 10
    return [float(base**k) for k in range(a, b + 1, step)]


def _extent(series, xscale, yscale):
    """(xs, ys, dropped): every value of the series that can be drawn on these scales, and how
    many points, dots and bars cannot (NaN, or not above 0 on a log axis)."""
    xs, ys, dropped = [], [], 0
    for s in series:
        for key in ("points", "dots"):
            for x, y in s.get(key, ()):
                if _ok(x, xscale) and _ok(y, yscale):
                    xs.append(x)
                    ys.append(y)
                else:
                    dropped += 1
        for x0, x1, y in s.get("bars", ()):
            if _ok(x0, xscale) and _ok(x1, xscale) and _ok(y, yscale):
                xs += [x0, x1]
                ys.append(y)
            else:
                dropped += 1
        for x, lo, hi in s.get("ranges", ()):
            for y in (lo, hi):
                if _ok(x, xscale) and _ok(y, yscale):
                    xs.append(x)
                    ys.append(y)
    return xs, ys, dropped


class _Plot:
    """The plotting area of a chart: its value ranges (on the axes' scales), its ticks and the
    mapping of a value to a pixel."""

    def __init__(self, xs, ys, xscale, yscale, width, height):
        self.xscale, self.yscale = xscale, yscale
        tx = [_t(x, xscale) for x in xs]
        ty = [_t(y, yscale) for y in ys]
        x0, x1 = min(tx), max(tx)
        y0, y1 = min(ty), max(ty)
        if yscale == "linear":
            y0 = min(0.0, y0)
            y1 = y1 * 1.05 if y1 > 0 else y1 + 1
        if x1 == x0:
            x0, x1 = x0 - 1, x1 + 1
        if y1 == y0:
            y0, y1 = y0 - 1, y1 + 1
        ticks = _axis_ticks(x0, x1, xscale)
        self.xticks = [t for t in ticks if x0 - 1e-9 <= _t(t, xscale) <= x1 + 1e-9]
        self.yticks = _axis_ticks(y0, y1, yscale)
        self.x0, self.x1 = x0, x1
        self.y0 = min(y0, _t(self.yticks[0], yscale))
        self.y1 = max(y1, _t(self.yticks[-1], yscale))
        self.pw, self.ph = width - LEFT - RIGHT, height - TOP - BOTTOM
        self.pad = 0.03 * (x1 - x0)

    def px(self, x):
        span = self.x1 - self.x0 + 2 * self.pad
        return LEFT + (_t(x, self.xscale) - self.x0 + self.pad) / span * self.pw

    def py(self, y):
        return TOP + self.ph - (_t(y, self.yscale) - self.y0) / (self.y1 - self.y0) * self.ph

    def ok(self, x, y):
        return _ok(x, self.xscale) and _ok(y, self.yscale)


def _frame(p, title, xlabel, ylabel, width, height, xfmt, yfmt):
    """The SVG element's opening, the plotting area, the grid, the ticks and the axis labels."""
    pw, ph = p.pw, p.ph
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}"'
        f' height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>',
    ]
    for t in p.yticks:
        y = p.py(t)
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>'
            f'<text x="{LEFT - 5}" y="{y + 4:.1f}" text-anchor="end">{escape(yfmt(t))}</text>'
        )
    for t in p.xticks:
        x = p.px(t)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + ph}" stroke="#eee"/>'
            f'<text x="{x:.1f}" y="{TOP + ph + 15}" text-anchor="middle">{escape(xfmt(t))}</text>'
        )
    out.append(
        f'<text x="{LEFT + pw / 2:.0f}" y="{height - 8}" text-anchor="middle">{escape(xlabel)}'
        f"</text>"
        f'<text transform="translate(14 {TOP + ph / 2:.0f}) rotate(-90)" text-anchor="middle">'
        f"{escape(ylabel)}</text>"
    )
    return out


def _ranges(p, s, colour):
    out = []
    for x, lo, hi in s.get("ranges", ()):
        if p.ok(x, lo) and p.ok(x, hi):
            x_at = f"{p.px(x):.1f}"
            out.append(
                f'<line x1="{x_at}" x2="{x_at}" y1="{p.py(lo):.1f}" y2="{p.py(hi):.1f}"'
                f' stroke="{colour}" stroke-width="5" stroke-opacity="0.25"/>'
            )
    return out


def _bars(p, s, colour, dash_attr):
    bars = [(x0, x1, y) for x0, x1, y in s.get("bars", ()) if p.ok(x0, y) and p.ok(x1, y)]
    if not bars:
        return []
    base = p.py(10**p.y0) if p.yscale == "log10" else p.py(max(0.0, p.y0))
    d = "".join(
        f"M{p.px(x0):.1f},{base:.1f}V{p.py(y):.1f}H{p.px(x1):.1f}V{base:.1f}" for x0, x1, y in bars
    )
    return [
        f'<path d="{d}" fill="{colour}" fill-opacity="0.12" stroke="{colour}"'
        f' stroke-width="1.3"{dash_attr}/>'
    ]


def _series(p, s):
    """(the SVG elements of one series: whiskers, line, markers, rings, bars; its legend item)."""
    colour, dash = s.get("color", "#333"), s.get("dash", "")
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    out = _ranges(p, s, colour)
    pts = [(p.px(x), p.py(y)) for x, y in s.get("points", ()) if p.ok(x, y)]
    if len(pts) > 1 and s.get("line", True):
        d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
        out.append(
            f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.8"'
            f"{dash_attr}/>"
        )
    marker = s.get("marker", "circle" if len(pts) <= 40 else None)
    out += [_marker(marker, a, b, colour) for a, b in pts]
    for x, y in s.get("dots", ()):
        if p.ok(x, y):
            out.append(
                f'<circle cx="{p.px(x):.1f}" cy="{p.py(y):.1f}" r="2.2" fill="none"'
                f' stroke="{colour}" stroke-opacity="0.8"/>'
            )
    out += _bars(p, s, colour, dash_attr)
    return out, _legend_item(s.get("label", ""), colour, dash, marker if pts else None)


def chart(series, title, xlabel, ylabel, xscale="linear", yscale="linear", caption="", **kw):
    """A <figure> holding one SVG chart, its legend and its caption (HTML)."""
    width, height = kw.get("width", W), kw.get("height", H)
    xfmt = kw.get("xfmt", number_text)
    yfmt = kw.get("yfmt", number_text)
    xs, ys, dropped = _extent(series, xscale, yscale)
    head = f'<figure class="chart"><figcaption class="title">{escape(title)}</figcaption>'
    if not xs:
        return (
            head + f'<p class="empty">nothing to draw: no {escape(ylabel)} values</p>'
            f"<figcaption>{caption}</figcaption></figure>"
        )
    p = _Plot(xs, ys, xscale, yscale, width, height)
    out = _frame(p, title, xlabel, ylabel, width, height, xfmt, yfmt)
    legend = []
    for s in series:
        marks, item = _series(p, s)
        out += marks
        legend.append(item)
    out.append("</svg>")
    note = (
        f" {dropped} value(s) could not be drawn (NaN or not above 0 on a log axis)."
        if dropped
        else ""
    )
    return (
        head
        + "".join(out)
        + f'<ul class="legend">{"".join(legend)}</ul>'
        + f"<figcaption>{caption}{escape(note)}</figcaption></figure>"
    )


def _marker(kind, x, y, colour):
    if kind == "square":
        return f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6" fill="{colour}"/>'
    if kind == "cross":
        return (
            f'<path d="M{x - 4:.1f},{y - 4:.1f}L{x + 4:.1f},{y + 4:.1f}M{x - 4:.1f},{y + 4:.1f}'
            f'L{x + 4:.1f},{y - 4:.1f}" stroke="{colour}" stroke-width="2"/>'
        )
    if kind is None:
        return ""
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>'


def _legend_item(label, colour, dash, marker):
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    m = _marker(marker, 14, 6, colour) if marker else ""
    return (
        '<li><svg xmlns="http://www.w3.org/2000/svg" width="28" height="12" aria-hidden="true">'
        f'<line x1="0" y1="6" x2="28" y2="6" stroke="{colour}" stroke-width="2"{dash_attr}/>{m}'
        f"</svg> {escape(label)}</li>"
    )
