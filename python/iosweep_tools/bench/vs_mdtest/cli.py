"""iosweep against mdtest: both tools' metadata phases, alternately, on the same folder and the
same shape, with per operation both tools' rates, the ratio iosweep / mdtest with a bootstrap
95% interval, and a verdict.

    scripts/bench-vs-mdtest --mdtest PATH                        # a local disk (/var/tmp)
    scripts/bench-vs-mdtest --mdtest PATH --target tmpfs         # /dev/shm: the tools' own cost
    scripts/bench-vs-mdtest --mdtest PATH --bed --pairs 5        # the GlusterFS bed, 2 nodes

mdtest is built from IOR's repository outside this one (--mdtest, or $IOSWEEP_MDTEST). Each pair
runs mdtest once and iosweep once (odd pairs mdtest first, even pairs iosweep first), each as
its own launch of --ranks ranks (mpirun -np RANKS), each in a new folder of its own, with the
same shape:

    mdtest                           iosweep run --phases md --ranks RANKS
    -n ITEMS (-I PER_FOLDER)         --md-items ITEMS (--md-items-per-folder PER_FOLDER)
    -F -L -z DEPTH -b BRANCH         --md-files leaf --md-depth DEPTH --md-branch BRANCH
    -w BYTES -e BYTES (-y)           --md-write-bytes BYTES --md-read-bytes BYTES (--md-fsync)
    -u, or not (--layout shared)     --md-layout private, or shared
    -i 1, the system calls           --engine posix
    never drops a cache              --cache keep
    -N 1 on the bed                  (on the bed: stat and read another node's items)

What is measured: per operation both ran (mkdir, create, stat, read, remove, rmdir), each tool's
rate in ops/s, every rank's operations over the slowest rank's window: mdtest's SUMMARY mean
rate as iosweep-compare's parser reads it, and iosweep's iops from its results file; for mkdir
and rmdir one tree's folders over that window, as mdtest counts them even when every task made a
tree of its own (iosweep's iops / trees). Before any ratio, iosweep-compare's matching checks
that both tools ran the same tasks, items per task, bytes written and read, fsync, layout, tree
and caches; a pair that did not is a failure. ratio = iosweep / mdtest of each pair; the table
gives both tools' mean rates, the median ratio over the pairs with a bootstrap 95% interval (as
bench-vs-fio), and the verdict: ok at --accept (0.95) or more, below under it, unstable when
the interval reaches beyond 10% of the median (then more --pairs are needed).

Targets. local (the default): a folder on a local file system (--dir, default /var/tmp; not a
tmpfs). tmpfs: a folder on tmpfs or ramfs (--dir, default /dev/shm), where no device answers
and only the tools' own cost and the kernel's shows; the table adds each tool's microseconds
per operation per rank (ranks / rate; 1 / rate for mkdir and rmdir), iosweep's to be at most
mdtest's. bed (--bed, or --target bed): the GlusterFS volume of scripts/dfs-bed, the bed --name
names, else iosweep-dfs when it is up, else one of this command's own, brought up with 2 nodes
and taken down at the end; the ranks (--ranks, even) go round-robin over its 2 emulated nodes.

Caches. mdtest never drops the kernel's caches, so iosweep runs with --cache keep: its default,
--cache drop, drops every node's dentry, inode and page caches before md-stat and md-read, which
is another measurement. On a local disk both tools' stat and read may be answered by the caches:
the figures compare the tools, not the disk.

Readers on the bed (ranks round-robin: mpirun --map-by node). iosweep's md-stat and md-read
touch the items of the next rank, on the other node, whenever a point spans nodes, and md-remove
removes the rank's own. mdtest's -N 1 moves each phase one rank further than the phase before:
stat touches the files of the next rank (the other node), read those of the rank two on (with 2
nodes, a rank of its own node) and remove those of the rank three on (the other node). The stat
rows compare the same placement; the read and remove rows do not quite.

Every argument is checked before anything is made (one line naming it, status 2): --mdtest
given and executable, numbers within the bounds --help gives, --items a multiple of the leaf
folders (BRANCH^DEPTH: mdtest would drop the rest), sizes by iosweep's own parser with
--read-bytes at most --write-bytes, --dir on the file system its target measures, --csv and
--save writable (--save a new folder). The runs' folder (a new one, made by mkdtemp in --dir or
by mktemp -d on the bed's volume) is removed at the end, and nothing else is touched: a tool
that removed its own folder, or put something else at its name, stops the command in one line
(status 1), and what it put there is left. Every run
is bounded (300 s plus its operations at 50 per second); a tool that fails or hangs is reported
in one line with what mpirun printed, status 1. --save DIR keeps every mdtest output
(mdtest.K.txt), iosweep's results file (iosweep.h5) and every run's rate (runs.csv); on the bed
it must be a folder the nodes see (the emulated nodes see the host's file systems mounted
before the bed came up, /tmp among them).
"""
import datetime
import os
import shutil
import sys
import tempfile

