"""iosweep io500 against the io500 application: both run the same INI file, alternately, on
the same folder, several pairs; per phase and for the score the ratio iosweep / application of
the figures each printed, with a bootstrap 95% interval over the pairs, and a verdict.

    scripts/bench-vs-io500 --io500 PATH                          # a local disk (/var/tmp)
    scripts/bench-vs-io500 --io500 PATH --target tmpfs --pairs 5 # /dev/shm: the tools' own cost
    scripts/bench-vs-io500 --io500 PATH --bed --ranks 4          # the GlusterFS bed, 2 nodes

The io500 application is built outside this repository from its public sources (IO500/io500
with IOR 5fcf0ba and pfind; --io500, or $IOSWEEP_IO500). Each pair runs the application once and
`iosweep io500` once (odd pairs the application first, even pairs iosweep first), each as its
own launch of --ranks ranks (mpirun -np RANKS), each in a new folder of its own made in --dir
(on the bed: on its volume, the ranks round-robin over its 2 emulated nodes; the INI file and
the result folder in a folder of /tmp, which the nodes see) and removed after it, with the
same INI file: the application's shapes at sizes this machine affords (--stonewall seconds, 2
by default: a debug run, INVALID by the rules, as the shared fixture's; --easy-block,
--hard-segments, --md-items per rank), datadir in the run's folder (the application removes
it at its end), no timestamp folders.

What is measured: both tools' result_summary.txt as written (`[RESULT]` lines, the `[SCORE ]`
line), read by iosweep-compare's IO500 reader; nothing is recomputed. ratio = iosweep /
application per pair; the table gives both tools' median figures, the median ratio with its
interval (as bench-vs-fio) and the verdict: ok at --accept (0.95) or more, below under it,
unstable when the interval reaches beyond 10% of the median (then more --pairs are needed).
The application's figures of a phase are its tools' own (IOR's, mdtest's, pfind's); its
phase time includes starting them. Every argument is checked before anything is made (one
line naming it, status 2); every run is bounded; a tool that fails is reported in one line
(status 1); --save DIR keeps both tools' result folders of every pair.
"""
import os
import shutil
import tempfile

from iosweep_tools.bench.beds import add_target_options, bed_for, dfs_bed
from iosweep_tools.bench.harness import machine_text, ratio_stats, verdict
from iosweep_tools.bench.vs_mdtest import runs
from iosweep_tools.compare import io500
from iosweep_tools.core import children, cmdline, command, files, install, launch, units
from iosweep_tools.core.devices import fs_type
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown
from iosweep_tools.dfsbed.base import can_run

DEFAULT_DIR = {"local": "/var/tmp", "tmpfs": "/dev/shm"}
MEMORY_FS = {"tmpfs", "ramfs"}
PREFIX = "bench-vs-io500."  # the runs' folder in --dir or on the volume
NOTES_DIR = "/tmp"  # the INI files and result folders: seen by this machine and the bed's nodes
SCORES = ("BW", "MD", "TOTAL")

INI = """[global]
datadir = {data}/data
resultdir = {results}
timestamp-datadir = FALSE
timestamp-resultdir = FALSE
[debug]
stonewall-time = {stonewall}
[ior-easy]
blockSize = {easy_block}
[ior-hard]
segmentCount = {segments}
[mdtest-easy]
n = {items}
[mdtest-hard]
n = {items}
"""


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__, prog="bench-vs-io500")
    ap.add_argument(
        "--io500",
        metavar="PATH",
        default=os.environ.get("IOSWEEP_IO500"),
        help="the io500 application, built outside this repository (default: $IOSWEEP_IO500)",
    )
    ap.add_argument("--bin", metavar="PATH", default=install.find_binary(), help=cmdline.BIN_HELP)
    add_target_options(
        ap, "the bed to use (--target bed; default: iosweep-dfs when up, else one of its own)"
    )
    ap.add_argument(
        "--dir", metavar="DIR", help="where the pairs' folders are made (not with --target bed)"
    )
    ap.add_argument("--ranks", type=cmdline.count(1, 64), default=2, help="ranks of each launch")
    ap.add_argument("--pairs", type=cmdline.count(1, 100), default=3, help="pairs of runs")
    ap.add_argument(
        "--stonewall", type=cmdline.count(1, 3600), default=2, help="stonewall-time in seconds"
    )
    ap.add_argument("--easy-block", metavar="SIZE", default="64m", help="ior-easy blockSize")
    ap.add_argument(
        "--hard-segments",
        type=cmdline.count(1, 10**8),
        default=2000,
        help="ior-hard segmentCount",
    )
    ap.add_argument(
        "--md-items", type=cmdline.count(1, 10**7), default=3000, help="mdtest n per rank"
    )
    ap.add_argument(
        "--accept", type=cmdline.number(0.01, 10.0), default=0.95, help="ratio judged ok"
    )
    ap.add_argument("--csv", metavar="FILE", help="also write the table to this CSV file")
    ap.add_argument("--save", metavar="DIR", help="keep both tools' result folders here (new)")
    return ap.parse_args(argv)


