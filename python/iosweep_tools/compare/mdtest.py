"""The parser of mdtest's outputs (compare.parsers reads them through parse_any).

parse_mdtest reads every "SUMMARY rate (in ops/sec)" table of an mdtest output (mdtest 3.3 to
4.1, the mdtest of IOR's repository): one table per task count (-f/-l/-s run several), with or
without --showRankStatistics (three per-rank columns before the four per-iteration ones), over
any number of iterations (-i). A row's figure is its per-iteration Mean: mdtest's rate of one
iteration is the items of all tasks over the slowest task's time from the barrier before the
phase to the barrier after it, iosweep's `iops` (every rank's operations over the slowest rank's
window). The "SUMMARY time" table of -P is not read. A phase that did not run prints 0.000
and gives no Result; "Directory ..." rows (-D, mdtest without -F) have no iosweep phase and are
left out.

Settings, for matching against iosweep's rows (compare.tools): the tasks and the items per task
from the "N tasks, M files" line before each table (M / N: -n, or what -I, -z, -b and -L made of
it), and from the command line the layout (-u: a folder per task, iosweep's private layout;
without it one shared folder), the bytes written into each file (-w) and read from it (-e),
fsync per file (-y), and the tree (-z depth, -b branch). mdtest never drops the kernel's caches
before its stat and read phases (cache_drop False), unless a command of the user's ran before
each phase (--run-cmd-before-phase: not known, None). Records and errors are those of
compare.record.
"""
import re

from iosweep_tools.compare.record import MAX_COUNT, TOO_LARGE, ParseError, Result, line_of

# mdtest's operation names -> iosweep's phases (the rows of the phase table with the flag
# metadata).
MDTEST_PHASES = {
    "Tree creation": "md-mkdir",
    "File creation": "md-create",
    "File stat": "md-stat",
    "File read": "md-read",
    "File removal": "md-remove",
    "Tree removal": "md-rmdir",
}
OTHER_ROWS = ("Directory creation", "Directory stat", "Directory rename", "Directory removal")
OTHER_ROWS += ("Directory read",)
ROW_NAMES = tuple(MDTEST_PHASES) + OTHER_ROWS

# mdtest's short options that take a value (IOR's option parser: -n 5, -n5 or -n=5); every
# other letter is a flag, and flags group (-uF).
_VALUED = set("abdBefGiIlnNpsVwWxz")
_LONG_VALUED = {
    "random-seed",
    "dataPacketType",
    "run-cmd-before-phase",
    "run-cmd-after-phase",
    "saveRankPerformanceDetails",
    "savePerOpDataCSV",
    "allocateBufferOnGPU",
    "GPUid",
}
_SIZE = re.compile(r"^\s*(\d+)\s*([kKmMgGtT]?)\s*$")
_SHIFT = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}

_COMMAND = re.compile(r"^Command line used:\s*(\S+)(.*)$")
_LAUNCHED = re.compile(r"was launched with (\d+) total task")
_TASKS = re.compile(r"^(\d+) tasks, (\d+) (files/directories|files|directories)\s*$")
_SUMMARY = re.compile(r"^SUMMARY (rate|time)( \(in [^)]*\))?:")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_ROW = "a row of mdtest's SUMMARY rate table (operation, then 4 or 7 figures)"


def looks_like_mdtest(text):
    return "SUMMARY rate" in text and ("mdtest-" in text or "Command line used: " in text)


def mdtest_size(text):
    """Bytes of an mdtest size (IOR's string_to_bytes: 4096, 4k, 3K, 1m; binary units); None
    for anything else."""
    m = _SIZE.match(text)
    return None if m is None else int(m.group(1)) << _SHIFT[m.group(2).lower()]


def _words(rest):
    """The arguments of mdtest's "Command line used:" line, each printed as '...'."""
    quoted = re.findall(r"'([^']*)'", rest)
    return quoted if quoted else rest.split()


def _options(words):
    """{letter or long name: value, or True for a flag} of mdtest's arguments."""
    out, i = {}, 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("--"):
            name, eq, val = w[2:].partition("=")
            if not eq and name in _LONG_VALUED and i < len(words):
                val, i = words[i], i + 1
            out[name] = val if (eq or name in _LONG_VALUED) else True
            continue
        if not w.startswith("-") or len(w) < 2:
            continue
        body, eq, val = w[1:].partition("=")
        for k, c in enumerate(body):
            if c not in _VALUED:
                out[c] = True
                continue
            if eq:
                out[c] = val
            elif k == 0 and len(body) > 1:
                out[c] = body[1:]
            elif i < len(words):
                out[c], i = words[i], i + 1
            break
    return out


