"""The sections of iosweep-report about other measurements: run against run (the comparison of
compare.runs as a table) and the IOzone, IOR and mdtest baselines given with --baseline.

Each function returns the body of its section ('' when there is nothing to show).
"""
from html import escape

from iosweep_tools.compare import tools
from iosweep_tools.compare.runs import display_value
from iosweep_tools.report import html as h
from iosweep_tools.report.html import MIB
from iosweep_tools.report.overview import run_name
from iosweep_tools.report.sweep import baseline_mine


def baselines_section(runs, baselines):
    if not baselines:
        return ""
    run = runs[0]
    body = h.p(
        "Outputs of other tools given with --baseline, parsed as iosweep-compare parses them"
        " (sequential figures in MiB/s, random and metadata ones in ops/s); ≠ names what differs"
        " from the"
        f" first run ({escape(run.id)}): such a figure measures something else. Each source, its"
        " files and the settings they state:"
    )
    sources, rows = [], []
    for src, results in baselines:
        name = tools.source_name(src)
        sources.append(
            f"<li>{escape(name)}: {escape(', '.join(src['files']))}"
            f" ({escape(tools.settings_text(src))})</li>"
        )
        for x in results:
            scale = 1.0 if run.in_ops(x.phase) else MIB
            mine = baseline_mine(run, x)
            diff = tools.differences(mine, x) if mine else ["(run has no such phase)"]
            rows.append(
                [
                    h.text_td(name),
                    h.text_td(x.line, cls=""),
                    h.text_td(x.figure),
                    h.text_td(x.phase),
                    h.text_td(x.threads, cls=""),
                    f'<td data-source="baseline" data-value="{x.value!r}">'
                    f"{h.num(x.value / scale)}</td>",
                    h.text_td("MiB/s" if scale != 1.0 else "ops/s"),
                    h.text_td("=" if not diff else "≠ " + ",".join(diff)),
                ]
            )
    body += f'<ul class="words">{"".join(sources)}</ul>'
    head = ["source", "line", "figure", "phase", "threads", "value", "unit", "vs run"]
    return body + h.table(head, rows)


# -------------------------------------------------------------------------- run against run


def comparison(cmps):
    if not cmps:
        return ""
    body = ""
    for cmp in cmps:
        body += f"<h3>B {escape(run_name(cmp.b))} against A {escape(run_name(cmp.a))}</h3>"
        body += h.p(
            "B / A = mean of B's repetitions / mean of A's, of the headline figure; 95% bootstrap"
            f" interval over repetitions ({cmp.resamples} resamples, seed {cmp.seed}); verdict"
            " faster or slower when the interval excludes 1, within noise when it contains it"
            " (scripts/iosweep-compare A.h5:RUN B.h5:RUN prints the same)."
        )
        if cmp.differences:
            body += h.table(
                ["setting that differs", "A", "B", "rows"],
                [
                    [
                        h.text_td(d.what),
                        h.text_td(d.a),
                        h.text_td(d.b),
                        h.text_td(", ".join(sorted(d.phases))),
                    ]
                    for d in cmp.differences
                ],
            )
        else:
            body += h.p("Settings that differ: none.")
        rows = []
        for r in cmp.rows:
            ma, unit = display_value(r, r.mean_a)
            mb, _ = display_value(r, r.mean_b)
            how = f"mean over repetitions of {r.field}" + (" / 2^20" if unit == "MiB/s" else "")
            cls = {"faster": "good", "slower": "bad"}.get(r.verdict, "")
            rows.append(
                [
                    h.text_td(r.phase),
                    h.text_td(r.ranks, cls=""),
                    h.text_td(r.iodepth, cls=""),
                    h.text_td(f"{len(r.a)}/{len(r.b)}", cls=""),
                    h.derived(ma, "A: " + how),
                    h.derived(mb, "B: " + how),
                    h.text_td(unit),
                    h.derived(r.ratio, "mean B / mean A", digits=3)
                    if r.compared
                    else h.text_td("-"),
                    h.text_td(f"[{r.lo:.3f}, {r.hi:.3f}]" if r.compared else "-"),
                    h.text_td(
                        r.verdict + (f" ({r.interval_note})" if r.interval_note else ""),
                        cls=f"t {cls}",
                    ),
                ]
            )
        body += h.table(
            [
                "phase",
                "ranks",
                "depth",
                "reps A/B",
                "mean A",
                "mean B",
                "unit",
                "B/A",
                "95% interval",
                "verdict",
            ],
            rows,
        )
        for label, keys in (("only in A", cmp.only_a), ("only in B", cmp.only_b)):
            if keys:
                body += h.p(
                    f"{label}: "
                    + escape("; ".join(f"{p} at {k} ranks x depth {d}" for p, k, d in keys))
                )
    return body
