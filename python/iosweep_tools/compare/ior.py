"""The parser of IOR's outputs (compare.parsers reads them through parse_any).

parse_ior reads the "Summary of all tests" table, a JSON summary (-O summaryFormat=JSON) or CSV
rows (-O summaryFormat=CSV), with the settings a row does not carry (access mode, segments, block
size) from the "Options:" block, a visible script or the command line; ior_direct tells whether
the run used O_DIRECT. Records and errors are those of compare.record.
"""
import json
import re

from iosweep_tools.compare.record import ParseError, Result, line_of, unit_of
from iosweep_tools.results.names import is_random

IOR_OPS = {"write": "write", "read": "read"}


def looks_like_ior(text):
    return "IOR-" in text or '"tests"' in text or "access,bw(MiB/s)" in text


def _ior_phase(op, random, xfer_bytes):
    if random is None:  # no ordering known: small transfers are the random test (IOR -z)
        random = xfer_bytes is not None and xfer_bytes <= 64 * 1024
    if op == "write":
        return "rand-write" if random else "seq-write"
    return "rand-read" if random else "seq-read"


def _ior_value(phase, mib_s, ops_s):
    return ops_s if is_random(phase) else mib_s * 1048576.0


def _ior_file(block, segments, fpp, tasks):
    """Bytes of the file one task works on: its own (-F) block x segments, or the shared file."""
    if block is None or segments is None or fpp is None:
        return None
    return int(block) * int(segments) * (1 if fpp else int(tasks))


_IOR_COMMAND = re.compile(r'^\s*"?Command line"?\s*:\s*"?([^"]*)')
_IOR_SCRIPT_DIRECT = re.compile(r"^\s*(?:useO_DIRECT|posix\.odirect)\s*=\s*1\b", re.I)
_IOR_API_DIRECT = re.compile(r"^\s*api\s*[:=].*O_DIRECT")


def ior_direct(text):
    """Whether an IOR output ran with O_DIRECT: -B or -O useO_DIRECT=1 (IOR 3), --posix.odirect
    (IOR 4) on its command line, useO_DIRECT=1 / posix.odirect=1 in a visible script,
    "useO_DIRECT": 1
    in JSON parameters, or "api : POSIX ... O_DIRECT". False when a command line (or the script it
    ran) is there and none of these; None when the output does not say."""
    commands, script, said_no = [], False, False
    for line in text.splitlines():
        m = _IOR_COMMAND.match(line)
        if m:
            commands.append(m.group(1))
        if line.strip() == "IOR START":
            script = True
        if _IOR_SCRIPT_DIRECT.match(line) or _IOR_API_DIRECT.match(line):
            return True
    if re.search(r'"useO_DIRECT"\s*:\s*1\b', text):
        return True
    if re.search(r'"useO_DIRECT"\s*:\s*0\b', text):
        said_no = True
    for c in commands:
        words = c.split()
        if (
            "-B" in words
            or "--posix.odirect" in words
            or re.search(r"useO_DIRECT\s*=\s*1\b", c, re.I)
        ):
            return True
        if "-f" not in words:  # a script's options are not on the command line
            said_no = True
    return False if (said_no or script) else None


_IOR_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


class _IorContext:
    """Settings IOR states before its result rows, where a row does not carry them: the access
    mode, the segment count and the block size (its "Options:" block, a visible script, the
    command line)."""

    def __init__(self):
        self.fpp, self.segments, self.block = None, None, None

    def see(self, line):
        m = re.match(r"^blocksize\s*:\s*([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB)\s*$", line)
        if m:
            self.block = round(float(m.group(1)) * _IOR_UNITS[m.group(2)])
        m = re.match(r"^access\s*:\s*(file-per-process|single-shared-file)", line)
        if m:
            self.fpp = m.group(1) == "file-per-process"
        m = re.match(r"^segments\s*:\s*(\d+)", line) or re.match(
            r"^\s*segmentCount\s*=\s*(\d+)", line
        )
        if m:
            self.segments = int(m.group(1))
        m = re.match(r"^\s*filePerProc\s*=\s*(\d)", line)
        if m:
            self.fpp = m.group(1) == "1"
        m = _IOR_COMMAND.match(line)
        if m:
            words = m.group(1).split()
            if "-f" not in words:
                self.fpp = "-F" in words
                self.segments = 1
                for i, w in enumerate(words[:-1]):
                    if w == "-s" and words[i + 1].isdigit():
                        self.segments = int(words[i + 1])


def _parse_ior_json(path, text, start_line, direct):
    start = text.index("{")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as e:
        raise ParseError(
            path, start_line + text[: start + e.pos].count("\n"), f"valid IOR JSON ({e.msg})"
        ) from None
    if "summary" not in doc or "tests" not in doc:
        raise ParseError(path, start_line, "an IOR JSON summary with 'tests' and 'summary'")
    ordering, params = {}, {}
    for t in doc["tests"]:
        opts = t.get("Options", {})
        ordering[t.get("TestID")] = opts.get("ordering in a file") == "random"
        params[t.get("TestID")] = t.get("Parameters", {})
    out = []
    for s in doc["summary"]:
        op = s.get("operation")
        if op not in IOR_OPS:
            continue
        par = params.get(s.get("TestID"), {})
        xfer = s.get("transferSize", par.get("transferSize"))
        fpp = s.get("filePerProc", par.get("filePerProc"))
        size = _ior_file(
            s.get("blockSize", par.get("blockSize")),
            s.get("segmentCount", par.get("segmentCount")),
            None if fpp is None else bool(fpp),
            s["numTasks"],
        )
        phase = _ior_phase(op, ordering.get(s.get("TestID")), xfer)
        out.append(
            Result(
                "ior",
                phase,
                int(s["numTasks"]),
                _ior_value(phase, s["bwMeanMIB"], s["OPsMean"]),
                unit_of(phase),
                "mean",
                path,
                start_line,
                None if xfer is None else int(xfer),
                size,
                direct,
                shared=None if fpp is None else not bool(fpp),
            )
        )
    return out


