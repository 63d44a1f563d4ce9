"""iosweep-plot: charts of a run in the style of the published studies.

    scripts/iosweep-plot results/iosweep.h5 [iozone.txt ior.txt ...] [--run ID] [-o run.png]
                         [--baselines] [--controls]

Left: bandwidth (MiB/s, 2^20 bytes/s) of seq-write, seq-read, filter-count and any other phase
that is not random, against active ranks; right: IOPS of the random phases, rand-write and
rand-read (the phases are those of the results file's phase enum). The x axis is log2 (1, 2, 4
... ranks or threads); for a run of --streams it is the streams (active ranks x depth), set
beside the other tools' threads, and the axis says so. Each panel's title gives the record sizes
the run used.

One line per iosweep phase: its wall figure (all bytes / the slowest rank's time, IOR's
bandwidth). IOzone's "Children see" (stonewalled unless IOzone ran with -x) and IOR's mean are
drawn over it as markers, one series per source and setting, labelled ≠ where the record size,
file size or O_DIRECT differ from the run's (see iosweep-compare). Control phases (scan_only,
filter-count's baseline) are drawn only with --controls.

The published figures in results/baselines/*.csv (source, system, phase, threads, value, unit;
optionally record_bytes and file_bytes, the record size and the file per thread of the
published run) are drawn only where they were measured like the run: the record size the run
used for that phase, and the file per thread where the CSV states it. A figure whose record
size the CSV does not state is drawn only with --baselines, which draws every published figure
(labelled ≠ where it differs). Uses Debian's matplotlib.
"""
import csv
import glob
import itertools
import math
import os
import re
import sys

from iosweep_tools.core import cmdline, command, files
from iosweep_tools.results import reader
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown, size_text
from iosweep_tools.results.file import NoSuchRun, ResultsError
from iosweep_tools.results.names import SCAN_PHASES, is_control, is_random, record_bytes, sweep_axis
from iosweep_tools.compare import parsers, tools
from iosweep_tools.compare.record import ParseError

HERE = os.path.dirname(os.path.realpath(__file__))
# The usual colour of each phase in the published charts; any other phase takes the next
# colour of OTHER_COLORS, in the order of the phase enum.
COLORS = {
    "seq_write": "tab:red",
    "seq_read": "tab:blue",
    "filter_count": "tab:green",
    "rand_write": "tab:orange",
    "rand_read": "tab:purple",
    "scan_only": "tab:olive",
}
OTHER_COLORS = ["tab:brown", "tab:pink", "tab:cyan", "tab:gray", "black"]
MARKERS = {"iozone": "o", "ior": "s", "baseline": "X"}


def pyplot():
    """matplotlib's pyplot on the Agg backend, imported when a figure is drawn (arguments are
    checked before: a refusal does not wait for matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # -o x.svg keeps its text as text
    import matplotlib.pyplot as plt

    return plt


def colours(names):
    """Phase name -> colour for every phase of the file."""
    spare = itertools.cycle(OTHER_COLORS)
    return {name: COLORS.get(name) or next(spare) for name in names}


MAX_THREADS = 1 << 20  # threads of a published figure


def _bad(path, i, why):
    raise Stop(f"--baselines-dir: {path}: line {i}: {why}")


def _optional_int(r, key, path, i):
    v = r.get(key)
    v = v.strip() if isinstance(v, str) else ""
    if not v:
        return None
    if not re.fullmatch(r"[0-9]{1,20}", v) or int(v) == 0:
        _bad(path, i, f"expected {key} as a positive byte count or empty (found {shown(v)})")
    return int(v)


def _baseline(r, path, i):
    """One published figure of a CSV row, every field checked."""
    if None in r or any(r.get(k) is None for k in ("source", "phase", "threads", "value", "unit")):
        _bad(path, i, "expected source,system,phase,threads,value,unit[,record_bytes,file_bytes]")
    threads = r["threads"].strip()
    if not re.fullmatch(r"[0-9]{1,8}", threads) or not 1 <= int(threads) <= MAX_THREADS:
        _bad(path, i, f"expected threads from 1 to {MAX_THREADS} (found {shown(threads)})")
    try:
        v = float(r["value"])
    except ValueError:
        v = math.nan
    if not math.isfinite(v) or v < 0:
        _bad(path, i, f"expected value as a finite number >= 0 (found {shown(r['value'])})")
    unit = r["unit"]
    if unit == "GB/s":
        v = v * 1e9 / 1048576.0
    elif unit not in ("MiB/s", "ops/s"):
        _bad(path, i, f"expected a unit of ops/s, MiB/s or GB/s (found {shown(unit)})")
    return {
        "source": r["source"],
        "phase": r["phase"],
        "threads": int(threads),
        "value": v,
        "record_bytes": _optional_int(r, "record_bytes", path, i),
        "file_bytes": _optional_int(r, "file_bytes", path, i),
    }


def load_baselines(folder):
    """Published figures: [{source, phase, threads, value (MiB/s or ops/s), record_bytes,
    file_bytes}], the last two None where the CSV does not state them. Every *.csv of `folder`
    must be a regular UTF-8 file of at most MAX_CSV_BYTES; a bad row stops with its line."""
    rows = []
    for path in sorted(glob.glob(os.path.join(glob.escape(folder), "*.csv"))):
        files.input_file("--baselines-dir", path, MAX_CSV_BYTES)
        i = 1
        try:
            with open(path, encoding="utf-8", newline="") as f:
                for i, r in enumerate(csv.DictReader(f), 2):
                    rows.append(_baseline(r, path, i))
        except (csv.Error, UnicodeError) as e:
            _bad(path, i + 1, f"not a CSV of UTF-8 text ({e})")
        except OSError as e:
            raise Stop(f"--baselines-dir: {shown(path)}: {e.strerror}")
    return rows


def baseline_differences(b, run):
    """What keeps a published figure from being the run's kind of measurement: "record" (not
    stated, or another size than the run's for that phase), "file" (stated and different)."""
    out = []
    if b["record_bytes"] is None or b["record_bytes"] != record_bytes(run, b["phase"]):
        out.append("record")
    if b["file_bytes"] is not None and b["file_bytes"] != int(run.get("file_size_bytes") or 0):
        out.append("file")
    return out


