"""Parsers for IOzone and IOR outputs, and the comparison table against an iosweep run.

Every parser returns a list of Result records: (tool, phase, threads, value, unit, kind, file,
line). Phases use iosweep's names (seq_write, seq_read, rand_write, rand_read). Units are
converted to iosweep's: bandwidth in bytes/s (IOzone's kB is 1024 bytes, IOR's MiB 2^20), random
phases in ops/s. A file that cannot be parsed raises ParseError naming the file, the line and
what was expected.
"""
import json
import re
from dataclasses import dataclass

from iosweep_common import is_random


class ParseError(Exception):
    def __init__(self, path, line, expected):
        super().__init__(f"{path}: line {line}: expected {expected}")
        self.path, self.line, self.expected = path, line, expected


@dataclass
class Result:
    tool: str      # "iozone", "ior"
    phase: str     # iosweep phase name
    threads: int
    value: float   # bytes/s (sequential) or ops/s (random)
    unit: str      # "bytes/s" or "ops/s"
    kind: str      # "children", "parent" (IOzone), "mean", "max" (IOR)
    file: str
    line: int


def unit_of(phase):
    return "ops/s" if is_random(phase) else "bytes/s"


# ----------------------------------------------------------------------------------- IOzone

IOZONE_PHASES = {
    "initial writers": "seq_write",
    "readers": "seq_read",
    "random readers": "rand_read",
    "random writers": "rand_write",
}
# Other IOzone tests have no iosweep counterpart; they are recognised and skipped. IOR's
# results map onto the same four phases (_ior_phase), the only ones the table compares.
IOZONE_OTHER = {"rewriters", "re-readers", "reverse readers", "stride readers", "mixed workload",
                "pwrite writers", "pread readers", "pwrite re-writers", "pread re-readers",
                "fwriters", "freaders", "re-writers", "record rewriters"}

_THROUGHPUT = re.compile(r"^\s*(Children|Parent) sees? throughput for\s+(\d+)\s+(.+?)\s*=\s*([\d.]+)\s+(\S+)")
_RECORD = re.compile(r"^\s*Record Size\s+(\d+)\s+kB")
_EACH = re.compile(r"^\s*Each process writes a\s+\d+\s+kByte file in\s+(\d+)\s+kByte records")
_REPORT_ROW = re.compile(r'^"\s*(Initial write|Read|Random read|Random write|Rewrite|Re-read)\s*"((?:\s+[\d.]+)+)\s*$')
_T_FLAGS = re.compile(r"(?:^|\s)-t\s*(\d+)")
REPORT_PHASES = {"Initial write": "seq_write", "Read": "seq_read", "Random read": "rand_read",
                 "Random write": "rand_write"}


def looks_like_iozone(text):
    return "Iozone" in text or "Children see throughput" in text or "Throughput report Y-axis" in text


def parse_iozone(path, text=None):
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    results, record_kb, saw_test, units = [], None, None, None
    t_values = []
    for i, line in enumerate(lines, 1):
        if "Command line used:" in line or line.startswith("# command:"):
            t_values = [int(x) for x in _T_FLAGS.findall(line)] or t_values
        m = _RECORD.match(line) or _EACH.match(line)
        if m:
            record_kb = int(m.group(1))
            continue
        if "Throughput test with" in line:
            saw_test = saw_test or i
            continue
        if "Output is in" in line:
            units = "ops" if "operations" in line else "kB"
        m = _THROUGHPUT.match(line)
        if not m:
            continue
        who, threads, what, value, unit = m.groups()
        what = what.strip()
        if what in IOZONE_OTHER:
            continue
        if what not in IOZONE_PHASES:
            raise ParseError(path, i, f"an IOzone test name such as 'initial writers', 'readers', 'random readers' (found '{what}')")
        phase = IOZONE_PHASES[what]
        v = float(value)
        if unit == "kB/sec":
            if is_random(phase):
                if not record_kb:
                    raise ParseError(path, i, "a 'Record Size N kB' line before random results in kB/sec")
                v = v / record_kb  # kB/s to records (operations) per second
            else:
                v *= 1024.0
        elif unit == "ops/sec":
            if not is_random(phase):
                if not record_kb:
                    raise ParseError(path, i, "a 'Record Size N kB' line before sequential results in ops/sec")
                v = v * record_kb * 1024.0
        else:
            raise ParseError(path, i, f"a throughput in kB/sec or ops/sec (found '{unit}')")
        results.append(Result("iozone", phase, int(threads), v, unit_of(phase), who.lower() if who == "Parent" else "children", path, i))
    if not results:
        # No throughput lines: maybe only the -R report table survived.
        for i, line in enumerate(lines, 1):
            m = _REPORT_ROW.match(line)
            if not m or m.group(1) not in REPORT_PHASES:
                continue
            values = [float(x) for x in m.group(2).split()]
            if len(t_values) != len(values):
                raise ParseError(path, i, "the -t process counts on the command line, one per report column")
            phase = REPORT_PHASES[m.group(1)]
            for t, v in zip(t_values, values):
                if units == "ops":
                    val = v if is_random(phase) else v * (record_kb or 0) * 1024.0
                else:
                    val = v / record_kb if is_random(phase) and record_kb else v * 1024.0
                results.append(Result("iozone", phase, t, val, unit_of(phase), "children", path, i))
    if not results:
        where = saw_test or len(lines)
        if saw_test:
            raise ParseError(path, where, "'Children see throughput for N ...' lines after 'Throughput test with' "
                                          "(IOzone printed none: did its children fail?)")
        raise ParseError(path, where, "IOzone throughput-mode output ('Throughput test with N processes' "
                                      "and 'Children see throughput' lines)")
    return results


