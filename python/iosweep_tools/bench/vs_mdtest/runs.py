"""bench-vs-mdtest's runs: where they run (a folder of this machine, or the GlusterFS bed's
volume), each tool's command line for one shape, each run's figures read back (mdtest's SUMMARY
rates by compare.mdtest's parser, iosweep's rows from its results file) and the two set side by
side by compare.tools, which refuses a pair whose tools did not run the same shape.

    place = Local(args) or OnBed(args, bed)
    place.start()                                   # the runs' folder: new (mkdtemp, mktemp -d)
    pair = run_pair(place, args, k, outputs)        # mdtest and iosweep, the order alternating
    place.finish()                                  # the runs' folder removed

`args` are bench-vs-mdtest's checked arguments (bench.vs_mdtest.cli.parse_args).
"""
import errno
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field

from iosweep_tools.bench.harness import written_ids, written_run
from iosweep_tools.compare import tools
from iosweep_tools.compare.mdtest import parse_mdtest
from iosweep_tools.compare.record import ParseError
from iosweep_tools.core import children, launch
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.files import write_whole
from iosweep_tools.core.text import shown

PREFIX = "bench-vs-mdtest."  # the runs' folder: PREFIX + mkdtemp's or mktemp's letters
# The operations, as iosweep's phases and as this command names them.
OPERATIONS = {
    "md-mkdir": "mkdir",
    "md-create": "create",
    "md-stat": "stat",
    "md-read": "read",
    "md-remove": "remove",
    "md-rmdir": "rmdir",
}
MIN_MD_RATE = 50  # operations per second: any storage being measured is faster; see timeout()
NODE_TIMEOUT_S = 300  # a command on a node of the bed (mktemp, mkdir, rm -rf of a run's folder)
_VERSION = re.compile(r"^(mdtest-\S+) was launched", re.M)


def timeout(args):
    """Seconds after which a run of either tool is taken to hang: the floor of every job
    (core.children.job_timeout: its start, its bytes at 1 MiB/s) and the six phases' operations
    at MIN_MD_RATE."""
    items = args.items * args.ranks
    moved = items * (args.write_bytes + args.read_bytes)
    return children.job_timeout(moved, 0, args.ranks) + 6 * items / MIN_MD_RATE


# ----------------------------------------------------------------------------- places


class Local:
    """Runs on this machine: mpirun of core.launch (unbound, --oversubscribe), in a folder made
    by mkdtemp in --dir, every run in a new folder of its own inside it. A folder is removed
    only while it is the one made here (its device and inode): a tool that removed its folder,
    or put something else (a symbolic link, another folder) at its name, is a failure said in
    one line, and what is there is left as it is."""

    def __init__(self, args, prefix=PREFIX):
        self.args = args
        self.prefix = prefix
        self.work = None
        self.count = 0
        self.made = {}  # folder -> (device, inode) when made

    def start(self):
        self.work = tempfile.mkdtemp(prefix=self.prefix, dir=self.args.dir)
        self.made[self.work] = _identity(self.work)

    def fresh(self, tool):
        self.count += 1
        path = os.path.join(self.work, f"{tool}.{self.count}")
        os.mkdir(path)
        self.made[path] = _identity(path)
        return path

    def remove(self, folder, what):
        """Removes `folder` as made; Stop (status 1) naming `what` when it is not that folder."""
        why = _not_ours(folder, self.made.get(folder))
        if why:
            left = "" if why == GONE else f"; left as it is in {shown(self.work)}"
            raise Stop(f"{what}: its folder {shown(folder)} {why}{left}", 1)
        try:
            shutil.rmtree(folder)
        except OSError as e:
            raise Stop(f"{what}: removing {shown(folder)}: {_os_error(e)}", 1) from None

    def launch(self, argv, what):
        cmd, env = launch.mpirun(self.args.ranks)
        return children.job(cmd + argv, timeout(self.args), what, env=env)

    def finish(self):
        """The runs' folder removed: the folders made here (by identity, whatever their name
        now), then the folder itself when nothing else is left in it."""
        if not self.work or _not_ours(self.work, self.made.get(self.work)):
            return
        ours = set(self.made.values())
        for entry in os.scandir(self.work):
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) in ours:
                shutil.rmtree(entry.path, ignore_errors=True)
        try:
            os.rmdir(self.work)
        except OSError:
            pass  # what a run put there is left, and the line that stopped the command said so


