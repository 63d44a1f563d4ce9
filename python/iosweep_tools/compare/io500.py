"""IO500 results side by side: the io500 application's result folder (or its
result_summary.txt alone) and an iosweep IO500 run (its result folder, or the results file of
`iosweep io500`, whose run names the folder), phase by phase and score by score.

Both sides are read as they were written: the `[RESULT]` and `[      ]` lines (phase, score,
unit, time, [INVALID]) and the `[SCORE ]` line (Bandwidth GiB/s, IOPS kiops, TOTAL). Nothing is
recomputed: B / A is the ratio of the two printed figures. A phase one side lacks is listed
with no ratio. The summaries of the io500 script before 2020 (`[RESULT] BW   phase 1
ior_easy_write  8.581 GB/s : time 58.27 seconds`, `[SCORE] Bandwidth ... GB/s`) are read too,
their names with hyphens as today's and their bandwidth in the unit they print (GB/s): a figure
whose unit differs from the other side's gets no ratio."""
import csv
import io
import math
import os
import re

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import csv_text_cell

SUMMARY = "result_summary.txt"
MAX_BYTES = 1 << 20
RESULT = re.compile(
    r"^\[(RESULT|      )\] +(\S+) +([0-9.eE+-]+|nan|inf|-nan) (GiB/s|kIOPS) : time ([0-9.]+)"
    r" seconds( \[INVALID\])?\s*$"
)
SCORE = re.compile(
    r"^\[SCORE \] Bandwidth ([0-9.eE+-]+) GiB/s : IOPS ([0-9.eE+-]+) kiops : TOTAL "
    r"([0-9.eE+-]+)( \[INVALID\])?\s*$"
)
# The io500 script's summary before the 2020 application (ISC19, SC19).
OLD_RESULT = re.compile(
    r"^\[RESULT\] +(?:BW|IOPS) +phase +\d+ +(\w+) +([0-9.eE+-]+|nan|inf|-nan) (GB/s|GiB/s|kiops) : "
    r"time +([0-9.]+) seconds\s*$"
)
OLD_SCORE = re.compile(
    r"^\[SCORE\] Bandwidth ([0-9.eE+-]+) (GB/s|GiB/s) : IOPS ([0-9.eE+-]+) kiops : TOTAL "
    r"([0-9.eE+-]+)\s*$"
)
OLD_UNIT = {"GB/s": "GB/s", "GiB/s": "GiB/s", "kiops": "kIOPS"}
SCORE_UNITS = {"BW": "GiB/s", "MD": "kIOPS", "TOTAL": "TOTAL GiB/s"}  # as figures() names them


def is_io500(path):
    """True for a folder holding result_summary.txt, or a file whose text has IO500 lines."""
    if os.path.isdir(path):
        return os.path.isfile(os.path.join(path, SUMMARY))
    if not os.path.isfile(path):  # a FIFO or a device is never read (it may never end)
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return head.startswith("IO500 version") or any(
        RESULT.match(ln) or OLD_RESULT.match(ln) for ln in head.splitlines()
    )


def summary_path(path):
    """The result_summary.txt of a result folder, or the file itself."""
    return os.path.join(path, SUMMARY) if os.path.isdir(path) else path


def parse(path):
    """{"phases": {name: (score, unit, time_s, scored, invalid)}, "score": (bw, md, total,
    invalid) or None, "source": path}; Stop in one line when the file holds no IO500 line."""
    p = summary_path(path)
    if not os.path.isfile(p):
        raise Stop(f"'{p}': not a regular file (an IO500 result_summary.txt)")
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise Stop(f"'{p}': {e.strerror}") from None
    if len(data) > MAX_BYTES:
        raise Stop(f"'{p}': more than 1 MiB, not an IO500 result_summary.txt")
    phases, score = {}, None
    for line in data.decode("utf-8", "replace").splitlines():
        if m := RESULT.match(line):
            phases[m.group(2)] = (
                float(m.group(3)),
                m.group(4),
                float(m.group(5)),
                m.group(1) == "RESULT",
                bool(m.group(6)),
            )
        elif m := OLD_RESULT.match(line):
            name, unit = m.group(1).replace("_", "-"), OLD_UNIT[m.group(3)]
            phases[name] = (float(m.group(2)), unit, float(m.group(4)), True, False)
        elif m := SCORE.match(line):
            score = (float(m.group(1)), float(m.group(2)), float(m.group(3)), bool(m.group(4)))
        elif m := OLD_SCORE.match(line):
            bw, unit, md, total = m.groups()
            score = (float(bw), float(md), float(total), False, unit)
    if not phases:
        raise Stop(f"'{p}': no IO500 [RESULT] line in it (not an IO500 result_summary.txt)")
    return {"phases": phases, "score": score, "source": p}


def folder_of_run(run):
    """The result folder an iosweep IO500 run wrote (the folder of its timestamp file, which its
    timestamp and find steps record as find_newer); Stop when the run is not an IO500 run."""
    for step in run.steps:
        newer = step["attrs"].get("find_newer")
        if isinstance(newer, bytes):
            newer = newer.decode()
        if newer:
            return os.path.dirname(newer)
    raise Stop(f"run {run.id} is not an IO500 run (iosweep io500): it has no timestamp step")


def ratio(a, b):
    """B / A of two printed figures; none when either is not a finite figure or A is not above 0."""
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
        return None
    return b / a