def panel_titles(run, present):
    """(left, right) titles naming the record sizes the run's phases `present` used."""

    def sizes(shown):
        found = sorted({record_bytes(run, p) for p in shown}, key=lambda x: (x is None, x or 0))
        return " / ".join(size_text(x) for x in found) + " records"

    seq = [p for p in present if not is_random(p) and p not in SCAN_PHASES]
    scan = [p for p in present if p in SCAN_PHASES]
    rnd = [p for p in present if is_random(p)]
    if seq and scan and sizes(seq) == sizes(scan):
        left = f"sequential and filter-count scan ({sizes(seq)})"
    else:
        left = (
            " and ".join(
                f"{label} ({sizes(x)})"
                for label, x in (("sequential", seq), ("filter-count scan", scan))
                if x
            )
            or "sequential (none in this run)"
        )
    return left, f"random ({sizes(rnd)})" if rnd else "random (none in this run)"


def records_text(n):
    return f"{size_text(n)} records" if n else "record size not stated"


def draw(
    run, s, others, baselines, names, all_baselines=False, controls=False, width=12.0, height=5.0
):
    """The figure of one run: `s` its summary rows, `others` IOzone/IOR Results, `baselines`
    load_baselines' rows, `names` the phase names of the file's enum in order."""
    colour = colours(names)
    present = [p for p in names if (s["phase_name"] == p).any() and (controls or not is_control(p))]
    mine = {
        "record_bytes": None,
        "file_bytes": int(run.get("file_size_bytes") or 0) or None,
        "direct": None if run.get("direct") is None else bool(int(run["direct"])),
        "shared": str(run.get("file_layout")) == "shared",
    }
    srcs = tools.sources(others)
    src_id = {
        (
            x["tool"],
            x["record_bytes"],
            x["file_bytes"],
            x["direct"],
            x["stonewall"],
            x["shared"],
        ): x["id"]
        for x in srcs
    }
    seq = [p for p in names if not is_random(p) and (controls or not is_control(p))]
    rnd = [p for p in names if is_random(p) and (controls or not is_control(p))]
    axis = sweep_axis(run)  # threads are the run's ranks, or its streams (--streams)

    fig, (left, right) = pyplot().subplots(1, 2, figsize=(width, height), dpi=100)
    for ax, in_panel, ylabel in (
        (left, seq, "bandwidth (MiB/s, 2^20 bytes/s)"),
        (right, rnd, "IOPS (operations/s)"),
    ):
        for phase in in_panel:
            d = s[s["phase_name"] == phase].groupby(axis).mean(numeric_only=True).reset_index()
            if len(d):
                y = d["iops"] if is_random(phase) else d["bandwidth_Bps"] / 1048576.0
                ax.plot(
                    d[axis],
                    y,
                    "-",
                    marker=".",
                    color=colour[phase],
                    label=f"iosweep {phase} (wall)",
                )
            scale = 1.0 if is_random(phase) else 1.0 / 1048576.0
            series = {}  # (source id) -> {threads: [values]}; repeated results are averaged
            for r in others:
                if r.phase == phase:
                    series.setdefault(src_id[tools.source_key(r)], {}).setdefault(
                        r.threads, []
                    ).append(r.value * scale)
            for sid, acc in sorted(series.items()):
                src = srcs[sid - 1]
                tool = "IOzone" if src["tool"] == "iozone" else "IOR"
                figure = (
                    "Children see" + (" -x" if src["stonewall"] is False else "")
                    if tool == "IOzone"
                    else "mean"
                )
                first = next(
                    r for r in others if r.phase == phase and src_id[tools.source_key(r)] == sid
                )
                # A shared file holds the regions of all the threads, as IOR counts it.
                file_bytes = (
                    mine["file_bytes"] * first.threads
                    if mine["shared"] and mine["file_bytes"]
                    else mine["file_bytes"]
                )
                diff = tools.differences(
                    dict(mine, record_bytes=record_bytes(run, phase), file_bytes=file_bytes), first
                )
                pts = sorted((t, sum(v) / len(v)) for t, v in acc.items())
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    "--",
                    marker=MARKERS[src["tool"]],
                    color=colour[phase],
                    alpha=0.7,
                    label=f"{tool}[{sid}] {phase} {figure}, {records_text(src['record_bytes'])}"
                    + (f" ≠ {','.join(diff)}" if diff else ""),
                )
            pub = [b for b in baselines if b["phase"] == phase]
            shown_pub = [b for b in pub if all_baselines or not baseline_differences(b, run)]
            for source, group in itertools.groupby(
                sorted(shown_pub, key=lambda b: (b["source"], b["threads"])),
                key=lambda b: b["source"],
            ):
                group = list(group)
                diff = baseline_differences(group[0], run)
                ax.plot(
                    [b["threads"] for b in group],
                    [b["value"] for b in group],
                    ":",
                    marker=MARKERS["baseline"],
                    markersize=9,
                    color=colour[phase],
                    label=f"published {phase}, {records_text(group[0]['record_bytes'])}"
                    + (f" ≠ {','.join(diff)}" if diff else ""),
                )
        ax.set_xscale("log", base=2)
        ax.set_xlabel(
            "streams (active ranks x depth) / threads (log2)"
            if axis == "streams"
            else "active ranks / threads (log2)"
        )
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=7)
    titles = panel_titles(run, present)
    left.set_title(titles[0])
    right.set_title(titles[1])
    label = f" - {run['label']}" if run.get("label") else ""
    direct = (
        "O_DIRECT" if mine["direct"] else "page cache" if mine["direct"] is False else "O_DIRECT ?"
    )
    fig.suptitle(
        f"iosweep run {run['run_id']}{label}: {run['world_size']} ranks on"
        f" {run['n_nodes']} node(s), engine {run['engine_name']},"
        f" {size_text(run.get('file_size_bytes'))} per rank, {direct}"
    )
    fig.tight_layout()
    return fig