def _checked(a):
    if not a.io500:
        raise Stop("--io500: give the io500 application (or set $IOSWEEP_IO500)")
    if not (os.path.isfile(a.io500) and os.access(a.io500, os.X_OK)):
        raise Stop(f"--io500: {shown(a.io500)} is not an executable")
    a.target = a.target or "local"
    if a.target == "bed":
        if a.dir:
            raise Stop("--dir: not with --target bed (the runs go to the bed's volume)")
        if a.ranks % 2:
            raise Stop(f"--ranks: {a.ranks} does not spread evenly over the bed's 2 nodes")
        a.bin = cmdline.binary("--bin", a.bin)
        units.sizes(a.bin, ("--easy-block", a.easy_block, {"multiple": 2 << 20}))
        _check_outputs(a)
        return a
    if a.name:
        raise Stop("--name: only with --target bed")
    a.dir = a.dir or DEFAULT_DIR[a.target]
    if not os.path.isdir(a.dir):
        raise Stop(f"--dir: {shown(a.dir)} is not a folder")
    kind = fs_type(a.dir)
    if (a.target == "tmpfs") != (kind in MEMORY_FS):
        want = "a tmpfs" if a.target == "tmpfs" else "a file system on a device (not tmpfs)"
        raise Stop(f"--dir: {shown(a.dir)} is on {kind}; --target {a.target} needs {want}")
    a.bin = cmdline.binary("--bin", a.bin)
    units.sizes(a.bin, ("--easy-block", a.easy_block, {"multiple": 2 << 20}))
    _check_outputs(a)
    return a


def _check_outputs(a):
    if a.csv:
        files.output_file("--csv", a.csv, suffixes={"csv"})
    if a.save and os.path.exists(a.save):
        raise Stop(f"--save: {shown(a.save)} exists; expected a new folder")


def _timeout(a):
    # 16 phases at most, the stonewalled ones at most twice their stonewall each, the rest
    # bounded by the sizes at the harness's floor rate (core.children.job_timeout).
    return children.job_timeout(0, 16 * 2 * a.stonewall, a.ranks) + 600


def _launch(a, place, argv, what):
    """One tool's job: mpirun of core.launch here, or on the bed's head over its nodes."""
    if isinstance(place, runs.OnBed):
        cmd = ["mpirun", "--bind-to", "none", "-np", str(a.ranks), "--hostfile"]
        cmd += [place.info["hostfile"], "--map-by", "node", "--oversubscribe"]
        env = place.bed.mpi_env()
        return children.job(place.bed.head_cmd(cmd + argv), _timeout(a), what, env, "mpirun")
    cmd, env = launch.mpirun(a.ranks)
    return children.job(cmd + argv, _timeout(a), what, env=env)


def _one(a, place, tool, notes):
    """One tool's run of the INI file: its data in a new folder of `place`, its INI file and
    result folder in `notes` (a folder of this machine the nodes see); its parsed
    result_summary.txt."""
    data = place.fresh(tool)
    results = os.path.join(notes, f"{tool}.results")
    ini = os.path.join(notes, f"{tool}.ini")
    with open(ini, "w") as f:
        f.write(
            INI.format(
                data=data,
                results=results,
                stonewall=a.stonewall,
                easy_block=a.easy_block,
                segments=a.hard_segments,
                items=a.md_items,
            )
        )
    if tool == "io500":
        argv = [a.io500, ini]
    else:
        argv = [a.bin, "io500", ini, "--output", os.path.join(notes, "r.h5"), "--quiet"]
    try:
        _launch(a, place, argv, f"{tool} in {data}")
        return io500.parse(results)
    finally:
        place.remove(data, tool)


