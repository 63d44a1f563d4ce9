"""The parser of IOR outputs, and the comparison table of IOzone and IOR results against an
iosweep run. IOzone's parser is iosweep_iozone; both return the Result records of
iosweep_tool_result and raise its ParseError.
"""
import json
import os
import re
import stat

from iosweep_common import is_control, is_random, record_bytes, size_text, sweep_axis
from iosweep_iozone import IOZONE_PHASES, looks_like_iozone, parse_iozone
from iosweep_tool_result import ParseError, Result, unit_of

# Not used here; callers and tests read them as ic.NAME.
from iosweep_iozone import iozone_settings  # noqa: F401

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


def parse_ior(path, text=None):
    if text is None:
        text = open(path, errors="replace").read()
    lines = text.splitlines()
    direct = ior_direct(text)
    results = []
    json_line = next((i for i, l in enumerate(lines, 1) if l.strip() == "{"), None)
    if json_line is not None and '"summary"' in text:
        results += _parse_ior_json(path, "\n".join(lines[json_line - 1 :]), json_line, direct)
    ordering, test_id = {}, 0
    header = None
    csv_cols = None
    context = _IorContext()
    for i, line in enumerate(lines, 1):
        context.see(line)
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
                cell = lambda name: int(cells[col[name]]) if name in col else None  # noqa: E731
                fpp = cell("fPP")
                size = _ior_file(
                    cell("blksiz") or context.block,
                    context.segments if cell("segcnt") is None else cell("segcnt"),
                    context.fpp if fpp is None else bool(fpp),
                    tasks,
                )
            except (KeyError, ValueError, IndexError):
                raise ParseError(
                    path,
                    i,
                    (
                        "a row of IOR's 'Summary of all tests' table "
                        "(operation, Max/Min/Mean MiB, OPs, Test#, #Tasks, xsize)"
                    ),
                ) from None
            phase = _ior_phase(cells[0], ordering.get(tid), xsize)
            fpp = context.fpp if fpp is None else bool(fpp)
            results.append(
                Result(
                    "ior",
                    phase,
                    tasks,
                    _ior_value(phase, mean_mib, mean_ops),
                    unit_of(phase),
                    "mean",
                    path,
                    i,
                    xsize,
                    size,
                    direct,
                    shared=None if fpp is None else not fpp,
                )
            )
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
                xfer = round(float(row["xfer(KiB)"]) * 1024)
                block = round(float(row["block(KiB)"]) * 1024)
                tasks = int(row["numTasks"])
                phase = _ior_phase(cells[0], None, xfer)
                results.append(
                    Result(
                        "ior",
                        phase,
                        tasks,
                        _ior_value(phase, float(row["bw(MiB/s)"]), float(row["IOPS"])),
                        unit_of(phase),
                        "mean",
                        path,
                        i,
                        xfer,
                        _ior_file(block, context.segments, context.fpp, tasks),
                        direct,
                        shared=None if context.fpp is None else not context.fpp,
                    )
                )
            except (KeyError, ValueError):
                raise ParseError(
                    path, i, "an IOR CSV row (access, bw(MiB/s), IOPS, ..., numTasks, iter)"
                ) from None
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


MAX_OUTPUT_BYTES = 256 << 20  # an IOzone or IOR output larger than this is not one