def draw_latency_over_time(run, width=12.0, height=4.0):
    """Latency p50, p99 and max over time, all ranks merged (the timeseries rows of rank -1), one
    panel per phase at its largest point (`run`: a results.reader.Run); None when the file does
    not record latency over time."""
    from iosweep_tools.results import timeseries

    series = timeseries.latency_series(run)
    if not series:
        return None
    fig, axes = pyplot().subplots(1, len(series), figsize=(width, height), dpi=100, squeeze=False)
    for ax, (phase, d) in zip(axes[0], series.items()):
        for key in ("p50", "p99", "max"):
            ax.plot(d["times"], [v / 1e3 for v in d[key]], drawstyle="steps-post", label=key)
        ax.set_yscale("log")
        ax.set_title(f"{phase}, point {d['point']}", fontsize=9)
        ax.set_xlabel("time from the barrier (s)")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("latency per bin, all ranks merged (µs)")
    fig.suptitle(
        f"iosweep run {run.id}: latency over time ({run.attrs.get('timeseries_bin_s')} s bins)"
    )
    fig.tight_layout()
    return fig


MAX_OUTPUT_BYTES = 64 << 20  # an IOzone or IOR output; IOzone's largest are a few MiB
MAX_CSV_BYTES = 16 << 20  # a CSV of published figures
WIDTH = (2.0, 40.0)  # inches, at 100 dpi: 200 to 4000 pixels
HEIGHT = (2.0, 40.0)