def mdtest_settings(words):
    """What an mdtest command line asks for: {shared (no -u), item_bytes (-w), read_bytes (-e),
    fsync (-y), depth (-z), branch (-b), cache_drop}, mdtest's defaults where an option is not
    given."""
    o = _options(words)

    def size(letter):
        return 0 if letter not in o else mdtest_size(str(o[letter]))

    def count(letter, default):
        v = o.get(letter)
        return default if v is None else (int(v) if str(v).isdigit() else None)

    return {
        "shared": "u" not in o,
        "item_bytes": size("w"),
        "read_bytes": size("e"),
        "fsync": "y" in o,
        "depth": count("z", 0),
        "branch": count("b", 1),
        "cache_drop": None if "run-cmd-before-phase" in o else False,
    }


class _MdtestText:
    """The Results of an mdtest output, line by line: the rows of its SUMMARY rate tables with
    the tasks and items the lines before them stated and the command line's settings."""

    def __init__(self, path):
        self.path = path
        self.settings = {k: None for k in ("shared", "item_bytes", "read_bytes", "fsync")}
        self.settings.update(depth=None, branch=None, cache_drop=False)
        self.tasks, self.items = None, None
        self.table = None  # "rate" or "time" inside a SUMMARY table, else None
        self.results = []

    def see(self, i, line):
        m = _COMMAND.match(line.strip())
        if m and m.group(1).rsplit("/", 1)[-1].startswith("mdtest"):
            self.settings = mdtest_settings(_words(m.group(2)))
            if any(type(v) is int and v > MAX_COUNT for v in self.settings.values()):
                raise ParseError(self.path, i, TOO_LARGE)
        m = _LAUNCHED.search(line)
        if m:
            self.tasks = int(m.group(1))
        m = _TASKS.match(line.strip())
        if m:
            self.tasks, made = int(m.group(1)), int(m.group(2))
            if max(self.tasks, made) > MAX_COUNT:
                raise ParseError(self.path, i, TOO_LARGE)
            self.items = made / self.tasks if self.tasks else None
        m = _SUMMARY.match(line.strip())
        if m:
            self.table = m.group(1)
        elif self.table is not None:
            self._row(i, line)

    def _row(self, i, line):
        text = line.strip()
        if not text or text.startswith("Operation") or set(text.split()[0]) == {"-"}:
            if not text:
                self.table = None  # the table ended
            return
        name = next((n for n in ROW_NAMES if text.startswith(n + " ")), None)
        if name is None:
            self.table = None  # not a row: the table ended
            return
        figures = text[len(name) :].split()
        if len(figures) not in (4, 7) or not all(_NUMBER.match(c) for c in figures):
            raise ParseError(self.path, i, _ROW)
        if self.table != "rate" or name not in MDTEST_PHASES:
            return
        mean = float(figures[-2])
        if mean == 0 or float(figures[-4]) == 0:
            return  # a phase that did not run prints 0.000: no figure, never a 0
        if self.tasks is None:
            raise ParseError(self.path, i, "the number of tasks before the SUMMARY table")
        self._add(MDTEST_PHASES[name], mean, i)

    def _add(self, phase, value, line):
        s = self.settings
        self.results.append(
            Result(
                "mdtest",
                phase,
                self.tasks,
                value,
                "ops/s",
                "mean",
                self.path,
                line,
                shared=s["shared"],
                items=self.items,
                item_bytes=s["item_bytes"],
                read_bytes=s["read_bytes"],
                fsync=s["fsync"],
                tree=None if s["depth"] is None else (s["depth"], s["branch"]),
                cache_drop=s["cache_drop"],
            )
        )


def parse_mdtest(path, text=None):
    """The Results of an mdtest output: one per phase that ran and task count of its SUMMARY
    rate tables. Raises ParseError naming the line."""
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    reader = _MdtestText(path)
    for i, line in enumerate(lines, 1):
        with line_of(path, i):
            reader.see(i, line)
    if not reader.results:
        raise ParseError(
            path,
            len(lines),
            "mdtest results: a 'SUMMARY rate (in ops/sec)' table with a phase that ran",
        )
    return reader.results
