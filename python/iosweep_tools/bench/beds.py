"""The GlusterFS bed a harness runs on (scripts/dfs-bed): the one named, the default one when it
is up, or one of the harness's own, brought up with 2 nodes and taken down by the harness.

    bed, own = bed_for(name, "dfs-vs-ior", slots=2)   # own: the name of a bed brought up here
    ...
    if own:
        dfs_bed("--name", own, "down")
"""
import os

from iosweep_tools.core import cmdline, install
from iosweep_tools.core.children import ChildError, run_child
from iosweep_tools.core.errors import Stop
from iosweep_tools.dfsbed.bed import Bed

DEFAULT_BED = "iosweep-dfs"
TARGETS = ("local", "tmpfs", "bed")  # where a side-by-side harness runs its pairs
BED_TIMEOUT_S = 600  # scripts/dfs-bed up or down, each of its steps bounded on its own


def dfs_bed(*args):
    """scripts/dfs-bed ARGS (libexec/iosweep/dfs-bed when installed): its CompletedProcess, the
    output kept; Stop (status 1) when it cannot start or does not end within BED_TIMEOUT_S."""
    cmd = [str(install.scripts_dir() / "dfs-bed"), *args]
    try:
        return run_child(cmd, timeout=BED_TIMEOUT_S)
    except ChildError as e:
        raise Stop(f"scripts/dfs-bed {' '.join(args)}: {e}; stopped", 1) from None
    except OSError as e:
        raise Stop(f"scripts/dfs-bed: cannot run it ({e.strerror})", 1) from None


def bed_for(name, command, slots, brick_size="4g"):
    """(the bed to run on, the name of the one brought up for `command` or None): `name`'s,
    which must be up, else the default bed when it is up, else one of the command's own with 2
    nodes of `slots` slots, named after the command and this process."""
    bed = Bed(name or DEFAULT_BED)
    if bed.state.get("phase") == "up":
        return bed, None
    if name:
        raise Stop(f"--name: bed {name} is not up (scripts/dfs-bed --name {name} up)", 1)
    own = f"{command}-{os.getpid()}"
    up = dfs_bed("--name", own, "up", "--nodes", "2", "--slots", str(slots),
                 "--brick-size", brick_size)  # fmt: skip
    if up.returncode != 0:
        raise Stop(f"could not bring a bed up: {up.stderr.strip()}", 1)
    return Bed(own), own


def add_target_options(ap, name_help):
    """A harness's --target (one of TARGETS) or --bed, and --name, the bed to use."""
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--target", choices=TARGETS, help="local (default), tmpfs or bed")
    where.add_argument(
        "--bed", dest="target", action="store_const", const="bed", help="--target bed"
    )
    ap.add_argument(
        "--name", metavar="NAME", type=cmdline.text_value("a bed's name"), help=name_help
    )