def parse_args(argv=None):
    ap = cmdline.doc_parser(__doc__, skip=1)
    ap.add_argument(
        "results", help="iosweep HDF5 results file (a regular file; the run is read and checked)"
    )
    ap.add_argument(
        "outputs",
        nargs="*",
        help=f"IOzone or IOR outputs to draw beside the run (regular files of at most"
        f" {MAX_OUTPUT_BYTES >> 20} MiB each)",
    )
    ap.add_argument("--run", help="run id (default: the run appended last)")
    ap.add_argument(
        "-o",
        "--output",
        default="iosweep.png",
        help="image to write (default iosweep.png), its format from its extension: .png, .svg,"
        " .pdf, .eps, .ps, .svgz (.jpg, .tif, .webp with Pillow); its folder must exist and be"
        " writable; written whole or not at all",
    )
    ap.add_argument(
        "--baselines",
        action="store_true",
        help="draw every published figure, also those measured with other record or file sizes",
    )
    ap.add_argument(
        "--baselines-dir",
        default=os.path.join(HERE, "..", "results", "baselines"),
        help="an existing folder of published figures as CSV (*.csv, at most"
        f" {MAX_CSV_BYTES >> 20} MiB each; default results/baselines; '' for none)",
    )
    ap.add_argument("--controls", action="store_true", help="also draw control phases (scan_only)")
    ap.add_argument(
        "--latency-over-time",
        metavar="IMAGE",
        help="also draw latency p50/p99/max over time, all ranks merged, into IMAGE",
    )
    ap.add_argument(
        "--width",
        type=cmdline.number(*WIDTH, "inches"),
        default=12.0,
        help=f"inches at 100 dpi, from {WIDTH[0]:g} to {WIDTH[1]:g} (default 12)",
    )
    ap.add_argument(
        "--height",
        type=cmdline.number(*HEIGHT, "inches"),
        default=5.0,
        help=f"inches at 100 dpi, from {HEIGHT[0]:g} to {HEIGHT[1]:g} (default 5)",
    )
    args = ap.parse_args(argv)
    # Everything is checked before anything is read at length or written.
    if args.run is not None and not args.run:
        raise Stop("--run: is empty; expected a run id")
    if args.baselines_dir:
        if not os.path.isdir(args.baselines_dir):
            raise Stop(f"--baselines-dir: {shown(args.baselines_dir)} is not a folder")
    files.input_file("results", args.results, 1 << 40)
    for path in args.outputs:
        files.input_file("outputs", path, MAX_OUTPUT_BYTES)
    args.output = files.output_file(
        "--output", args.output, suffixes=files.plot_suffixes(), what="image"
    )
    if args.latency_over_time is not None:
        args.latency_over_time = files.output_file(
            "--latency-over-time",
            args.latency_over_time,
            suffixes=files.plot_suffixes(),
            what="image",
        )
    return args


def main(argv=None):
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv=None):
    args = parse_args(argv)
    try:
        # What the plot reads of the summary (ranks, streams, bandwidth_Bps, iops) every reader
        # checks; the other tables only for --latency-over-time.
        tables = None if args.latency_over_time else {}
        run = reader.read(args.results, args.run, tables=tables)
    except NoSuchRun as e:
        raise Stop(f"--run: {e}")
    except ResultsError as e:
        raise Stop(f"results: {e}")
    if not len(run.summary):
        raise Stop(f"results: '{args.results}': run {run.id} has no summary rows to draw")
    if sweep_axis(run.attrs) == "streams" and "streams" not in run.summary.dtype.names:
        raise Stop(f"results: {args.results}: run {run.id} swept streams but has no streams field")
    others = []
    for path in args.outputs:
        try:
            others += [r for r in parsers.parse_any(path) if r.kind != "parent"]
        except ParseError as e:
            raise Stop(str(e))
        except (OSError, UnicodeError) as e:
            raise Stop(f"outputs: {shown(path)}: {e}")
    baselines = load_baselines(args.baselines_dir) if args.baselines_dir else []
    fig = draw(
        run.attrs,
        run.frame(),
        others,
        baselines,
        list(run.phase_names.values()),
        all_baselines=args.baselines,
        controls=args.controls,
        width=args.width,
        height=args.height,
    )
    lat = None
    if args.latency_over_time:
        lat = draw_latency_over_time(run, width=args.width)
        if lat is None:
            raise Stop("--latency-over-time: not recorded in this file (no timeseries latency)")
    files.save_figure(fig, args.output)
    print(f"written: {args.output}")
    if lat is not None:
        files.save_figure(lat, args.latency_over_time)
        print(f"written: {args.latency_over_time}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
