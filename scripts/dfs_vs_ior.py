"""iosweep and IOR side by side on the GlusterFS bed: same volume, layout and sizes, alternately.

    scripts/dfs-vs-ior --ior /path/to/ior --pairs 5 --size 64m
    scripts/dfs-vs-ior --ior /path/to/ior --pairs 1 --size 16m --only seq   # a smoke run

Both tools run 4 ranks (--ranks) over the bed's 2 emulated nodes (scripts/dfs-bed: each node its
own GlusterFS client, page cache and eth0), placed in blocks (--map-by slot: ranks 0,1 on node1,
2,3 on node2, which IOR's -C needs to read another node's file), on the same volume, for four
workloads: 16 MiB sequential and 4 KiB random, each N-to-N (IOR -F; iosweep's default) and on one
shared file (IOR without -F, one segment; iosweep --file-layout shared, segmented). Every phase
is its own launch of its tool, so the node counters read around it belong to that phase alone:

    phase       iosweep                                   IOR
    seq-write   --phases seq-write --keep                 -w -k -t 16m
    seq-read    --phases seq-read --reuse RUN             -r -k -C -t 16m
                --read-shift auto
    (prepare)   seq-write --keep, not measured            -w -k -t 16m, not measured
    rand-write  --phases rand-write --reuse RUN           -w -k -E -z -t 4k
    rand-read   --phases rand-read --reuse RUN            -r -k -C -z -t 4k
                --read-shift auto

with the same file size per rank (-b = --file-size = --size), fsync at the end of every writing
phase inside its timing (IOR -e, iosweep --fsync; off with --no-fsync), O_DIRECT or not (--direct:
IOR --posix.odirect, iosweep --direct), random phases touching every record of the file once in a
shuffled order (IOR -z, iosweep's rand phases), and reads served by another node than the
writer's (IOR -C, iosweep --read-shift auto; IOR refuses -C with -z on one shared file, so
there both read their own region). Before every reading phase of either tool the
script drops the files' pages on both nodes (fsync + posix_fadvise(DONTNEED), which this FUSE
client honours), as iosweep's --cache drop does: a node that read the file in an earlier phase
must not serve it from its page cache.

Runs alternate IOR, iosweep, IOR, ..., IOR (--pairs iosweep runs, each between two IOR runs);
each iosweep phase is set against the IOR run before and after it, and the table gives per
phase the median of these ratios iosweep / IOR with a bootstrap 95% interval (as
scripts/bench-vs-fio), in MiB/s (2^20 bytes/s) for sequential phases and IOPS for random ones.
The wire columns: bytes that crossed the nodes' eth0 in the phase's direction (rx for reads, tx
for writes, /proc/PID/net/dev of each node's client, summed over nodes) / bytes the tool moved,
median over its runs; about 1.00 means the data went to or came from the servers, about 0 that a
cache answered. Both figures count MPI's own traffic between the nodes too (barriers, IOR's
collectives), a few kilobytes per phase.

The bed: an existing one with --name, or (by default, when bed iosweep-dfs is not up) one of its
own, brought up with 2 nodes and taken down at the end. Emulated nodes share 2 cores, one
kernel and the bricks' file system: the figures say whether the two tools measure the same
thing, not what a cluster would do.
"""
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from iosweep_tools.core import cmdline, command, units
from iosweep_tools.results import frames
from iosweep_tools.core.errors import Stop
from iosweep_tools.dfsbed import base as dfs_bed
from iosweep_tools.dfsbed.bed import Bed
from bench_vs_fio import RESAMPLES, SEED, SPREAD, machine_text, ratio_stats, verdict

HERE = Path(__file__).resolve().parent
SEQ_RECORD = "16m"
RAND_RECORD = "4k"
TIMEOUT = 900  # seconds per launch

# name, shared file or not, kind
WORKLOADS = [
    ("16 MiB seq, N-to-N", False, "seq"),
    ("16 MiB seq, shared file", True, "seq"),
    ("4 KiB random, N-to-N", False, "rand"),
    ("4 KiB random, shared file", True, "rand"),
]
PHASES = {"seq": ["seq-write", "seq-read"], "rand": ["rand-write", "rand-read"]}

DROP = """
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
"""


class Failed(Exception):
    """A launch that failed: str() is one line."""