def _pair(a, place, k):
    """Both tools once, the order alternating; {tool: parsed summary}."""
    out = {}
    for tool in ("io500", "iosweep") if k % 2 else ("iosweep", "io500"):
        notes = tempfile.mkdtemp(prefix=f"vs-io500.{tool}.", dir=NOTES_DIR)
        try:
            out[tool] = _one(a, place, tool, notes)
            if a.save:
                shutil.copytree(
                    os.path.join(notes, f"{tool}.results"), os.path.join(a.save, f"{tool}.{k}")
                )
        finally:
            shutil.rmtree(notes, ignore_errors=True)
    return out


def _figures(summary):
    """{name: figure} of the phases and the three scores."""
    figs = {n: p[0] for n, p in summary["phases"].items()}
    if summary["score"]:
        figs.update(zip(SCORES, summary["score"][:3]))
    return figs


def _rows(a, pairs):
    names = [n for n in pairs[0]["io500"]["phases"] if n != "timestamp"] + list(SCORES)
    rows = []
    for name in names:
        app = [_figures(p["io500"]).get(name) for p in pairs]
        ours = [_figures(p["iosweep"]).get(name) for p in pairs]
        ratios = [o / x for o, x in zip(ours, app) if o is not None and x and x > 0]
        if not ratios:
            rows.append((name, app, ours, None))
            continue
        med, low, high = ratio_stats(ratios)
        rows.append((name, app, ours, (med, low, high, verdict(med, low, high, a.accept))))
    return rows


def _median(values):
    v = sorted(x for x in values if x is not None)
    return v[len(v) // 2] if v else float("nan")


def _text(a, rows, place):
    out = [
        f"bench-vs-io500: {a.pairs} pair(s), {a.ranks} rank(s), --target {a.target} in"
        f" {place.work}",
        f"machine: {machine_text()}",
        f"stonewall {a.stonewall} s, ior-easy blockSize {a.easy_block}, ior-hard segmentCount"
        f" {a.hard_segments}, mdtest n {a.md_items} per rank",
        "",
        f"{'phase':<22} {'io500':>12} {'iosweep':>12} {'ratio':>7} {'95% interval':>16}  verdict",
    ]
    for name, app, ours, stats in rows:
        if name == "BW":
            out.append("")
        if stats is None:
            out.append(f"{name:<22} {_median(app):>12.4f} {_median(ours):>12.4f} {'-':>7}")
            continue
        med, low, high, v = stats
        out.append(
            f"{name:<22} {_median(app):>12.4f} {_median(ours):>12.4f} {med:>7.3f}"
            f" {f'[{low:.3f}, {high:.3f}]':>16}  {v}"
        )
    out.append("figures: GiB/s (ior phases, BW), kIOPS (mdtest, find, MD); medians over the pairs")
    return "\n".join(out) + "\n"


def _csv(rows):
    lines = ["phase,io500_median,iosweep_median,ratio,low,high,verdict"]
    for name, app, ours, stats in rows:
        med, low, high, v = stats if stats else ("", "", "", "")
        lines.append(f"{name},{_median(app)},{_median(ours)},{med},{low},{high},{v}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    return command.guard(_main, argv)


def _main(argv):
    a = _checked(parse_args(argv))
    if a.target != "bed":
        return _measure(a, runs.Local(a, PREFIX))
    why = can_run()
    if why:
        raise Stop(f"--target bed: no GlusterFS bed here: {why}", 1)
    bed, own = bed_for(a.name, "vs-io500", a.ranks // 2)
    try:
        return _measure(a, runs.OnBed(a, bed, PREFIX))
    finally:
        if own:
            dfs_bed("--name", own, "down")


def _measure(a, place):
    if a.save:
        os.makedirs(a.save)
    place.start()
    try:
        pairs = [_pair(a, place, k) for k in range(1, a.pairs + 1)]
    finally:
        place.finish()
    rows = _rows(a, pairs)
    print(_text(a, rows, place), end="")
    if a.csv:
        files.write_output("--csv", a.csv, _csv(rows))
        print(f"written: {a.csv}")
    return 0