def parse_any(path):
    """The Results of an IOzone or IOR output, recognised by its content. Only a regular file of
    at most MAX_OUTPUT_BYTES is read (a FIFO or /dev/zero would never end)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ParseError(path, 0, "a regular file (an IOzone or IOR output)")
        if st.st_size > MAX_OUTPUT_BYTES:
            raise ParseError(path, 0, f"an output of at most {MAX_OUTPUT_BYTES >> 20} MiB")
        with open(path, errors="replace") as fh:
            text = fh.read(MAX_OUTPUT_BYTES + 1)
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

# iosweep's three figures, each with the definition it shares with the other tools.
FIGURES = {
    "wall": "all bytes / the slowest rank's time (IOR's bandwidth; bandwidth_Bps, iops)",
    "children": (
        "sum over ranks of each rank's bytes / its own time (IOzone's \"Children see\" "
        "only with -x, stonewalling off; children_Bps)"
    ),
    "iozone_children": (
        "sum over ranks of the bytes each had moved when the first rank finished / "
        'that time (IOzone\'s default, stonewalled "Children see"; iozone_children_Bps)'
    ),
}


def iosweep_rows(summary, run):
    """(phase, threads) -> {wall, children, iozone_children, record_bytes, file_bytes, direct} in
    iosweep's units (bytes/s, or ops/s for random phases), for the run's phases that IOzone and
    IOR also measure; repetitions are averaged. `run` maps the run's attributes (a row of
    iosweep_load's runs). Threads are the run's active ranks, or its streams (ranks x depth) for
    a run of --streams (sweep_axis). Control phases (scan_only) have no counterpart and are left
    out."""
    rows = {}
    s = summary[summary["run_id"] == run["run_id"]]
    axis = sweep_axis(run)
    for phase in s["phase_name"].unique():
        if phase not in TOOL_PHASES or is_control(phase):
            continue
        record = record_bytes(run, phase)
        for k in sorted(s[s["phase_name"] == phase][axis].unique()):
            d = s[(s["phase_name"] == phase) & (s[axis] == k)]
            if is_random(phase):
                per_op = record or float("nan")
                figs = {
                    "wall": d["iops"].mean(),
                    "children": (d["children_Bps"] / per_op).mean(),
                    "iozone_children": (d["iozone_children_Bps"] / per_op).mean(),
                }
            else:
                figs = {
                    "wall": d["bandwidth_Bps"].mean(),
                    "children": d["children_Bps"].mean(),
                    "iozone_children": d["iozone_children_Bps"].mean(),
                }
            # A shared file is the k ranks' regions, as IOR counts its shared file.
            shared = str(run.get("file_layout") or "per-rank") == "shared"
            size = _int_or_none(run.get("file_size_bytes"))
            figs.update(
                record_bytes=record,
                file_bytes=None if size is None else size * (int(k) if shared else 1),
                direct=None if run.get("direct") is None else bool(int(run["direct"])),
                shared=shared,
            )
            rows[(phase, int(k))] = figs
    return rows


def _int_or_none(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def differences(mine, r):
    """What differs between an iosweep row and a Result: "record", "file", "O_DIRECT", "layout"
    (one shared file against one file per thread); a setting the other side does not state counts
    as different."""
    out = []
    if r.record_bytes is None or r.record_bytes != mine["record_bytes"]:
        out.append("record")
    if r.file_bytes is None or r.file_bytes != mine["file_bytes"]:
        out.append("file")
    if r.direct is None or mine["direct"] is None or r.direct != mine["direct"]:
        out.append("O_DIRECT")
    if r.shared is None or r.shared != mine.get("shared", False):
        out.append("layout")
    return out


def sources(results):
    """The distinct sources among `results`: one per (tool, record size, file size, O_DIRECT,
    stonewalling), in order of first appearance, each {id, tool, files, record_bytes, file_bytes,
    direct, stonewall}. Results of one source for one (phase, threads) are averaged."""
    out = {}
    for r in results:
        src = out.setdefault(
            source_key(r),
            {
                "id": len(out) + 1,
                "tool": r.tool,
                "files": [],
                "record_bytes": r.record_bytes,
                "file_bytes": r.file_bytes,
                "direct": r.direct,
                "stonewall": r.stonewall,
                "shared": r.shared,
            },
        )
        if r.file not in src["files"]:
            src["files"].append(r.file)
    return list(out.values())


def source_key(r):
    return (r.tool, r.record_bytes, r.file_bytes, r.direct, r.stonewall, r.shared)


def compare(summary, run, results, phases, loose=False):
    """The comparison table: one row per (phase, threads, source), and one per (phase, threads)
    of the run that no source measured. A source's figure sits beside the iosweep figure of the
    same definition (Result.counterpart); their ratio iosweep / source is given only when record
    size, file size and O_DIRECT are the same on both sides (`match` "="), or with `loose`.
    `phases` is {name: value} of the results file's phase enum (iosweep_common.phases): rows
    follow its order. Returns (rows, sources)."""
    mine = iosweep_rows(summary, run)
    srcs = sources([r for r in results if r.kind != "parent"])
    src_id = {
        (
            s["tool"],
            s["record_bytes"],
            s["file_bytes"],
            s["direct"],
            s["stonewall"],
            s["shared"],
        ): s["id"]
        for s in srcs
    }
    by = {}
    for r in results:
        if r.kind == "parent" or is_control(r.phase):
            continue
        by.setdefault((r.phase, r.threads), {}).setdefault(src_id[source_key(r)], []).append(r)
    keys = set(mine) | set(by)
    order = lambda key: (phases.get(key[0], len(phases)), key[1])  # noqa: E731
    table = []
    for phase, k in sorted(keys, key=order):
        scale = 1.0 if is_random(phase) else 1.0 / 1048576.0
        m = mine.get((phase, k))
        base = {"phase": phase, "threads": k, "unit": "ops/s" if is_random(phase) else "MiB/s"}
        for fig in FIGURES:
            base[f"iosweep_{fig}"] = None if m is None or m[fig] != m[fig] else m[fig] * scale
        for x in ("record_bytes", "file_bytes", "direct"):
            base[f"iosweep_{x}"] = None if m is None else m[x]
        groups = by.get((phase, k), {})
        if not groups:
            table.append(
                dict(
                    base,
                    source=None,
                    source_id=None,
                    source_files=None,
                    source_figure=None,
                    source_value=None,
                    source_record_bytes=None,
                    source_file_bytes=None,
                    source_direct=None,
                    compared_with=None,
                    match=None,
                    ratio=None,
                )
            )
        for sid in sorted(groups):
            rs = groups[sid]
            r = rs[0]
            value = sum(x.value for x in rs) / len(rs)
            src = srcs[sid - 1]
            row = dict(
                base,
                source=f"{'IOzone' if r.tool == 'iozone' else 'IOR'}[{sid}]",
                source_id=sid,
                source_files="; ".join(src["files"]),
                source_figure=r.figure,
                source_value=value * scale,
                source_record_bytes=r.record_bytes,
                source_file_bytes=r.file_bytes,
                source_direct=r.direct,
                compared_with=r.counterpart,
                match=None,
                ratio=None,
            )
            if m is not None:
                diff = differences(m, r)
                row["match"] = "=" if not diff else "≠ " + ",".join(diff)
                ours = m[r.counterpart]
                if (not diff or loose) and ours == ours and ours and value:
                    row["ratio"] = ours / value
            table.append(row)
    return table, srcs


def settings_text(record_bytes, file_bytes, direct, stonewall=None, shared=False):
    """'record 4 KiB, file 64 MiB, O_DIRECT no' ('?' for what is not stated)."""
    d = "?" if direct is None else ("yes" if direct else "no")
    layout = "layout ?" if shared is None else ("one shared file" if shared else "file per thread")
    out = f"record {size_text(record_bytes)}, file {size_text(file_bytes)} ({layout}), O_DIRECT {d}"
    if stonewall is not None:
        out += ", stonewalled" if stonewall else ", not stonewalled (-x)"
    return out
