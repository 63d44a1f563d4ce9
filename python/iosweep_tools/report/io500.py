"""The IO500 section of the report: for each run of `iosweep io500`, its phases and score as its
result folder holds them (result_summary.txt: the figure, its unit and time, [INVALID]; with
--repetitions, result_repetitions.txt's medians with their 95% intervals; result_phases.txt's
window, straggler tail, wear-out, latency and notes of each phase), beside the io500
application's result folders given with --baseline (the ratio run / application).

Every figure is a cell of the file it was read from (`data-source` io500: the run's own
result_summary.txt; io500-phases: its result_phases.txt; io500-baseline: the application's),
never recomputed; a ratio is marked derived. Runs that are not IO500 runs have no part here.
"""
from html import escape

from iosweep_tools.compare import io500
from iosweep_tools.core.errors import Stop
from iosweep_tools.report import html as h
from iosweep_tools.report import overview


def _cell(value, source, text=None):
    shown = text if text is not None else f"{value:.4f}"
    return f'<td data-source="{source}" data-value="{value!r}">{escape(shown)}</td>'


def _table(summary, reps, apps):
    head = ["phase", "unit", "this run", "time s", "valid"]
    if reps:
        head += ["median over repetitions", "95% interval"]
    for i, _ in enumerate(apps):
        head += [f"application [{i + 1}]", "ratio"]
    rows = []
    names = list(summary["phases"]) + ["BW", "MD", "TOTAL"]
    for name in names:
        if name in summary["phases"]:
            score, unit, time_s, _scored, invalid = summary["phases"][name]
            row = [h.text_td(name), h.text_td(unit), _cell(score, "io500")]
            row += [
                _cell(time_s, "io500", f"{time_s:.3f}"),
                h.text_td("INVALID" if invalid else ""),
            ]
        else:
            i = ("BW", "MD", "TOTAL").index(name)
            score = summary["score"][i] if summary["score"] else float("nan")
            unit = ("GiB/s", "kIOPS", "")[i]
            invalid = bool(summary["score"] and summary["score"][3])
            row = [h.text_td(name), h.text_td(unit), _cell(score, "io500"), h.text_td("")]
            row += [h.text_td("INVALID" if invalid else "")]
        if reps:
            m = reps.get(name)
            row += (
                [_cell(m[0], "io500"), h.text_td(f"[{m[1]:.4f}, {m[2]:.4f}] over {m[3]}")]
                if m
                else [h.text_td("")] * 2
            )
        mine = io500.figures(summary).get(name, (None, io500.SCORE_UNITS.get(name, unit)))[1]
        for app in apps:
            a, theirs = io500.figures(app).get(name, (None, None))
            if a is None:
                row += [h.text_td("-"), h.text_td("")]
                continue
            row += [_cell(a, "io500-baseline")]
            if theirs != mine:  # the io500 script before 2020 printed GB/s
                row += [h.text_td(f"units differ: {theirs}")]
                continue
            ratio = io500.ratio(a, score)
            ratio = float("nan") if ratio is None else ratio
            row += [h.derived(ratio, f"this run's {name} / the application's", 3)]
        rows.append(row)
    return h.table(head, rows)


def _phases_table(rows):
    """Where each phase's time went and its operations' latency, as result_phases.txt holds
    them (the first repetition: the one the application's files hold)."""
    head = ["phase", "window s", "tail s", "tail after", "wear-out s", "wear-out share"]
    head += ["p50 µs", "p99 µs", "p99.9 µs", "max µs", "served by a cache", "where from", "notes"]
    out = []
    for r in rows:
        if r["repetition"] != 1:
            continue
        row = [h.text_td(r["phase"])]
        row += [_cell(r[k], "io500-phases", f"{r[k]:.3f}") for k in ("window_s", "tail_s")]
        row += [h.text_td(r["tail_from"])]
        row += [_cell(r["wearout_s"], "io500-phases", f"{r['wearout_s']:.3f}")]
        row += [_cell(r["wearout_share"], "io500-phases", f"{100 * r['wearout_share']:.1f}%")]
        row += [
            _cell(r[k], "io500-phases", f"{r[k]:.1f}")
            for k in ("lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_max_us")
        ]
        row += [h.text_td(r.get(k, "")) for k in ("cache", "provenance", "notes")]
        out.append(row)
    return h.table(head, out[: h.MAX_ROWS], total=len(out))


def section(report):
    """The section's body: one part per IO500 run; '' when no run is one."""
    apps = report.io500
    out = ""
    for r in report.runs:
        try:
            folder = io500.folder_of_run(r)
            summary = io500.parse(folder)
        except Stop:
            continue
        reps = io500.parse_repetitions(folder)
        if len(report.runs) > 1:
            out += f"<h3>{escape(overview.run_name(r))}</h3>"
        out += h.p(
            f"From {escape(summary['source'])}, as the run wrote it: GiB/s (2^30 bytes/s) for"
            " the ior phases and BW, kIOPS (1000 operations/s) for mdtest, find and MD, each over"
            " the phase's whole time, wear-out included; TOTAL = sqrt(BW x MD)."
            + (
                " The application's folders: "
                + ", ".join(f"[{i + 1}] {escape(a['source'])}" for i, a in enumerate(apps))
                + "."
                if apps
                else ""
            )
        )
        out += _table(summary, reps, apps)
        phases = io500.parse_phases(folder)
        if phases:
            out += h.p(
                "Where each phase's time went, from result_phases.txt (iosweep's own file): the"
                " window to the last rank's close; its straggler tail, how long it ran on after"
                " the stonewall (or after the first rank's close when none was stonewalled); the"
                " untimed wear-out after it and its share of the phase's operations or bytes;"
                " latency percentiles of the operations merged over ranks (find: per file"
                " examined); the marks that say a cache served the phase (- when the storage's"
                " counters saw its work), where its bytes came from, and the row's notes."
            )
            out += _phases_table(phases)
    return out