_SUMMARY_HEAD = re.compile(r"^Operation\s+Max\(MiB\)\s+Min\(MiB\)\s+Mean\(MiB\)")
_ORDERING = re.compile(r"^ordering in a file\s*:\s*(\w+)")
_TESTID = re.compile(r"^TestID\s*:\s*(\d+)")
_CSV_HEAD = "access,bw(MiB/s),IOPS"
_SUMMARY_ROW = (
    "a row of IOR's 'Summary of all tests' table "
    "(operation, Max/Min/Mean MiB, OPs, Test#, #Tasks, xsize)"
)


class _IorText:
    """The results of an IOR output's text, line by line: the rows of its "Summary of all tests"
    tables and its CSV rows, with what the lines before them said (test ids, ordering, the
    settings of _IorContext)."""

    def __init__(self, path, direct):
        self.path, self.direct = path, direct
        self.ordering, self.test_id = {}, 0
        self.header, self.csv_cols = None, None
        self.context = _IorContext()
        self.results = []

    def see(self, i, line):
        self.context.see(line)
        m = _TESTID.match(line)
        if m:
            self.test_id = int(m.group(1))
        m = _ORDERING.match(line)
        if m:
            self.ordering[self.test_id] = m.group(1) == "random"
        if _SUMMARY_HEAD.match(line):
            self.header = line.split()
        elif self.header is not None:
            self._summary_line(i, line.split())
        elif line.startswith(_CSV_HEAD):
            self.csv_cols = line.split(",")
        elif self.csv_cols is not None:
            self._csv_line(i, line.split(","))

    def _summary_line(self, i, cells):
        if not cells:  # a blank line inside the table
            return
        if cells[0] not in ("write", "read"):
            self.header = None  # the table ended
            return
        try:
            col = {name: idx for idx, name in enumerate(self.header)}
            for name in ("Max(MiB)", "Min(MiB)", "Max(OPs)", "Min(OPs)", "Mean(s)"):
                float(cells[col[name]])  # the whole row must be numbers, not only what is used
            mean_mib = float(cells[col["Mean(MiB)"]])
            mean_ops = float(cells[col["Mean(OPs)"]])
            tid = int(cells[col["Test#"]])
            tasks = int(cells[col["#Tasks"]])
            xsize = int(cells[col["xsize"]])
            cell = lambda name: int(cells[col[name]]) if name in col else None  # noqa: E731
            fpp = cell("fPP")
            size = _ior_file(
                cell("blksiz") or self.context.block,
                self.context.segments if cell("segcnt") is None else cell("segcnt"),
                self.context.fpp if fpp is None else bool(fpp),
                tasks,
            )
        except (KeyError, ValueError, IndexError):
            raise ParseError(self.path, i, _SUMMARY_ROW) from None
        phase = _ior_phase(cells[0], self.ordering.get(tid), xsize)
        fpp = self.context.fpp if fpp is None else bool(fpp)
        value = _ior_value(phase, mean_mib, mean_ops)
        self._add(phase, tasks, value, i, xsize, size, None if fpp is None else not fpp)

    def _csv_line(self, i, cells):
        if len(cells) != len(self.csv_cols) or cells[0] not in ("write", "read"):
            self.csv_cols = None  # the rows ended
            return
        try:
            row = dict(zip(self.csv_cols, cells))
            xfer = round(float(row["xfer(KiB)"]) * 1024)
            block = round(float(row["block(KiB)"]) * 1024)
            tasks = int(row["numTasks"])
            phase = _ior_phase(cells[0], None, xfer)
            value = _ior_value(phase, float(row["bw(MiB/s)"]), float(row["IOPS"]))
        except (KeyError, ValueError):
            raise ParseError(
                self.path, i, "an IOR CSV row (access, bw(MiB/s), IOPS, ..., numTasks, iter)"
            ) from None
        fpp = self.context.fpp
        size = _ior_file(block, self.context.segments, fpp, tasks)
        self._add(phase, tasks, value, i, xfer, size, None if fpp is None else not fpp)

    def _add(self, phase, tasks, value, line, record, size, shared):
        self.results.append(
            Result(
                "ior",
                phase,
                tasks,
                value,
                unit_of(phase),
                "mean",
                self.path,
                line,
                record,
                size,
                self.direct,
                shared=shared,
            )
        )


def parse_ior(path, text=None):
    """The Results of an IOR output: its JSON summary, then its "Summary of all tests" tables
    and CSV rows. Raises ParseError naming the line."""
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    direct = ior_direct(text)
    results = []
    json_line = next((i for i, l in enumerate(lines, 1) if l.strip() == "{"), None)
    if json_line is not None and '"summary"' in text:
        with line_of(path, json_line):
            results += _parse_ior_json(path, "\n".join(lines[json_line - 1 :]), json_line, direct)
    reader = _IorText(path, direct)
    for i, line in enumerate(lines, 1):
        with line_of(path, i):
            reader.see(i, line)
    results += reader.results
    if not results:
        raise ParseError(
            path,
            len(lines),
            (
                "IOR results: a 'Summary of all tests' table, a JSON summary "
                "(-O summaryFormat=JSON) or CSV rows (-O summaryFormat=CSV)"
            ),
        )
    return results
