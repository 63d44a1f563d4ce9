"""What the parsers of other tools' outputs (compare.parsers) return.

Every parser returns a list of Result records: the tool, the phase (iosweep's names: seq_write,
seq_read, rand_write, rand_read), the threads, the value and its unit, which figure it is, where
it was read, and the settings that decide whether it can be set beside an iosweep figure: the
record size, the size of the file one thread works on, O_DIRECT, and for IOzone whether its
"Children see" figure was stonewalled. Units are converted to iosweep's: bandwidth in bytes/s
(IOzone's kB is 1024 bytes, IOR's MiB 2^20), random phases in ops/s. A setting the output does
not state is None ("?"). A file that cannot be parsed raises ParseError naming the file, the line
and what was expected; so does a figure that is not a finite number of at least 0 (an output
saying inf, nan or a negative figure is not one these commands set beside a run's).
"""
import math
from dataclasses import dataclass

from iosweep_tools.results.names import is_random


class ParseError(Exception):
    def __init__(self, path, line, expected):
        super().__init__(f"{path}: line {line}: expected {expected}")
        self.path, self.line, self.expected = path, line, expected


@dataclass
class Result:
    tool: str  # "iozone", "ior"
    phase: str  # iosweep phase name
    threads: int
    value: float  # bytes/s (sequential) or ops/s (random)
    unit: str  # "bytes/s" or "ops/s"
    kind: str  # "children", "parent" (IOzone), "mean" (IOR)
    file: str
    line: int
    record_bytes: int | None = None  # IOzone -r, IOR's transfer size (-t); None: not stated
    file_bytes: int | None = None  # the file one thread works on: IOzone -s; IOR block x segments
    # (x tasks for a shared file); None: not stated
    direct: bool | None = None  # O_DIRECT: IOzone -I; IOR -B, useO_DIRECT, --posix.odirect
    stonewall: bool | None = None  # IOzone: True by default, False with -x; None for IOR
    shared: bool | None = False  # one file for all threads: IOR without -F; IOzone never

    def __post_init__(self):
        if not math.isfinite(self.value) or self.value < 0:
            found = f"{self.value!r} {self.unit}"
            raise ParseError(self.file, self.line, f"a finite figure of at least 0 (found {found})")
        if self.threads < 1:
            raise ParseError(self.file, self.line, f"at least 1 thread (found {self.threads})")
        for what, v in (("record size", self.record_bytes), ("file size", self.file_bytes)):
            if v is not None and v < 1:
                raise ParseError(self.file, self.line, f"a {what} of at least 1 byte (found {v})")

    @property
    def figure(self):
        """What the value is, in the tool's own words."""
        if self.tool == "iozone":
            if self.kind == "parent":
                return "IOzone Parent sees"
            return "IOzone Children see" + (
                " (-x: not stonewalled)" if self.stonewall is False else " (stonewalled)"
            )
        return "IOR mean IOPS" if is_random(self.phase) else "IOR mean bandwidth"

    @property
    def counterpart(self):
        """The iosweep figure of the same definition (a column of compare.tools.iosweep_rows)."""
        if self.tool == "iozone" and self.kind == "children":
            # IOzone's default "Children see" sums what every child moved by the time the first
            # one finished (stonewalling); with -x each child's bytes over its own time.
            return "children" if self.stonewall is False else "iozone_children"
        return "wall"  # IOR: aggregate bytes / the slowest task's time; IOzone's parent likewise


def unit_of(phase):
    return "ops/s" if is_random(phase) else "bytes/s"