# -------------------------------------------------------------------------------------- IOR

IOR_OPS = {"write": "write", "read": "read"}


def looks_like_ior(text):
    return "IOR-" in text or '"tests"' in text or "access,bw(MiB/s)" in text


def _ior_phase(op, random, xfer_bytes):
    if random is None:  # no ordering known: small transfers are the random test (IOR -z)
        random = xfer_bytes is not None and xfer_bytes <= 64 * 1024
    if op == "write":
        return "rand_write" if random else "seq_write"
    return "rand_read" if random else "seq_read"


def _ior_value(phase, mib_s, ops_s):
    return ops_s if is_random(phase) else mib_s * 1048576.0


def _parse_ior_json(path, text, start_line):
    start = text.index("{")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as e:
        raise ParseError(path, start_line + text[:start + e.pos].count("\n"), f"valid IOR JSON ({e.msg})") from None
    if "summary" not in doc or "tests" not in doc:
        raise ParseError(path, start_line, "an IOR JSON summary with 'tests' and 'summary'")
    ordering = {}
    for t in doc["tests"]:
        opts = t.get("Options", {})
        ordering[t.get("TestID")] = opts.get("ordering in a file") == "random"
    out = []
    for s in doc["summary"]:
        op = s.get("operation")
        if op not in IOR_OPS:
            continue
        phase = _ior_phase(op, ordering.get(s.get("TestID")), s.get("transferSize"))
        out.append(Result("ior", phase, int(s["numTasks"]), _ior_value(phase, s["bwMeanMIB"], s["OPsMean"]),
                          unit_of(phase), "mean", path, start_line))
    return out


_SUMMARY_HEAD = re.compile(r"^Operation\s+Max\(MiB\)\s+Min\(MiB\)\s+Mean\(MiB\)")
_ORDERING = re.compile(r"^ordering in a file\s*:\s*(\w+)")
_TESTID = re.compile(r"^TestID\s*:\s*(\d+)")
_CSV_HEAD = "access,bw(MiB/s),IOPS"


