"""The parser of IOzone's outputs (compare.parsers reads them through parse_any).

parse_iozone reads the "Children see" and "Parent sees" throughput lines of throughput mode (-t),
or, where they are missing, the -R report table; iozone_settings reads the run's record size,
file size, O_DIRECT and stonewalling from the header or the command line. Records and errors are
those of compare.record.
"""
import re

from iosweep_tools.compare.record import MAX_COUNT, TOO_LARGE, ParseError, Result, line_of
from iosweep_tools.compare.record import unit_of
from iosweep_tools.results.names import is_random

IOZONE_PHASES = {
    "initial writers": "seq-write",
    "readers": "seq-read",
    "random readers": "rand-read",
    "random writers": "rand-write",
}
# Other IOzone tests have no iosweep counterpart; they are recognised and skipped. IOR's results
# map onto the same four phases (compare.ior), the only ones the table compares.
IOZONE_OTHER = {
    "rewriters",
    "re-readers",
    "reverse readers",
    "stride readers",
    "mixed workload",
    "pwrite writers",
    "pread readers",
    "pwrite re-writers",
    "pread re-readers",
    "fwriters",
    "freaders",
    "re-writers",
    "record rewriters",
}

_THROUGHPUT = re.compile(
    r"^\s*(Children|Parent) sees? throughput for\s+(\d+)\s+(.+?)\s*=\s*([\d.]+)\s+(\S+)"
)
# IOzone's header: "Record Size 4 kB" (3.4xx) or "Record Size 4 KB" (older), likewise the file.
_RECORD = re.compile(r"^\s*Record Size\s+(\d+)\s+kB\b", re.I)
_FILE_SIZE = re.compile(r"^\s*File size set to\s+(\d+)\s+kB\b", re.I)
_EACH = re.compile(
    r"^\s*Each process writes a\s+(\d+)\s+kByte file in\s+(\d+)\s+kByte records", re.I
)
_REPORT_ROW = re.compile(
    r'^"\s*(Initial write|Read|Random read|Random write|Rewrite|Re-read)\s*"((?:\s+[\d.]+)+)\s*$'
)
_T_FLAGS = re.compile(r"(?:^|\s)-t\s*(\d+)")
_IOZONE_SIZE = re.compile(r"^(\d+)([kmg]?)$", re.I)
REPORT_PHASES = {
    "Initial write": "seq-write",
    "Read": "seq-read",
    "Random read": "rand-read",
    "Random write": "rand-write",
}


def looks_like_iozone(text):
    return (
        "Iozone" in text or "Children see throughput" in text or "Throughput report Y-axis" in text
    )


