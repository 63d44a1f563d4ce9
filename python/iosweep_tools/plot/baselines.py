"""The published figures iosweep-plot draws beside a run (results/baselines/*.csv): read and
checked, and what keeps one from being the run's kind of measurement.

    rows = load_baselines("results/baselines")     # Stop naming the file and line of a bad row
    baseline_differences(row, run_attrs)           # [], or "record", "file"
"""
import csv
import glob
import math
import os
import re

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.files import input_file
from iosweep_tools.core.text import shown
from iosweep_tools.results.names import name_of, record_bytes

MAX_CSV_BYTES = 16 << 20  # a CSV of published figures
MAX_THREADS = 1 << 20  # threads of a published figure


def _bad(path, i, why):
    raise Stop(f"--baselines-dir: {path}: line {i}: {why}")


def _optional_int(r, key, path, i):
    v = r.get(key)
    v = v.strip() if isinstance(v, str) else ""
    if not v:
        return None
    if not re.fullmatch(r"[0-9]{1,20}", v) or int(v) == 0:
        _bad(path, i, f"expected {key} as a positive byte count or empty (found {shown(v)})")
    return int(v)


def _baseline(r, path, i):
    """One published figure of a CSV row, every field checked."""
    if None in r or any(r.get(k) is None for k in ("source", "phase", "threads", "value", "unit")):
        _bad(path, i, "expected source,system,phase,threads,value,unit[,record_bytes,file_bytes]")
    threads = r["threads"].strip()
    if not re.fullmatch(r"[0-9]{1,8}", threads) or not 1 <= int(threads) <= MAX_THREADS:
        _bad(path, i, f"expected threads from 1 to {MAX_THREADS} (found {shown(threads)})")
    try:
        v = float(r["value"])
    except ValueError:
        v = math.nan
    if not math.isfinite(v) or v < 0:
        _bad(path, i, f"expected value as a finite number >= 0 (found {shown(r['value'])})")
    unit = r["unit"]
    if unit == "GB/s":
        v = v * 1e9 / 1048576.0
    elif unit not in ("MiB/s", "ops/s"):
        _bad(path, i, f"expected a unit of ops/s, MiB/s or GB/s (found {shown(unit)})")
    return {
        "source": r["source"],
        "phase": name_of(r["phase"].strip()),  # rand-write; rand_write read as it
        "threads": int(threads),
        "value": v,
        "record_bytes": _optional_int(r, "record_bytes", path, i),
        "file_bytes": _optional_int(r, "file_bytes", path, i),
    }


def load_baselines(folder):
    """Published figures: [{source, phase, threads, value (MiB/s or ops/s), record_bytes,
    file_bytes}], the last two None where the CSV does not state them. Every *.csv of `folder`
    must be a regular UTF-8 file of at most MAX_CSV_BYTES; a bad row stops with its line."""
    rows = []
    for path in sorted(glob.glob(os.path.join(glob.escape(folder), "*.csv"))):
        input_file("--baselines-dir", path, MAX_CSV_BYTES)
        i = 1
        try:
            with open(path, encoding="utf-8", newline="") as f:
                for i, r in enumerate(csv.DictReader(f), 2):
                    rows.append(_baseline(r, path, i))
        except (csv.Error, UnicodeError) as e:
            _bad(path, i + 1, f"not a CSV of UTF-8 text ({e})")
        except OSError as e:
            raise Stop(f"--baselines-dir: {shown(path)}: {e.strerror}")
    return rows


def baseline_differences(b, run):
    """What keeps a published figure from being the run's kind of measurement: "record" (not
    stated, or another size than the run's for that phase), "file" (stated and different)."""
    out = []
    if b["record_bytes"] is None or b["record_bytes"] != record_bytes(run, b["phase"]):
        out.append("record")
    if b["file_bytes"] is not None and b["file_bytes"] != int(run.get("file_size_bytes") or 0):
        out.append("file")
    return out
