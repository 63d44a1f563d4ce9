"""What the parsers of other tools' outputs (compare.parsers) return.

Every parser returns a list of Result records: the tool, the phase (iosweep's names: seq_write,
seq_read, rand_write, rand_read; md_mkdir .. md_rmdir for mdtest), the threads (mdtest's tasks),
the value and its unit, which figure it is, where it was read, and the settings that decide
whether it can be set beside an iosweep figure: for data, the record size, the size of the file
one thread works on, O_DIRECT, the layout, and for IOzone whether its "Children see" figure was
stonewalled; for metadata, the items per task, the bytes written into and read from each file,
fsync per file, the layout (a folder per task or one shared folder), the tree and whether the
caches were dropped before stat and read. Units are
converted to iosweep's: bandwidth in bytes/s (IOzone's kB is 1024 bytes, IOR's MiB 2^20), random
and metadata phases in ops/s. A setting the output does not state is None ("?"). A file that
cannot be parsed raises ParseError naming the file, the line and what was expected; so does a
figure that is not a finite number of at least 0 (an output saying inf, nan or a negative figure
is not one these commands set beside a run's), and so does a count or a size larger than
MAX_COUNT, which no run of these tools reaches and which no figure can hold exactly (a 400-digit
item count made a float division overflow): every parser reads each line under `line_of`, so a
number too large for the arithmetic is named with its line.
"""
import math
from contextlib import contextmanager
from dataclasses import dataclass

from iosweep_tools.results.names import in_ops, is_random

TOOL_NAMES = {"iozone": "IOzone", "ior": "IOR", "mdtest": "mdtest"}


class ParseError(Exception):
    def __init__(self, path, line, expected):
        super().__init__(f"{path}: line {line}: expected {expected}")
        self.path, self.line, self.expected = path, line, expected


MAX_COUNT = 2**63 - 1  # the largest count or size a setting may hold (what iosweep stores)
TOO_LARGE = "numbers a figure can hold (this line holds one too large)"


@contextmanager
def line_of(path, line):
    """Reads one line (or one JSON summary starting there): a number on it too large for the
    arithmetic (OverflowError; ValueError for one of more digits than Python converts) is a
    ParseError naming the line."""
    try:
        yield
    except (OverflowError, ValueError):
        raise ParseError(path, line, TOO_LARGE) from None


@dataclass
class Result:
    tool: str  # "iozone", "ior", "mdtest"
    phase: str  # iosweep phase name
    threads: int  # IOzone's threads, IOR's and mdtest's tasks
    value: float  # bytes/s (sequential) or ops/s (random, metadata)
    unit: str  # "bytes/s" or "ops/s"
    kind: str  # "children", "parent" (IOzone), "mean" (IOR)
    file: str
    line: int
    record_bytes: int | None = None  # IOzone -r, IOR's transfer size (-t); None: not stated
    file_bytes: int | None = None  # the file one thread works on: IOzone -s; IOR block x segments
    # (x tasks for a shared file); None: not stated
    direct: bool | None = None  # O_DIRECT: IOzone -I; IOR -B, useO_DIRECT, --posix.odirect
    stonewall: bool | None = None  # IOzone: True by default, False with -x; None for IOR
    shared: bool | None = False  # one file for all threads: IOR without -F; IOzone never;
    # mdtest: one folder for all tasks (without -u)
    items: float | None = None  # mdtest: items per task (its files / its tasks)
    item_bytes: int | None = None  # mdtest: bytes written into each file (-w)
    read_bytes: int | None = None  # mdtest: bytes read from each file (-e)
    fsync: bool | None = None  # mdtest: each file fsynced after its write (-y)
    tree: tuple | None = None  # mdtest: (depth -z, branch -b) of each tree
    cache_drop: bool | None = None  # mdtest: caches dropped before stat and read (never: False;
    # None when a command of its own ran before each phase, --run-cmd-before-phase)

    def __post_init__(self):
        if not math.isfinite(self.value) or self.value < 0:
            found = f"{self.value!r} {self.unit}"
            raise ParseError(self.file, self.line, f"a finite figure of at least 0 (found {found})")
        if self.threads < 1:
            raise ParseError(self.file, self.line, f"at least 1 thread (found {self.threads})")
        for what, v in (("record size", self.record_bytes), ("file size", self.file_bytes)):
            if v is not None and v < 1:
                raise ParseError(self.file, self.line, f"a {what} of at least 1 byte (found {v})")
        self._check_bounds()

    def _check_bounds(self):
        """Every count and size at most MAX_COUNT, items per task a finite number."""
        counts = [self.threads, self.record_bytes, self.file_bytes, self.item_bytes]
        counts += [self.read_bytes, *(self.tree or ())]
        for v in counts:
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_COUNT:
                raise ParseError(self.file, self.line, TOO_LARGE)
        if self.items is not None and not (math.isfinite(self.items) and self.items <= MAX_COUNT):
            raise ParseError(self.file, self.line, TOO_LARGE)

    @property
    def figure(self):
        """What the value is, in the tool's own words."""
        if self.tool == "iozone":
            if self.kind == "parent":
                return "IOzone Parent sees"
            return "IOzone Children see" + (
                " (-x: not stonewalled)" if self.stonewall is False else " (stonewalled)"
            )
        if self.tool == "mdtest":
            if self.phase in ("md-mkdir", "md-rmdir"):
                return "mdtest mean rate (one tree's folders)"
            return "mdtest mean rate"
        return "IOR mean IOPS" if is_random(self.phase) else "IOR mean bandwidth"

    @property
    def counterpart(self):
        """The iosweep figure of the same definition (a column of compare.tools.iosweep_rows)."""
        if self.tool == "iozone" and self.kind == "children":
            # IOzone's default "Children see" sums what every child moved by the time the first
            # one finished (stonewalling); with -x each child's bytes over its own time.
            return "children" if self.stonewall is False else "iozone_children"
        if self.tool == "mdtest" and self.phase in ("md-mkdir", "md-rmdir"):
            # mdtest's tree rate divides one tree's folders by the time, even when every task
            # made a tree of its own (-u)
            return "one_tree"
        return "wall"  # IOR: aggregate bytes / the slowest task's time; IOzone's parent likewise;
        # mdtest: every task's items over the slowest task's time, barrier to barrier


def unit_of(phase):
    return "ops/s" if in_ops(phase) else "bytes/s"
