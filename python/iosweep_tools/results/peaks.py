"""Peak & Sustained per phase: what the console prints at the end of a run, as the PixStor study
presents its series, computed from a run's summary for iosweep-report and iosweep-plot.

    rows = peak_sustained(run)          # [Peak], phases in the order iosweep runs them
    print(peaks_text(rows, run.axis()), end="")   # the console's table, line for line

The definitions are the console's (src/output/console_writer.cpp, print_peaks): per phase, the
headline figure of every point (iops in ops/s for random and metadata phases, bandwidth_Bps in
MiB/s = bytes/s / 2^20 otherwise), the mean of its repetitions, its points keyed by the run's
axis (active ranks, or streams for a run of --streams); peak = the largest of those means (the
first point that reaches it, in increasing order of the axis), sustained = the mean of the
largest point. Control phases are left out unless the run showed them (--show-controls).

Beside each figure, the cache verdict of the rows it is the mean of (src/output/notes.hpp): the
part of a row's stored notes that says its figure may not be the storage's (`cached 97%`,
`unflushed 100%`, `device 0%`, `wire 2%`, `unverified`, a metadata row's `... (cached)` or
`... (unflushed)`, `no I/O (engine null)`), read back from the summary's `notes` as the binary
stored them; a point's verdict merges its repetitions' marks (point_verdict).
"""
import re
from dataclasses import dataclass

MIB = 1048576.0


@dataclass
class Peak:
    """One phase's line: the figure (`field` / `scale`, in `unit`), the peak point's mean and
    where (`peak_at`, on the run's axis), the largest point's mean (`sustained`,
    `sustained_at`), and the summary rows of each (their repetitions)."""

    phase: str
    unit: str
    field: str
    scale: float
    peak: float
    peak_at: int
    sustained: float
    sustained_at: int
    peak_rows: list
    sustained_rows: list
    peak_verdict: str = ""
    sustained_verdict: str = ""
    verdicts: dict = None  # {summary row: its cache verdict}

    @property
    def notes(self):
        """The console's notes column: one verdict when peak and sustained are one point, else
        each named."""
        if self.peak_at == self.sustained_at:
            return self.peak_verdict
        parts = [f"peak: {self.peak_verdict}"] if self.peak_verdict else []
        if self.sustained_verdict:
            parts.append(f"sustained: {self.sustained_verdict}")
        return "; ".join(parts)


_MARK = re.compile(r"^(cached|unflushed|device|wire) \d+%$")


def is_verdict(note):
    """Whether one note of a row's notes is part of its cache verdict (notes.hpp)."""
    return bool(
        _MARK.match(note)
        or note == "unverified"
        or note.endswith((" (cached)", " (unflushed)"))
        or note.startswith("no I/O (engine ")
    )


def cache_verdict(notes):
    """The cache verdict in a row's stored notes: its verdict notes, ", " between."""
    return ", ".join(n for n in str(notes or "").split("; ") if is_verdict(n))


_NUMBER = re.compile(r"(?<![^ ])(\d+)")  # a mark's first number: at its start or after a space


def point_verdict(verdicts):
    """The verdict of several rows (a point's repetitions), as the console merges them
    (notes.hpp, merged_verdict): their marks by kind (a mark's text without its first number),
    in the order they first appear, each number the range the rows span."""
    kinds = {}
    for v in verdicts:
        for mark in filter(None, str(v).split(", ")):
            m = _NUMBER.search(mark)
            if m is None:
                kinds.setdefault((mark, ""), None)
                continue
            key, n = (mark[: m.start(1)], mark[m.end(1) :]), int(m.group(1))
            lo, hi = kinds.get(key) or (n, n)
            kinds[key] = (min(lo, n), max(hi, n))
    return ", ".join(
        before
        + ("" if span is None else str(span[0]) + ("" if span[0] == span[1] else f"-{span[1]}"))
        + after
        for (before, after), span in kinds.items()
    )


def _order(run):
    """The run's phases in the order iosweep runs them (its phase table), else by enum value."""
    order = [p for p in run.phase_table if isinstance(run.phase_table.get(p), dict)]
    present = run.phases_present()
    return [p for p in order if p in present] + [p for p in present if p not in order]


def peak_sustained(run):
    """[Peak] of every phase of `run` (a results.reader.Run) with a summary row."""
    s = run.summary
    axis = run.axis()
    controls = bool(run.config().get("show-controls", False))
    out = []
    for phase in _order(run):
        if "control" in run.flags(phase) and not controls:
            continue
        field, _ = run.headline(phase)
        scale = 1.0 if field == "iops" else MIB
        rows = [i for i in range(len(s)) if run.phase_of_row(i) == phase]
        at = {}
        for i in rows:
            at.setdefault(int(s[axis][i]), []).append(i)
        # Summed as the console sums them: each figure in its unit, in the order of the rows.
        means = {
            x: sum(float(s[field][i]) / scale for i in idx) / len(idx) for x, idx in at.items()
        }
        xs = sorted(means)
        peak_at = xs[0]
        for x in xs:
            if means[x] > means[peak_at]:
                peak_at = x
        last = xs[-1]
        verdicts = {i: _row_verdict(s, i) for i in rows}
        out.append(
            Peak(
                phase,
                "ops/s" if field == "iops" else "MiB/s",
                field,
                scale,
                means[peak_at],
                peak_at,
                means[last],
                last,
                at[peak_at],
                at[last],
                point_verdict([verdicts[i] for i in at[peak_at]]),
                point_verdict([verdicts[i] for i in at[last]]),
                verdicts,
            )
        )
    return out


def _row_verdict(s, i):
    if "notes" not in s.dtype.names:
        return ""
    v = s["notes"][i]
    return cache_verdict(v.decode(errors="replace") if isinstance(v, bytes) else v)


def compact(v):
    """An ops/s figure as the console prints it: 16.8K, 1.2M, 950.3."""
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e3:
        return f"{v / 1e3:.1f}K"
    return f"{v:.1f}"


def figure_text(p, v):
    return compact(v) if p.unit == "ops/s" else f"{v:.1f}"


def peaks_text(rows, axis):
    """The console's Peak & Sustained table (its heading line included) of `rows`."""
    lines = [
        "Peak & Sustained (peak: the best point; sustained: the largest point; the mean of its"
        " repetitions; notes: where its rows' bytes came from, when not the storage)",
        f"  {'phase':<14} {'unit':<6} {'peak':>10} {axis:>8} {'sustained':>10} {axis:>8}  notes",
    ]
    for p in rows:
        notes = p.notes
        lines.append(
            f"  {p.phase:<14} {p.unit:<6} {figure_text(p, p.peak):>10} {p.peak_at:>8}"
            f" {figure_text(p, p.sustained):>10} {p.sustained_at:>8}"
            + (f"  {notes}" if notes else "")
        )
    return "".join(line + "\n" for line in lines)