def table(a, b):
    """Rows (name, unit, A, B, B/A, note) in A's phase order then B's extra ones, then BW, MD
    and TOTAL."""
    rows = []
    names = list(a["phases"]) + [n for n in b["phases"] if n not in a["phases"]]
    for name in names:
        pa, pb = a["phases"].get(name), b["phases"].get(name)
        unit = (pa or pb)[1]
        va = pa[0] if pa else None
        vb = pb[0] if pb else None
        notes = [f"{side} INVALID" for side, p in (("A", pa), ("B", pb)) if p is not None and p[4]]
        r = ratio(va, vb) if pa and pb else None
        if pa and pb and pa[1] != pb[1]:
            unit, r = f"{pa[1]}|{pb[1]}", None
            notes.append(f"units differ: A in {pa[1]}, B in {pb[1]}")
        if pa is None or pb is None:
            notes = ["only in " + ("B" if pa is None else "A")]
        rows.append((name, unit, va, vb, r, ", ".join(notes)))
    return rows + score_rows(a["score"], b["score"])


def bandwidth_unit(score):
    """The unit a parsed [SCORE] line printed its bandwidth in (GB/s only before 2020)."""
    return score[4] if score and len(score) > 4 else "GiB/s"


def figures(summary):
    """{name: (figure, unit)} of a parsed summary: its phases, then BW, MD and TOTAL (TOTAL's
    unit is its bandwidth's: a TOTAL from GB/s is not one from GiB/s)."""
    out = {n: (p[0], p[1]) for n, p in summary["phases"].items()}
    sc = summary["score"]
    if sc:
        bw = bandwidth_unit(sc)
        out.update({"BW": (sc[0], bw), "MD": (sc[1], "kIOPS"), "TOTAL": (sc[2], "TOTAL " + bw)})
    return out


def score_rows(sa, sb):
    """BW, MD and TOTAL; a bandwidth printed as GB/s (the io500 script before 2020) is no
    ratio to one in GiB/s, nor the TOTAL made from it."""
    bw_a, bw_b = bandwidth_unit(sa), bandwidth_unit(sb)
    rows = []
    for i, (name, unit) in enumerate((("BW", "GiB/s"), ("MD", "kIOPS"), ("TOTAL", ""))):
        va = sa[i] if sa else None
        vb = sb[i] if sb else None
        r, note = ratio(va, vb), ""
        if i != 1 and bw_a != bw_b:
            r, note = None, f"bandwidth units differ: A in {bw_a}, B in {bw_b}"
        if i == 0 and bw_a == bw_b:
            unit = bw_a
        rows.append((name, unit, va, vb, r, note))
    return rows


def text(a, b):
    def num(v):
        return "-" if v is None else f"{v:.6f}"

    out = [f"A: {a['source']}", f"B: {b['source']}", ""]
    out.append(f"{'phase':<22} {'unit':<6} {'A':>14} {'B':>14} {'B/A':>7}  note")
    for name, unit, va, vb, r, note in table(a, b):
        if name == "BW":
            out.append("")
        rs = "-" if r is None else f"{r:.3f}"
        out.append(f"{name:<22} {unit:<6} {num(va):>14} {num(vb):>14} {rs:>7}  {note}".rstrip())
    for side, x in (("A", a), ("B", b)):
        if x["score"] is None:
            out.append(f"{side} has no [SCORE ] line (a run that did not end)")
        elif x["score"][3]:
            out.append(f"{side}'s score is marked [INVALID]")
    return "\n".join(out) + "\n"


def csv_text(a, b):
    """The table as CSV: figures exact (repr), text cells quoted where they hold a comma and kept
    text for a spreadsheet (a phase name from a file is the file's, whatever it begins with)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["phase", "unit", "A", "B", "ratio", "note"])
    for name, unit, va, vb, r, note in table(a, b):
        figures = ["" if v is None else repr(v) for v in (va, vb, r)]
        w.writerow([csv_text_cell(name), csv_text_cell(unit)] + figures + [csv_text_cell(note)])
    return buf.getvalue()


REPETITION = re.compile(
    r"^\[MEDIAN\] +(\S+) +([0-9.eE+-]+) +\S* *\[([0-9.eE+-]+), ([0-9.eE+-]+)\] over (\d+)\s*$"
)


def parse_repetitions(folder):
    """{name: (median, low, high, n)} of the result_repetitions.txt `iosweep io500
    --repetitions N` wrote in `folder`; {} when there is none."""
    path = os.path.join(folder, "result_repetitions.txt")
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)
    except OSError:
        return {}
    out = {}
    for line in data.decode("utf-8", "replace").splitlines():
        if m := REPETITION.match(line):
            out[m.group(1)] = tuple(float(m.group(i)) for i in (2, 3, 4)) + (int(m.group(5)),)
    return out


PHASE_FIGURES = (
    "window_s",
    "first_done_s",
    "tail_s",
    "wearout_s",
    "wearout_share",
    "lat_p50_us",
    "lat_p99_us",
    "lat_p999_us",
    "lat_max_us",
)


def _phase_row(head, line):
    """One line of result_phases.txt as a dict, or None when it is not one."""
    cells = dict(zip(head, line.split("\t")))
    if len(cells) != len(head) or not cells.get("phase"):
        return None
    try:
        for k in PHASE_FIGURES:
            cells[k] = float(cells[k])
        cells["repetition"] = int(cells["repetition"])
    except (KeyError, ValueError):
        return None
    return cells


def parse_phases(folder):
    """[row, ...] of the result_phases.txt `iosweep io500` wrote in `folder` (each phase's
    window, straggler tail, wear-out, latency percentiles and notes, as the binary wrote them),
    in its order; [] when there is none or it is not one."""
    path = os.path.join(folder, "result_phases.txt")
    if not os.path.isfile(path):
        return []
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)
    except OSError:
        return []
    lines = [ln for ln in data.decode("utf-8", "replace").splitlines() if not ln.startswith("#")]
    if not lines or not lines[0].startswith("phase\t"):
        return []
    head = lines[0].split("\t")
    return [r for ln in lines[1:] if (r := _phase_row(head, ln)) is not None]
