"""The page of iosweep-report: its sections in order, each a row of SECTIONS, and what they are
made from (a Report).

    page = build(runs, baselines, comparisons)   # the whole HTML document

A section is one row: its id (the anchor), its link in the navigation, its heading, and the
function that makes its body from the Report ('' leaves the section out). A section about each
run on its own is made by each_run from a function of one run. Adding a section is one function
in a module of this package and one row here; the navigation follows the rows.
"""
import datetime
from dataclasses import dataclass, field
from html import escape

from iosweep_tools.compare import io500 as io500_results
from iosweep_tools.compare import tools
from iosweep_tools.compare.parsers import parse_any
from iosweep_tools.compare.record import ParseError
from iosweep_tools.core.errors import Stop
from iosweep_tools.report import comparison, drives, final_math, io500, latency, overview, sections
from iosweep_tools.report import sweep
from iosweep_tools.report import html as h


@dataclass
class Report:
    """What the sections are made from: the runs (results.reader.Run, the first is A), the
    baselines [(source, [Result])], the comparisons (compare.runs) of every other run against A,
    and the phase names of the runs' files in the order of their enums."""

    runs: list
    baselines: list
    comparisons: list
    names: list
    io500: list = field(default_factory=list)  # the io500 application's result folders


@dataclass(frozen=True)
class Section:
    """A row of SECTIONS: `id` (the section's anchor), `link` (its name in the navigation),
    `body` (a function of the Report making its HTML; '' leaves the section out) and `heading`
    (its title on the page, `link` when None)."""

    id: str
    link: str
    body: object
    heading: str = None


def each_run(part, *wanted):
    """The body of a section of one part per run, part(run, *the Report's `wanted` attributes),
    each headed by the run's name when the page shows several."""

    def body(report):
        out = ""
        for r in report.runs:
            if len(report.runs) > 1:
                out += f"<h3>{escape(overview.run_name(r))}</h3>"
            out += part(r, *(getattr(report, w) for w in wanted))
        return out

    return body


def definitions(report):
    """What the figures of every section mean."""
    return (
        "<ul>"
        "<li><b>Window.</b> Each rank times open, I/O, fsync (for the phases --fsync names) and"
        " close from its exit of the active ranks' barrier. wall_s is the slowest rank's time;"
        " bandwidth_Bps = all bytes / wall_s, iops = all operations / wall_s (IOR's figures)."
        " A metadata phase's window runs from the barrier to the rank's last completion; its iops"
        " is every rank's operations over the slowest rank's window (mdtest's and IO500's rate)."
        "</li><li><b>Units.</b> Stored figures are bytes, bytes/s, ops/s, s and ns; a column"
        " header names the unit shown: MiB/s = bytes/s / 2^20, µs = ns / 1000, GB = 10^9"
        " bytes in the final math as the console prints it.</li>"
        "<li><b>Derived figures</b> (means over repetitions, medians over ranks, sums over time"
        " bins, ratios) are marked data-derived in the page with how they were made.</li>"
        "<li><b>Where bytes came from.</b> device_fraction: the block device's own counters"
        " around the phase over the phase's bytes; cached_fraction: page-cache residency before"
        " a read; unflushed_fraction: dirty pages after a write without fsync or O_DIRECT; NaN:"
        " not measured.</li>"
        "<li><b>Per drive.</b> A drive is a block device of one kernel; its ranks are those whose"
        " file is in a folder on it. drive_Bps = its ranks' bytes / the slowest of their"
        " windows; drive_fraction = the bytes its own counters saw / its ranks' bytes; per drive"
        " in the final math = aggregate / drives used.</li>"
        "<li><b>Run against run.</b> B / A of the mean headline figure, with a bootstrap 95%"
        " interval over repetitions; rows whose settings differ are not compared.</li></ul>"
        "<p class=note>Schema: results/README.md. Every table can be exported with"
        " scripts/iosweep-load FILE --csv DIR or --json FILE.</p>"
    )


SECTIONS = [
    Section("runs", "Runs", lambda r: overview.glance(r.runs)),
    Section("sweep", "Sweep curves", lambda r: sweep.sweep(r.runs, r.baselines, r.names)),
    Section(
        "peaks",
        "Peak & Sustained",
        each_run(sections.peaks),
        heading="Peak & Sustained: the best point and the largest point",
    ),
    Section(
        "io500",
        "IO500",
        io500.section,
        heading="IO500: the phases and the score as the run wrote them",
    ),
    Section("comparison", "Run against run", lambda r: comparison.comparison(r.comparisons)),
    Section("what-ran", "What ran", lambda r: overview.what_ran(r.runs)),
    Section(
        "placement",
        "Placement",
        lambda r: overview.placement(r.runs),
        heading="Placement of ranks on nodes",
    ),
    Section("filesystem", "File system", lambda r: overview.filesystem(r.runs)),
    Section("latency", "Latency", each_run(latency.latency, "names")),
    Section(
        "over-time",
        "Over time",
        each_run(latency.over_time, "names"),
        heading="Throughput and latency over time",
    ),
    Section(
        "stragglers",
        "Stragglers",
        each_run(sections.stragglers),
        heading="Stragglers: who set wall_s",
    ),
    Section("provenance", "Where the bytes came from", each_run(sections.provenance)),
    Section(
        "drives",
        "Drives",
        each_run(drives.drive_section),
        heading="Drives: what each drive saw against what its ranks claimed",
    ),
    Section(
        "final-math",
        "Final math",
        each_run(final_math.final_math),
        heading="filter-count's final math",
    ),
    Section(
        "baselines",
        "Baselines",
        lambda r: comparison.baselines_section(r.runs, r.baselines),
        heading="Baselines (IOzone, IOR, mdtest)",
    ),
    Section("definitions", "Definitions", definitions, heading="What the figures mean"),
]


def read_io500_baselines(paths):
    """The io500 application's result folders (or result_summary.txt files) among `paths`, read
    (compare.io500.parse); the other paths are read_baselines'."""
    return [io500_results.parse(p) for p in paths if io500_results.is_io500(p)]


def read_baselines(paths):
    """[(source, [Result])] of IOzone, IOR and mdtest outputs, sources in order of first appearance
    (compare.tools.sources); Stop naming --baseline for a file that cannot be parsed. IO500
    result folders are left to read_io500_baselines."""
    results = []
    for path in paths:
        if io500_results.is_io500(path):
            continue
        try:
            results += [r for r in parse_any(path) if r.kind != "parent"]
        except ParseError as e:
            raise Stop(f"--baseline: {e}") from None
    out = []
    for src in tools.sources(results):
        out.append((src, [r for r in results if tools.source_key(r) == src["key"]]))
    return out


def build(runs, baselines, comparisons, io500_baselines=()):
    """The whole page: its title, the navigation, a line naming the file, the runs and when it
    was made, and every section of SECTIONS that has a body."""
    names = []
    for r in runs:
        names += [n for n in r.phase_names.values() if n not in names]
    report = Report(runs, baselines, comparisons, names, list(io500_baselines))
    title = "iosweep report: " + ", ".join(overview.run_name(r) for r in runs)
    made = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = h.p(
        f"From {escape(runs[0].path)}, made {made} by scripts/iosweep-report. Runs: "
        + ", ".join(f"{escape(r.id)} ({escape(r.status_name)})" for r in runs)
        + "."
    )
    shown = [(s, s.body(report)) for s in SECTIONS]
    shown = [(s, body) for s, body in shown if body]
    return h.page(
        title,
        [(s.id, s.link) for s, _ in shown],
        [head] + [h.section(s.id, s.heading or s.link, body) for s, body in shown],
    )