from iosweep_tools.bench.beds import add_target_options, bed_for, dfs_bed
from iosweep_tools.bench.harness import machine_text
from iosweep_tools.bench.vs_mdtest import runs, table
from iosweep_tools.core import cmdline, command, files, install, units
from iosweep_tools.core.devices import block_device, fs_type
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown, size_text
from iosweep_tools.dfsbed.base import NAME_RE, can_run

DEFAULT_DIR = {"local": "/var/tmp", "tmpfs": "/dev/shm"}
DEFAULT_RANKS = {"local": 2, "tmpfs": 2, "bed": 4}
MEMORY_FS = {"tmpfs", "ramfs"}
DEFAULT_ITEMS = 5000  # per rank
MAX_ITEMS = 10**8  # per rank
MAX_LEAVES = 1 << 20  # leaf folders of a tree: BRANCH^DEPTH
MAX_ITEM_BYTES = 1 << 30  # iosweep's --md-write-bytes and --md-read-bytes take at most 1 GiB
MAX_PAIRS = 100
MAX_RANKS = 64


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__, prog="bench-vs-mdtest")
    ap.add_argument(
        "--mdtest",
        metavar="PATH",
        default=os.environ.get("IOSWEEP_MDTEST"),
        help="the mdtest binary, built from IOR's repository outside this one"
        " (default: $IOSWEEP_MDTEST)",
    )
    ap.add_argument("--bin", metavar="PATH", default=install.find_binary(), help=cmdline.BIN_HELP)
    add_target_options(ap, "the bed to use (--target bed)")
    ap.add_argument(
        "--dir",
        metavar="DIR",
        help="an existing folder where a folder of this command's own is made and removed"
        " (default /var/tmp; /dev/shm for --target tmpfs; the volume on the bed)",
    )
    ap.add_argument(
        "--pairs",
        metavar="N",
        type=cmdline.count(1, MAX_PAIRS),
        default=3,
        help=f"pairs of runs, 1 to {MAX_PAIRS} (default 3)",
    )
    ap.add_argument(
        "--ranks",
        metavar="N",
        type=cmdline.count(1, MAX_RANKS),
        help=f"ranks of every run, 1 to {MAX_RANKS} (default 2; 4 on the bed, an even count)",
    )
    _shape_arguments(ap)
    ap.add_argument(
        "--accept",
        metavar="RATIO",
        type=cmdline.number(0, 10, above=True),
        default=0.95,
        help="the ratio iosweep / mdtest an operation must reach for 'ok' (default 0.95)",
    )
    ap.add_argument("--csv", metavar="OUT", help="also write the table to this CSV file")
    ap.add_argument("--save", metavar="DIR", help="a new folder to keep the runs' outputs in")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    return _checked(ap.parse_args(argv))


