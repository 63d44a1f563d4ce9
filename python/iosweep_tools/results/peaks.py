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
"""
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
            )
        )
    return out


def compact(v):
    """An ops/s figure as the console prints it: 16.8K, 1.2M, 950.3."""
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e3:
        return f"{v / 1e3:.1f}K"
    return f"{v:.1f}"


def figure_text(p, v):
    return compact(v) if p.unit == "ops/s" else f"{v:.1f}"


def console_names(run):
    """{enum name: the name the console prints} of a run's phase table."""
    return {
        p: str(row.get("name", p)) for p, row in run.phase_table.items() if isinstance(row, dict)
    }


def peaks_text(rows, axis, names=None):
    """The console's Peak & Sustained table (its heading line included) of `rows`; `names` maps
    a phase's enum name to the name the console prints (console_names), else '_' -> '-'."""
    names = names or {}
    lines = [
        "Peak & Sustained (peak: the best point; sustained: the largest point; the mean of its"
        " repetitions)",
        f"  {'phase':<14} {'unit':<6} {'peak':>10} {axis:>8} {'sustained':>10} {axis:>8}",
    ]
    for p in rows:
        name = names.get(p.phase, p.phase.replace("_", "-"))
        lines.append(
            f"  {name:<14} {p.unit:<6} {figure_text(p, p.peak):>10} {p.peak_at:>8}"
            f" {figure_text(p, p.sustained):>10} {p.sustained_at:>8}"
        )
    return "".join(line + "\n" for line in lines)