def parse_ior(path, text=None):
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    results = []
    json_line = next((i for i, l in enumerate(lines, 1) if l.strip() == "{"), None)
    if json_line is not None and '"summary"' in text:
        results += _parse_ior_json(path, "\n".join(lines[json_line - 1:]), json_line)
    ordering, test_id = {}, 0
    header = None
    csv_cols = None
    for i, line in enumerate(lines, 1):
        m = _TESTID.match(line)
        if m:
            test_id = int(m.group(1))
        m = _ORDERING.match(line)
        if m:
            ordering[test_id] = m.group(1) == "random"
        if _SUMMARY_HEAD.match(line):
            header = line.split()
            continue
        if header is not None:
            cells = line.split()
            if not cells or cells[0] not in ("write", "read"):
                if cells and cells[0] in ("Finished", "remove"):
                    header = None
                elif cells:
                    header = None
                continue
            try:
                col = {name: idx for idx, name in enumerate(header)}
                for name in ("Max(MiB)", "Min(MiB)", "Max(OPs)", "Min(OPs)", "Mean(s)"):
                    float(cells[col[name]])  # the whole row must be numbers, not only what is used
                mean_mib = float(cells[col["Mean(MiB)"]])
                mean_ops = float(cells[col["Mean(OPs)"]])
                tid = int(cells[col["Test#"]])
                tasks = int(cells[col["#Tasks"]])
                xsize = int(cells[col["xsize"]])
            except (KeyError, ValueError, IndexError):
                raise ParseError(path, i, "a row of IOR's 'Summary of all tests' table "
                                          "(operation, Max/Min/Mean MiB, OPs, Test#, #Tasks, xsize)") from None
            phase = _ior_phase(cells[0], ordering.get(tid), xsize)
            results.append(Result("ior", phase, tasks, _ior_value(phase, mean_mib, mean_ops), unit_of(phase), "mean", path, i))
            continue
        if line.startswith(_CSV_HEAD):
            csv_cols = line.split(",")
            continue
        if csv_cols is not None:
            cells = line.split(",")
            if len(cells) != len(csv_cols) or cells[0] not in ("write", "read"):
                csv_cols = None
                continue
            try:
                row = dict(zip(csv_cols, cells))
                xfer = float(row["xfer(KiB)"]) * 1024
                phase = _ior_phase(cells[0], None, xfer)
                results.append(Result("ior", phase, int(row["numTasks"]),
                                      _ior_value(phase, float(row["bw(MiB/s)"]), float(row["IOPS"])),
                                      unit_of(phase), "mean", path, i))
            except (KeyError, ValueError):
                raise ParseError(path, i, "an IOR CSV row (access, bw(MiB/s), IOPS, ..., numTasks, iter)") from None
    if not results:
        raise ParseError(path, len(lines), "IOR results: a 'Summary of all tests' table, a JSON summary "
                                           "(-O summaryFormat=JSON) or CSV rows (-O summaryFormat=CSV)")
    return results


def parse_any(path):
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        raise ParseError(path, 0, f"a readable file ({e.strerror})") from None
    if looks_like_ior(text):
        return parse_ior(path, text)
    if looks_like_iozone(text):
        return parse_iozone(path, text)
    first = next((i for i, l in enumerate(text.splitlines(), 1) if l.strip()), 1)
    raise ParseError(path, first, "IOzone or IOR output")


# ------------------------------------------------------------------------------ comparison

TOOL_PHASES = set(IOZONE_PHASES.values())


def iosweep_rows(summary, run_id, rand_record):
    """(phase, threads) -> (wall, children) in iosweep's units, for the run's phases that IOzone
    and IOR also measure."""
    rows = {}
    s = summary[summary["run_id"] == run_id]
    for phase in s["phase_name"].unique():
        if phase not in TOOL_PHASES:
            continue
        for k in sorted(s[s["phase_name"] == phase]["ranks"].unique()):
            d = s[(s["phase_name"] == phase) & (s["ranks"] == k)]
            if is_random(phase):
                wall = d["iops"].mean()
                children = (d["iozone_children_Bps"] / rand_record).mean()
            else:
                wall = d["bandwidth_Bps"].mean()
                children = d["iozone_children_Bps"].mean()
            rows[(phase, int(k))] = (wall, children)
    return rows


def compare(summary, run_id, rand_record, results, phases):
    """One row per (phase, threads) found anywhere: iosweep wall and children, IOzone, IOR.
    `phases` is {name: value} of the results file's phase enum (iosweep_common.phases): rows
    follow its order."""
    mine = iosweep_rows(summary, run_id, rand_record)
    keys = set(mine)
    by = {}
    for r in results:
        if r.kind == "parent":
            continue
        by.setdefault((r.tool, r.phase, r.threads), []).append(r.value)
        keys.add((r.phase, r.threads))
    table = []
    for phase, k in sorted(keys, key=lambda x: (phases[x[0]], x[1])):
        wall, children = mine.get((phase, k), (None, None))
        ioz = by.get(("iozone", phase, k))
        ior = by.get(("ior", phase, k))
        ioz_v = sum(ioz) / len(ioz) if ioz else None
        ior_v = sum(ior) / len(ior) if ior else None
        scale = 1.0 if is_random(phase) else 1.0 / 1048576.0
        unit = "ops/s" if is_random(phase) else "MiB/s"
        table.append({
            "phase": phase, "threads": k, "unit": unit,
            "iosweep_wall": None if wall is None else wall * scale,
            "iosweep_children": None if children is None else children * scale,
            "iozone_children": None if ioz_v is None else ioz_v * scale,
            "ior": None if ior_v is None else ior_v * scale,
            "ratio_vs_iozone": (children / ioz_v) if children and ioz_v else None,
            "ratio_vs_ior": (wall / ior_v) if wall and ior_v else None,
        })
    return table