class Runner:
    def __init__(self, args, bed):
        self.args = args
        self.bed = bed
        self.info = bed.info()
        self.nodes = sorted(self.info["nodes"])
        self.work = f"{bed.mount}/dfs-vs-ior.{os.getpid()}"
        self.local = Path(tempfile.mkdtemp(prefix="dfs-vs-ior.", dir="/tmp"))
        self.out = self.local / "iosweep.h5"
        self.count = 0

    # ---------------------------------------------------------------- the bed's nodes

    def on_node(self, node, argv):
        p = subprocess.run(
            self.bed.node_cmd(node, argv), capture_output=True, text=True, timeout=TIMEOUT
        )
        if p.returncode != 0:
            raise Failed(f"on {node}: {' '.join(argv[:3])}: {p.stderr.strip()[:300]}")
        return p.stdout

    def wire(self):
        return {n: dfs_bed.netdev(self.info["nodes"][n]["client_pid"]) for n in self.nodes}

    def drop(self, folder):
        for n in self.nodes:
            self.on_node(n, [sys.executable, "-c", DROP, folder])

    def fresh(self, tool):
        """An empty folder of the volume for one run of `tool`."""
        self.count += 1
        d = f"{self.work}/{tool}.{self.count}"
        self.on_node(self.nodes[0], ["mkdir", "-p", d])
        return d

    def remove(self, folder):
        self.on_node(self.nodes[0], ["rm", "-rf", folder])

    def mpirun(self, argv):
        cmd = ["mpirun", "-np", str(self.args.ranks), "--hostfile", self.info["hostfile"]]
        cmd += ["--map-by", "slot", "--bind-to", "none", "--oversubscribe"] + argv
        p = subprocess.run(
            self.bed.head_cmd(cmd),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=self.bed.mpi_env(),
        )
        if p.returncode != 0:
            said = " ".join((p.stderr.strip() or p.stdout.strip()).split())
            raise Failed(f"{os.path.basename(argv[0])} failed (exit {p.returncode}): {said[:400]}")
        return p

    def measured(self, phase, launch):
        """Runs one launch; returns (its result, wire bytes in the phase's direction)."""
        before = self.wire()
        result = launch()
        after = self.wire()
        k = 0 if phase.endswith("read") else 1
        return result, sum(after[n][k] - before[n][k] for n in self.nodes)

    # ------------------------------------------------------------------------- iosweep

    def iosweep(self, folder, phase, reuse, shared, label):
        a = self.args
        argv = [a.bin, "run", "--dir", folder, "--file-size", a.size, "--ranks", str(a.ranks)]
        argv += ["--phases", phase, "--output", self.out, "--quiet", "--label", label]
        argv += ["--seq-record", SEQ_RECORD, "--rand-record", RAND_RECORD]
        if shared:
            argv += ["--file-layout", "shared"]
        if a.direct:
            argv.append("--direct")
        if phase.endswith("write") and a.fsync:
            argv += ["--fsync", phase]
        if reuse:
            argv += ["--reuse", reuse]
        else:
            argv.append("--keep")
        if phase.endswith("read") and not (shared and phase.startswith("rand")):
            argv += ["--read-shift", "auto"]  # (IOR has no shift for random reads of one file)
        self.mpirun([str(x) for x in argv])
        runs, summary = frames.load(str(self.out))
        run_id = runs.iloc[-1]["run_id"]
        row = summary[summary["run_id"] == run_id].iloc[-1]
        value = row["iops"] if phase.startswith("rand") else row["bandwidth_Bps"] / 2**20
        return run_id, float(value), int(row["bytes"])

    def iosweep_run(self, shared, kind):
        folder = self.fresh("iosweep")
        out = {}
        try:
            run_id, v, b = None, None, None
            for phase in PHASES[kind]:
                if phase == "rand-write":  # the files it rewrites, laid out unmeasured
                    run_id, _, _ = self.iosweep(folder, "seq-write", None, shared, "prepare")
                if phase.endswith("read"):
                    self.drop(folder)
                (rid, v, b), wire = self.measured(
                    phase, lambda: self.iosweep(folder, phase, run_id, shared, f"vs-ior {phase}")
                )
                run_id = run_id or rid
                out[phase] = (v, wire / b if b else float("nan"))
        finally:
            self.remove(folder)
        return out

    # ----------------------------------------------------------------------------- IOR

    def ior(self, folder, phase, record, shared):
        a = self.args
        summary = self.local / f"ior.{self.count}.{phase}.json"
        argv = [a.ior, "-a", "POSIX", "-t", record, "-b", a.size, "-s", "1", "-k"]
        argv += ["-o", f"{folder}/ior.dat", "-O", f"summaryFile={summary}"]
        argv += ["-O", "summaryFormat=JSON"]
        if not shared:
            argv.append("-F")
        if a.direct:
            argv.append("--posix.odirect")
        if phase.endswith("write"):
            argv.append("-w")
            if a.fsync:
                argv.append("-e")
            if phase == "rand-write":
                argv.append("-E")  # rewrite the laid-out file, as iosweep's rand-write does
        elif shared and phase == "rand-read":
            argv.append("-r")  # IOR refuses -C with -z on one shared file
        else:
            argv += ["-r", "-C"]
        if phase.startswith("rand"):
            argv.append("-z")
        self.mpirun([str(x) for x in argv])
        try:
            doc = json.loads(summary.read_text())
            self.ior_version = doc.get("Version", "?")
            test = doc["tests"][0]
            res = test["Results"][0]
            p = test["Parameters"]
            moved = int(p["blockSize"]) * int(p["segmentCount"]) * a.ranks
            value = float(res["iops"] if phase.startswith("rand") else res["bwMiB"])
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            raise Failed(f"IOR's summary {summary} could not be read ({e})") from None
        return value, moved

    def ior_run(self, shared, kind):
        folder = self.fresh("ior")
        out = {}
        try:
            for phase in PHASES[kind]:
                if phase == "rand-write":
                    self.ior(folder, "seq-write", SEQ_RECORD, shared)  # laid out, unmeasured
                if phase.endswith("read"):
                    self.drop(folder)
                record = SEQ_RECORD if kind == "seq" else RAND_RECORD
                (v, b), wire = self.measured(phase, lambda: self.ior(folder, phase, record, shared))
                out[phase] = (v, wire / b if b else float("nan"))
        finally:
            self.remove(folder)
        return out

    def cleanup(self):
        try:
            self.remove(self.work)
        except (Failed, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.local, ignore_errors=True)