def _shape_arguments(ap):
    """The arguments of the shape both tools run (mdtest's letters in their help)."""
    ap.add_argument(
        "--items",
        metavar="N",
        type=cmdline.count(1, MAX_ITEMS),
        help=f"files per rank, mdtest -n (default {DEFAULT_ITEMS}; a multiple of the leaf folders)",
    )
    ap.add_argument(
        "--items-per-folder",
        metavar="N",
        type=cmdline.count(1, MAX_ITEMS),
        help="files per leaf folder, mdtest -I, instead of --items (files per rank: this x"
        " BRANCH^DEPTH)",
    )
    ap.add_argument(
        "--depth",
        metavar="N",
        type=cmdline.count(0, 8),
        default=0,
        help="levels of folders below the top of each tree, -z (0 to 8; default 0)",
    )
    ap.add_argument(
        "--branch",
        metavar="N",
        type=cmdline.count(1, 1024),
        default=1,
        help="children per folder, -b (1 to 1024; default 1)",
    )
    ap.add_argument(
        "--write-bytes",
        metavar="SIZE",
        default="0",
        help="bytes written into each file, -w (default 0)",
    )
    ap.add_argument(
        "--read-bytes",
        metavar="SIZE",
        default="0",
        help="bytes read from each file, -e (default 0)",
    )
    ap.add_argument("--fsync", action="store_true", help="fsync each file after its write, -y")
    ap.add_argument(
        "--layout",
        choices=("private", "shared"),
        default="private",
        help="private: a tree per rank (-u; default); shared: one tree for all ranks",
    )


def _checked(a):
    """Every argument checked and made what the runs take (byte counts, items per rank, the
    target's folder), before anything is made."""
    if not a.mdtest:
        raise Stop(
            "--mdtest: required: an mdtest binary, built from IOR's repository outside this one"
            " (or IOSWEEP_MDTEST)"
        )
    if not (os.path.isfile(a.mdtest) and os.access(a.mdtest, os.X_OK)):
        raise Stop(f"--mdtest: {shown(a.mdtest)} is not an executable")
    a.mdtest = os.path.abspath(a.mdtest)
    a.bin = cmdline.binary("--bin", a.bin)
    a.target = a.target or "local"
    _check_target(a)
    _check_shape(a)
    a.write_bytes, a.read_bytes = units.sizes(
        a.bin,
        ("--write-bytes", a.write_bytes, {"lo": 0, "hi": MAX_ITEM_BYTES}),
        ("--read-bytes", a.read_bytes, {"lo": 0, "hi": MAX_ITEM_BYTES}),
    )
    if a.read_bytes > a.write_bytes:
        raise Stop(
            f"--read-bytes: at most --write-bytes, what each file holds (found {a.read_bytes}"
            f" > {a.write_bytes})"
        )
    if a.target != "bed":  # the bed's volume is checked by the bed's own bring-up
        _check_room(a)
    if a.csv:
        a.csv = files.output_file("--csv", a.csv, suffixes={"csv"})
    if a.save:
        if os.path.lexists(a.save):
            raise Stop(f"--save: {shown(a.save)} exists; expected a new folder")
        a.save = files.output_folder("--save", a.save)
    return a


def _check_target(a):
    """The target's folder (local, tmpfs) or bed, and the ranks it takes."""
    a.ranks = a.ranks or DEFAULT_RANKS[a.target]
    if a.target == "bed":
        if a.dir is not None:
            raise Stop("--dir: not with --target bed (the runs go to the bed's volume)")
        if a.name is not None and not NAME_RE.fullmatch(a.name):
            raise Stop(f"--name: {shown(a.name)} is not a bed's name")
        if a.ranks % 2:
            raise Stop(
                f"--ranks: must be even on the bed, half on each of its 2 nodes (found {a.ranks})"
            )
        return
    if a.name is not None:
        raise Stop("--name: only with --target bed")
    a.dir = files.work_folder("--dir", a.dir or DEFAULT_DIR[a.target])
    kind = fs_type(a.dir)
    if a.target == "local" and kind in MEMORY_FS:
        raise Stop(
            f"--dir: {shown(a.dir)} is on {kind}, not a disk (--target tmpfs measures there)"
        )
    if a.target == "tmpfs" and kind not in MEMORY_FS:
        raise Stop(f"--dir: {shown(a.dir)} is on {kind}, not tmpfs (--target tmpfs needs one)")


def _check_room(a):
    """One run's files and folders fit the target's free inodes and space (one run at a time:
    each removes its items before the next), so that a shape too large for the file system is
    refused before anything starts instead of failing part way."""
    folders = sum(a.branch**level for level in range(a.depth + 1)) + 1  # the tree, its top
    files.check_inodes("--items", a.dir, a.ranks, a.items + folders)
    if a.write_bytes:
        files.check_space("--write-bytes", a.dir, a.ranks * a.items, a.write_bytes)