GONE = "was removed while it ran"


def _os_error(e):
    """An OSError in words with its errno's name: "Permission denied (EACCES)"."""
    name = errno.errorcode.get(e.errno)
    return f"{e.strerror or e}" + (f" ({name})" if name else "")


def _identity(path):
    st = os.lstat(path)
    return st.st_dev, st.st_ino


def _not_ours(folder, made):
    """Why `folder` is not the folder made with identity `made` (gone, replaced), or ''."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return GONE
    except OSError as e:
        return f"cannot be looked at ({_os_error(e)})"
    if stat.S_ISLNK(st.st_mode):
        return f"was replaced while it ran by a symbolic link to {shown(os.readlink(folder))}"
    if not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) != made:
        return "was replaced while it ran by something this command did not make"
    return ""


class OnBed:
    """Runs on a GlusterFS bed (dfsbed.bed.Bed): mpirun in the head's namespace with the bed's
    host file, ranks round-robin over its nodes (--map-by node), in a folder made by mktemp -d
    on the volume from the first node, every run in a new folder of its own inside it."""

    def __init__(self, args, bed, prefix=PREFIX):
        self.args = args
        self.bed = bed
        self.prefix = prefix
        self.info = bed.info()
        self.nodes = sorted(self.info["nodes"])
        self.work = None
        self.count = 0

    def on_node(self, argv, what):
        cmd = self.bed.node_cmd(self.nodes[0], argv)
        return children.job(cmd, NODE_TIMEOUT_S, what, name=argv[0])

    def start(self):
        made = self.on_node(
            ["mktemp", "-d", f"{self.bed.mount}/{self.prefix}XXXXXXXX"],
            "the runs' folder on the volume",
        )
        self.work = made.stdout.strip()

    def fresh(self, tool):
        self.count += 1
        path = f"{self.work}/{tool}.{self.count}"
        self.on_node(["mkdir", path], f"a folder for {tool} on the volume")
        return path

    def remove(self, folder, what=None):
        self.on_node(["rm", "-rf", "--one-file-system", folder], f"removing {folder}")

    def launch(self, argv, what):
        cmd = ["mpirun", "--bind-to", "none", "-np", str(self.args.ranks), "--hostfile"]
        cmd += [self.info["hostfile"], "--map-by", "node", "--oversubscribe"]
        env = self.bed.mpi_env()
        return children.job(self.bed.head_cmd(cmd + argv), timeout(self.args), what, env, "mpirun")

    def finish(self):
        if self.work:
            try:
                self.remove(self.work)
            except Stop:
                pass


# ----------------------------------------------------------------------- command lines


def mdtest_argv(args, folder):
    """mdtest of the shape: files only (-F) in the leaves (-L) of a tree of depth -z and branch
    -b, -n items per task (or -I per leaf folder), -w bytes written and -e read per file, -y,
    a tree per task (-u) or one shared, one iteration; on the bed -N 1 (stat, read and remove
    touch other tasks' files: mdtest's readers on another node)."""
    argv = [args.mdtest]
    argv += ["-I", args.per_folder] if args.per_folder else ["-n", args.items]
    argv += ["-F", "-L", "-z", args.depth, "-b", args.branch, "-i", "1"]
    argv += ["-w", args.write_bytes, "-e", args.read_bytes]
    if args.layout == "private":
        argv.append("-u")
    if args.fsync:
        argv.append("-y")
    if args.target == "bed":
        argv += ["-N", "1"]
    return [str(a) for a in argv + ["-d", folder]]


def iosweep_argv(args, folder, out, label):
    """iosweep's metadata phases (--phases md) at one point of every rank, of the same shape as
    mdtest_argv, on the posix engine (the system calls mdtest makes), the caches kept (mdtest
    never drops them)."""
    argv = [args.bin, "run", "--dir", folder, "--phases", "md", "--ranks", args.ranks]
    argv += ["--engine", "posix", "--cache", "keep", "--md-items", args.items]
    argv += ["--md-items-per-folder", args.per_folder or 0, "--md-depth", args.depth]
    argv += ["--md-branch", args.branch, "--md-files", "leaf", "--md-layout", args.layout]
    argv += ["--md-write-bytes", args.write_bytes, "--md-read-bytes", args.read_bytes]
    if args.fsync:
        argv.append("--md-fsync")
    argv += ["--output", out, "--quiet", "--label", label]
    return [str(a) for a in argv]


# ------------------------------------------------------------------------------- runs


@dataclass
class Pair:
    """One pair: its number (from 1), the tools in the order they ran, each operation both ran
    {operation: (iosweep's rate, mdtest's rate, the iosweep figure set against mdtest's)}, the
    mdtest output it read and iosweep's run id."""

    k: int
    order: tuple
    rates: dict = field(default_factory=dict)
    mdtest_file: str = ""
    run_id: str = ""
    mdtest_version: str = "?"


def run_mdtest(place, args, k, outputs):
    """One mdtest run in a new folder (removed after): its output saved as mdtest.K.txt in
    `outputs`, (its path, its Results, mdtest's version)."""
    folder = place.fresh("mdtest")
    try:
        p = place.launch(mdtest_argv(args, folder), f"mdtest of pair {k}")
    finally:
        place.remove(folder, f"mdtest of pair {k}")
    path = os.path.join(outputs, f"mdtest.{k}.txt")
    write_whole(path, p.stdout)
    try:
        results = parse_mdtest(path, p.stdout)
    except ParseError as e:
        raise Stop(f"mdtest of pair {k}: its output cannot be read: {e}", 1) from None
    m = _VERSION.search(p.stdout)
    return path, results, m.group(1) if m else "mdtest ?"


def run_iosweep(place, args, k, out):
    """One iosweep run in a new folder (removed after), appended to `out`: its run (read and
    checked, results.reader)."""
    before = set(written_ids(out)) if os.path.exists(out) else set()
    folder = place.fresh("iosweep")
    try:
        place.launch(
            iosweep_argv(args, folder, out, f"bench-vs-mdtest pair {k}"), f"iosweep of pair {k}"
        )
    finally:
        place.remove(folder, f"iosweep of pair {k}")
    run_id = written_ids(out)[-1]
    if run_id in before:
        raise Stop(f"iosweep of pair {k} appended no run to {out}", 1)
    return written_run(out, run_id, what=f"iosweep of pair {k}")


def matched(run, results, k):
    """{operation: (iosweep's rate, mdtest's rate, figure)} of the operations both ran, each
    iosweep figure of mdtest's definition (compare.tools: every rank's operations over the
    slowest rank's window; mkdir and rmdir one tree's folders, as mdtest counts them). Stop
    when the tools did not run the same shape (compare.tools.differences: items per task,
    bytes, fsync, layout, tree, caches) or share no operation."""
    phases = {name: v for v, name in run.phase_names.items()}
    table, _ = tools.compare(run.frame(), run.attrs, results, phases)
    out = {}
    for row in table:
        if row["source"] is None or row["phase"] not in OPERATIONS:
            continue
        if row["match"] is None:
            continue  # iosweep has no row of this operation and task count
        if row["match"] != "=":
            raise Stop(
                f"pair {k}: {OPERATIONS[row['phase']]}: the tools did not run the same shape:"
                f" they differ in {row['match'].removeprefix('≠ ')} (iosweep run {run.id} of"
                f" {run.path}, {row['source_files']}; --save DIR keeps both)",
                1,
            )
        mine = row[f"iosweep_{row['compared_with']}"]
        out[OPERATIONS[row["phase"]]] = (mine, row["source_value"], row["compared_with"])
    if not out:
        raise Stop(f"pair {k}: mdtest and iosweep ran no operation at the same task count", 1)
    return out


def run_pair(place, args, k, outputs, out):
    """Pair `k` (from 1): mdtest then iosweep when k is odd, iosweep then mdtest when it is
    even, each in a new folder; the Pair."""
    order = ("mdtest", "iosweep") if k % 2 else ("iosweep", "mdtest")
    pair = Pair(k, order)
    run = results = None
    for tool in order:
        if tool == "mdtest":
            pair.mdtest_file, results, pair.mdtest_version = run_mdtest(place, args, k, outputs)
        else:
            run = run_iosweep(place, args, k, out)
    pair.run_id = run.id
    pair.rates = matched(run, results, k)
    return pair