def _iozone_size(v):
    """Bytes of an IOzone -r/-s value: a number of kB, or with k, m or g."""
    m = _IOZONE_SIZE.match(v)
    if not m:
        return None
    return int(m.group(1)) * {"": 1024, "k": 1024, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


def _iozone_flags(command):
    """{record_bytes, file_bytes, direct, stonewall} that an IOzone command line asks for."""
    out = {"direct": False, "stonewall": True}
    words = command.split()
    for i, w in enumerate(words):
        if w == "-I":
            out["direct"] = True
        elif w == "-x":
            out["stonewall"] = False
        elif w[:2] in ("-r", "-s") and (len(w) > 2 or i + 1 < len(words)):
            v = _iozone_size(w[2:] if len(w) > 2 else words[i + 1])
            if v is not None:
                out["record_bytes" if w[1] == "r" else "file_bytes"] = v
    return out


def iozone_settings(text, path="the output"):
    """What an IOzone output says of its run: {record_bytes, file_bytes, direct, stonewall}, from
    its header lines ("Record Size N kB", "File size set to N kB", "O_DIRECT feature enabled",
    "Stonewall disabled") or, where they are missing, its command line; None where neither says.
    In throughput mode (-t) the file size is each process's file. A size larger than MAX_COUNT
    is a ParseError naming its line (in `path`)."""
    out = {"record_bytes": None, "file_bytes": None, "direct": None, "stonewall": None}
    header = {}
    command = None
    for i, line in enumerate(text.splitlines(), 1):
        with line_of(path, i):
            if "Command line used:" in line:
                command = line.split("Command line used:", 1)[1]
                _bounded(path, i, _iozone_flags(command))
            elif line.startswith("# command:") and command is None:
                command = line.split(":", 1)[1]
                _bounded(path, i, _iozone_flags(command))
            _header_line(header, line)
        _bounded(path, i, header)
    if command is not None:
        out.update(_iozone_flags(command))
    elif "Iozone: Performance Test of File I/O" in text:
        out.update(direct=False, stonewall=True)  # IOzone's banner: the header lists -I and -x
    out.update(header)
    return out


def _bounded(path, i, settings):
    """Raises ParseError naming line i when a size of `settings` is larger than MAX_COUNT."""
    for k in ("record_bytes", "file_bytes"):
        if settings.get(k) is not None and settings[k] > MAX_COUNT:
            raise ParseError(path, i, TOO_LARGE)


def _header_line(header, line):
    """What one header line says: the record size, the file size, O_DIRECT, stonewalling."""
    m = _RECORD.match(line)
    if m:
        header.setdefault("record_bytes", int(m.group(1)) * 1024)
    m = _FILE_SIZE.match(line)
    if m:
        header.setdefault("file_bytes", int(m.group(1)) * 1024)
    m = _EACH.match(line)
    if m:
        header.setdefault("file_bytes", int(m.group(1)) * 1024)
        header.setdefault("record_bytes", int(m.group(2)) * 1024)
    if "O_DIRECT feature enabled" in line:
        header["direct"] = True
    if "Stonewall disabled" in line:
        header["stonewall"] = False


def _throughput_value(path, i, phase, value, unit, record_kb):
    """A "Children see" / "Parent sees" figure in iosweep's units: bytes/s for sequential phases,
    ops/s for random ones (IOzone's kB is 1024 bytes, its records the -r size)."""
    v = float(value)
    if unit == "kB/sec":
        if not is_random(phase):
            return v * 1024.0
        if not record_kb:
            raise ParseError(path, i, "a 'Record Size N kB' line before random results in kB/sec")
        return v / record_kb  # kB/s to records (operations) per second
    if unit == "ops/sec":
        if is_random(phase):
            return v
        if not record_kb:
            raise ParseError(
                path, i, "a 'Record Size N kB' line before sequential results in ops/sec"
            )
        return v * record_kb * 1024.0
    raise ParseError(path, i, f"a throughput in kB/sec or ops/sec (found '{unit}')")


def _throughput_results(path, lines, settings, record_kb):
    """The Results of the "Children see" and "Parent sees" lines of throughput mode (-t)."""
    out = []
    for i, line in enumerate(lines, 1):
        with line_of(path, i):
            out += _throughput_line(path, i, line, settings, record_kb)
    return out


def _throughput_line(path, i, line, settings, record_kb):
    """[the Result of line i] when it is a "Children see" or "Parent sees" line of a phase."""
    m = _THROUGHPUT.match(line) if "Throughput test with" not in line else None
    if not m:
        return []
    who, threads, what, value, unit = m.groups()
    what = what.strip()
    if what in IOZONE_OTHER:
        return []
    if what not in IOZONE_PHASES:
        raise ParseError(
            path,
            i,
            (
                "an IOzone test name such as 'initial writers', 'readers', 'random readers'"
                f" (found '{what}')"
            ),
        )
    phase = IOZONE_PHASES[what]
    v = _throughput_value(path, i, phase, value, unit, record_kb)
    kind = "parent" if who == "Parent" else "children"
    return [Result("iozone", phase, int(threads), v, unit_of(phase), kind, path, i, **settings)]


def _report_context(path, lines):
    """(the -t process counts of the last command line that gives them, "ops" or "kB": the unit
    of the last "Output is in" line, or None) for the -R report table."""
    t_values, units = [], None
    for i, line in enumerate(lines, 1):
        if "Command line used:" in line or line.startswith("# command:"):
            with line_of(path, i):
                t_values = [int(x) for x in _T_FLAGS.findall(line)] or t_values
        if "Output is in" in line and "Throughput test with" not in line:
            units = "ops" if "operations" in line else "kB"
    return t_values, units


def _report_results(path, lines, settings, record_kb):
    """The Results of the -R report table's rows, one per -t process count of the command line
    (where the throughput lines are missing)."""
    t_values, units = _report_context(path, lines)
    out = []
    for i, line in enumerate(lines, 1):
        with line_of(path, i):
            out += _report_row(path, i, line, (t_values, units), settings, record_kb)
    return out


def _report_row(path, i, line, context, settings, record_kb):
    """The Results of line i when it is a row of the -R report table of a phase, one per -t
    process count of `context` (_report_context)."""
    t_values, units = context
    m = _REPORT_ROW.match(line)
    if not m or m.group(1) not in REPORT_PHASES:
        return []
    values = [float(x) for x in m.group(2).split()]
    if len(t_values) != len(values):
        raise ParseError(
            path, i, "the -t process counts on the command line, one per report column"
        )
    phase = REPORT_PHASES[m.group(1)]
    out = []
    for t, v in zip(t_values, values):
        if units == "ops":
            val = v if is_random(phase) else v * (record_kb or 0) * 1024.0
        else:
            val = v / record_kb if is_random(phase) and record_kb else v * 1024.0
        out.append(Result("iozone", phase, t, val, unit_of(phase), "children", path, i, **settings))
    return out


def _nothing_found(path, lines):
    """The ParseError of an output without results: after "Throughput test with", IOzone's
    children failed; without it, the file is no throughput-mode output."""
    saw_test = next((i for i, line in enumerate(lines, 1) if "Throughput test with" in line), None)
    if saw_test:
        return ParseError(
            path,
            saw_test,
            (
                "'Children see throughput for N ...' lines after 'Throughput test with' "
                "(IOzone printed none: did its children fail?)"
            ),
        )
    return ParseError(
        path,
        len(lines),
        (
            "IOzone throughput-mode output ('Throughput test with N processes' "
            "and 'Children see throughput' lines)"
        ),
    )


def parse_iozone(path, text=None):
    """The Results of an IOzone output: its "Children see" and "Parent sees" lines, or, where
    they are missing, its -R report table. Raises ParseError naming the line."""
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    settings = iozone_settings(text, path)
    record_kb = settings["record_bytes"] // 1024 if settings["record_bytes"] else None
    results = _throughput_results(path, lines, settings, record_kb)
    if not results:  # no throughput lines: maybe only the -R report table survived
        results = _report_results(path, lines, settings, record_kb)
    if not results:
        raise _nothing_found(path, lines)
    return results