def median_or_nan(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def fraction(v):
    return "n/a" if math.isnan(v) else f"{v:.2f}"


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__, cls=cmdline.PlainParser, prog="dfs-vs-ior")
    ap.add_argument("--ior", required=True, help="the IOR binary (built outside this repository)")
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help="iosweep binary")
    ap.add_argument("--size", default="32m", help="file size per rank (-b), a multiple of 16m")
    ap.add_argument("--pairs", default="3", help="iosweep runs per workload (default 3)")
    ap.add_argument("--ranks", default="4", help="ranks, half on each node (default 4)")
    ap.add_argument("--direct", action="store_true", help="O_DIRECT in both tools")
    ap.add_argument(
        "--no-fsync", dest="fsync", action="store_false", help="no fsync at the end of writes"
    )
    ap.add_argument("--only", default="", help="comma-separated substrings selecting workloads")
    ap.add_argument("--name", help="an existing bed to use (default: iosweep-dfs, or a new one)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    a = ap.parse_args(argv)
    cmdline.whole_numbers(a, ("pairs", 1, 100), ("ranks", 2, 64))
    if a.ranks % 2:
        raise Stop(f"--ranks: must be even, half on each of the 2 nodes (found {a.ranks})")
    if not (os.path.isfile(a.ior) and os.access(a.ior, os.X_OK)):
        raise Stop(f"--ior: {a.ior} is not an executable")
    if not (os.path.isfile(a.bin) and os.access(a.bin, os.X_OK)):
        raise Stop(f"--bin: {a.bin} is not an executable (build iosweep first)")
    try:
        size, seq = units.units(a.bin, a.size, SEQ_RECORD)
    except units.UnitsError as e:
        raise Stop(f"--size: {e}" if e.status == 2 else f"--bin: {e}")
    if size < seq or size % seq:
        raise Stop(f"--size: must be a multiple of 16m, the sequential transfer (found {a.size})")
    if size > 1 << 30:
        raise Stop(f"--size: at most 1g per rank on the bed's bricks (found {a.size})")
    a.workloads = [w for w in WORKLOADS if not a.only or any(s in w[0] for s in a.only.split(","))]
    if not a.workloads:
        raise Stop(f"--only: '{a.only}' selects none of: {', '.join(w[0] for w in WORKLOADS)}")
    if a.name is not None and not dfs_bed.NAME_RE.fullmatch(a.name):
        raise Stop(f"--name: '{a.name}' is not a bed name")
    return a


def main(argv=None):
    """The command; its status (a Stop in one line, see core.command.plain)."""
    return command.plain(_main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    a = parse_args(argv)
    why = dfs_bed.can_run()
    if why:
        raise Stop(f"no GlusterFS bed here: {why}", 1)
    name = a.name or "iosweep-dfs"
    bed = Bed(name)
    own = None
    if not bed.state.get("phase") == "up":
        if a.name:
            raise Stop(f"--name: bed {a.name} is not up (scripts/dfs-bed --name {a.name} up)", 1)
        own = f"dfs-vs-ior-{os.getpid()}"
        up = subprocess.run(
            [str(HERE / "dfs-bed"), "--name", own, "up", "--nodes", "2", "--slots",
             str(a.ranks // 2), "--brick-size", "4g"],
            capture_output=True, text=True,
        )  # fmt: skip
        if up.returncode != 0:
            raise Stop(f"could not bring a bed up: {up.stderr.strip()}", 1)
        bed = Bed(own)
    slots = {ln.split()[1] for ln in Path(bed.hostfile).read_text().splitlines() if ln.strip()}
    if slots != {f"slots={a.ranks // 2}"}:
        if own:
            subprocess.run([str(HERE / "dfs-bed"), "--name", own, "down"], capture_output=True)
        raise Stop(
            f"--ranks: bed {bed.name}'s host file {bed.hostfile} has {', '.join(sorted(slots))} "
            f"per node; IOR's -C needs {a.ranks // 2} per node (ranks in blocks, half per node)"
        )
    runner = None
    rows = []
    try:
        runner = Runner(a, bed)
        info = runner.info
        print(f"machine: {machine_text()}; load average {os.getloadavg()[0]:.2f}")
        print(f"date:    {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}")
        print(
            f"bed:     {info['name']}: volume of {len(info['bricks'])} brick(s), nodes "
            f"{', '.join(runner.nodes)}; options {', '.join(info['options'])}"
        )
        print(
            f"runs:    {a.ranks} ranks, {a.size} per rank, fsync {'on' if a.fsync else 'off'}, "
            f"O_DIRECT {'on' if a.direct else 'off'}; IOR {a.ior}",
            flush=True,
        )
        for wname, shared, kind in a.workloads:
            ior_runs = [runner.ior_run(shared, kind)]
            sweep_runs = []
            for _ in range(a.pairs):
                sweep_runs.append(runner.iosweep_run(shared, kind))
                ior_runs.append(runner.ior_run(shared, kind))
            for phase in PHASES[kind]:
                iv = [r[phase][0] for r in ior_runs]
                sv = [r[phase][0] for r in sweep_runs]
                ratios = []
                for k, s in enumerate(sv):
                    ratios += [s / iv[k], s / iv[k + 1]]
                med, low, high = ratio_stats(ratios)
                rows.append(
                    (
                        wname,
                        phase,
                        "IOPS" if kind == "rand" else "MiB/s",
                        statistics.median(iv),
                        statistics.median(sv),
                        med,
                        low,
                        high,
                        verdict(med, low, high, target=0.97),
                        median_or_nan([r[phase][1] for r in ior_runs]),
                        median_or_nan([r[phase][1] for r in sweep_runs]),
                    )
                )
            print(f"  done: {wname}", file=sys.stderr, flush=True)
    except (Failed, subprocess.TimeoutExpired, dfs_bed.Fail) as e:
        raise Stop(str(e).splitlines()[0] if str(e) else type(e).__name__, 1)
    finally:
        if runner is not None:
            runner.cleanup()
        if own:
            subprocess.run([str(HERE / "dfs-bed"), "--name", own, "down"], capture_output=True)
    print_table(rows, a, getattr(runner, "ior_version", "?"))
    return 0


def print_table(rows, a, ior_version):
    if a.markdown:
        print(
            "| workload | phase | unit | IOR | iosweep | ratio | 95% interval | verdict "
            "| IOR wire | iosweep wire |"
        )
        print("| --- | --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: |")
        for r in rows:
            print(
                f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.0f} | {r[4]:.0f} | {r[5]:.3f} | "
                f"{r[6]:.3f}-{r[7]:.3f} | {r[8]} | {fraction(r[9])} | {fraction(r[10])} |"
            )
    else:
        print(
            f"{'workload':26} {'phase':10} {'unit':6} {'IOR':>9} {'iosweep':>9} {'ratio':>7} "
            f"{'95% interval':>13} {'verdict':8} {'IOR wire':>8} {'iosweep wire':>12}"
        )
        for r in rows:
            print(
                f"{r[0]:26} {r[1]:10} {r[2]:6} {r[3]:9.0f} {r[4]:9.0f} {r[5]:7.3f} "
                f"{r[6]:6.3f}-{r[7]:.3f} {r[8]:8} {fraction(r[9]):>8} {fraction(r[10]):>12}"
            )
    print(
        f"(IOR {ior_version}; {a.pairs} iosweep run(s) between {a.pairs + 1} IOR runs per "
        "workload; ratio = iosweep "
        f"/ IOR, median over both neighbours of every iosweep run, bootstrap 95% interval "
        f"({RESAMPLES} resamples, seed {SEED}), unstable beyond ±{SPREAD:.0%}; wire = bytes on "
        "the nodes' eth0 in the phase's direction / bytes the tool moved, median of its runs)"
    )


if __name__ == "__main__":
    sys.exit(main())