def _check_shape(a):
    """Files per rank: --items, or --items-per-folder x the leaf folders; a multiple of them."""
    leaves = a.branch**a.depth
    if leaves > MAX_LEAVES:
        raise Stop(
            f"--branch: {a.branch}^{a.depth} (--depth) = {leaves} leaf folders per tree; at most"
            f" {MAX_LEAVES}"
        )
    if a.items is not None and a.items_per_folder is not None:
        raise Stop(
            "--items-per-folder: give --items or --items-per-folder, not both (mdtest -u refuses"
            " -n with -I)"
        )
    a.per_folder = a.items_per_folder
    if a.per_folder:
        a.items = a.per_folder * leaves
        if a.items > MAX_ITEMS:
            raise Stop(
                f"--items-per-folder: {a.per_folder} x {leaves} leaf folders = {a.items} files"
                f" per rank; at most {MAX_ITEMS}"
            )
    a.items = a.items or DEFAULT_ITEMS
    if a.items % leaves:
        raise Stop(
            f"--items: {a.items} files per rank do not fill the {leaves} leaf folders evenly"
            f" (mdtest would drop {a.items % leaves}); give a multiple of {leaves}"
        )


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    a = parse_args(argv)
    if a.target != "bed":
        return _measure(a, runs.Local(a))
    why = can_run()
    if why:
        raise Stop(f"--target bed: no GlusterFS bed here: {why}", 1)
    bed, own = bed_for(a.name, "vs-mdtest", a.ranks // 2)
    try:
        return _measure(a, runs.OnBed(a, bed))
    finally:
        if own:
            dfs_bed("--name", own, "down")


def _header(a, place):
    now = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        f"machine: {machine_text()}; load average {os.getloadavg()[0]:.2f}",
        f"date:    {now:%Y-%m-%dT%H:%M:%SZ}",
    ]
    if a.target == "bed":
        info = place.info
        lines.append(
            f"target:  bed {info['name']}: volume of {len(info['bricks'])} brick(s) at "
            f"{place.work}; nodes {', '.join(place.nodes)}, ranks round-robin over them;"
            f" options {', '.join(info['options'])}"
        )
    else:
        dev = block_device(place.work)
        lines.append(
            f"target:  {a.target}: {place.work} ({fs_type(place.work)}; "
            f"{'device ' + dev.name if dev else 'no block device'})"
        )
    per = f" ({a.per_folder} per leaf folder)" if a.per_folder else ""
    lines.append(
        f"shape:   {a.ranks} ranks, {a.items} files per rank{per}, "
        f"{'a tree per rank' if a.layout == 'private' else 'one tree for all ranks'} of depth "
        f"{a.depth} and branch {a.branch}, files in its leaves; {size_text(a.write_bytes)} "
        f"written and {size_text(a.read_bytes)} read per file, fsync {'on' if a.fsync else 'off'}"
    )
    lines.append("caches:  kept by both: mdtest never drops them, iosweep runs with --cache keep")
    lines.append(f"tools:   mdtest {a.mdtest}; iosweep {a.bin} (--engine posix)")
    return "".join(line + "\n" for line in lines)


def _measure(a, place):
    """The pairs, on `place`, then the table (and --csv, --save's runs.csv)."""
    outputs = a.save or tempfile.mkdtemp(prefix="bench-vs-mdtest.", dir="/tmp")
    if a.save:
        os.mkdir(a.save)
    out = os.path.join(outputs, "iosweep.h5")
    pairs = []
    try:
        place.start()
        print(_header(a, place), flush=True)
        for k in range(1, a.pairs + 1):
            pairs.append(runs.run_pair(place, a, k, outputs, out))
            print(f"  pair {k}/{a.pairs}: {', '.join(pairs[-1].order)}", file=sys.stderr)
    finally:
        place.finish()
        if not a.save:
            shutil.rmtree(outputs, ignore_errors=True)
    rows = table.judged(pairs, a)
    print(table.table_text(rows, a, pairs[-1].mdtest_version), end="")
    if a.save:
        files.write_output(
            "--save", os.path.join(a.save, "runs.csv"), table.runs_csv_text(pairs, out)
        )
        print(f"kept:    {a.save} (mdtest.K.txt, iosweep.h5, runs.csv)")
    if a.csv:
        files.write_output("--csv", a.csv, table.csv_text(rows))
        print(f"written: {a.csv}")
    return 0
