"""dfs-vs-ior's runs on the GlusterFS bed: the workloads, each tool's run of one (every phase its
own launch, the nodes' page caches dropped before every read, the wire counted around it), the
pairs judged, and the table.

    runner = Runner(args, bed)                            # a folder of its own on the volume
    rows = measure_workload(runner, args, "16 MiB seq, N-to-N", False, "seq")
    print(table_text(rows, args, runner.ior_version), end="")
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from iosweep_tools.bench.harness import (
    RESAMPLES,
    SEED,
    SPREAD,
    fraction,
    median_or_nan,
    ratio_stats,
    verdict,
)
from iosweep_tools.dfsbed.base import netdev
from iosweep_tools.results import frames

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
    """Both tools' runs on one bed (dfsbed.bed.Bed): a folder of its own on the volume and a
    local one for iosweep's results and IOR's summaries, both new (made by mktemp, so nothing of
    anyone else's is in them) and removed by cleanup."""

    def __init__(self, args, bed):
        self.args = args
        self.bed = bed
        self.info = bed.info()
        self.nodes = sorted(self.info["nodes"])
        self.work = None  # made on the volume by start()
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
        return {n: netdev(self.info["nodes"][n]["client_pid"]) for n in self.nodes}

    def drop(self, folder):
        for n in self.nodes:
            self.on_node(n, [sys.executable, "-c", DROP, folder])

    def start(self):
        """The runs' folder on the volume: a new one (mktemp -d)."""
        out = self.on_node(self.nodes[0], ["mktemp", "-d", f"{self.bed.mount}/dfs-vs-ior.XXXXXXXX"])
        self.work = out.strip()

    def fresh(self, tool):
        """A new folder of the volume for one run of `tool`, inside the runs' folder."""
        self.count += 1
        d = f"{self.work}/{tool}.{self.count}"
        self.on_node(self.nodes[0], ["mkdir", d])
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
            if self.work:
                self.remove(self.work)
        except (Failed, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.local, ignore_errors=True)


def measure_workload(runner, a, wname, shared, kind):
    """The rows of one workload (one per phase): IOR, iosweep, IOR, ..., IOR (each iosweep run
    between two IOR runs), the medians, the ratio with its interval and verdict, and the wire
    fraction of each tool."""
    ior_runs = [runner.ior_run(shared, kind)]
    sweep_runs = []
    for _ in range(a.pairs):
        sweep_runs.append(runner.iosweep_run(shared, kind))
        ior_runs.append(runner.ior_run(shared, kind))
    rows = []
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
    return rows


def table_text(rows, a, ior_version):
    """The table (Markdown with --markdown) and the line saying how it was made."""
    lines = []
    if a.markdown:
        lines.append(
            "| workload | phase | unit | IOR | iosweep | ratio | 95% interval | verdict "
            "| IOR wire | iosweep wire |"
        )
        lines.append("| --- | --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: |")
        for r in rows:
            lines.append(
                f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.0f} | {r[4]:.0f} | {r[5]:.3f} | "
                f"{r[6]:.3f}-{r[7]:.3f} | {r[8]} | {fraction(r[9])} | {fraction(r[10])} |"
            )
    else:
        lines.append(
            f"{'workload':26} {'phase':10} {'unit':6} {'IOR':>9} {'iosweep':>9} {'ratio':>7} "
            f"{'95% interval':>13} {'verdict':8} {'IOR wire':>8} {'iosweep wire':>12}"
        )
        for r in rows:
            lines.append(
                f"{r[0]:26} {r[1]:10} {r[2]:6} {r[3]:9.0f} {r[4]:9.0f} {r[5]:7.3f} "
                f"{r[6]:6.3f}-{r[7]:.3f} {r[8]:8} {fraction(r[9]):>8} {fraction(r[10]):>12}"
            )
    lines.append(
        f"(IOR {ior_version}; {a.pairs} iosweep run(s) between {a.pairs + 1} IOR runs per "
        "workload; ratio = iosweep "
        f"/ IOR, median over both neighbours of every iosweep run, bootstrap 95% interval "
        f"({RESAMPLES} resamples, seed {SEED}), unstable beyond ±{SPREAD:.0%}; wire = bytes on "
        "the nodes' eth0 in the phase's direction / bytes the tool moved, median of its runs)"
    )
    return "".join(line + "\n" for line in lines)
