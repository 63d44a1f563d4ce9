"""One iosweep run against another: B / A for every (phase, point) both ran with the same
settings, with a bootstrap 95% interval over repetitions and a verdict.

    from iosweep_tools.results.reader import read
    cmp = compare(read("a.h5"), read("b.h5"))
    cmp.rows, cmp.differences, below(cmp, 0.9)

A point is a (phase, active ranks, depth per rank) that both runs measured; its figure is the
phase's headline (bandwidth_Bps for sequential and scan phases, iops for random and metadata
ones, from the phase table's flags), one value per repetition. The ratio is mean(B) / mean(A).
The interval resamples each side's repetitions with replacement (`resamples` times, numpy's PCG64
seeded with `seed` and the point, so the same files give the same intervals) and takes the 2.5th
and 97.5th percentiles of the resampled ratios of means. With one repetition on a side that side
has no spread: the interval is degenerate there and the row says so. Verdict: "faster" when the
interval lies above 1, "slower" below 1, "within noise" when it contains 1.

Settings that decide what a figure means (record sizes, file size, engine, depth, O_DIRECT,
cache, fsync phases, layout, the number of --dir folders, ..., from the run attributes, and any
other option of the `config` TOML) are compared; where they differ the rows they apply to are listed
and not compared unless `loose`. A point whose rows used different node counts is not compared
either. Control phases (scan_only) are compared as any phase: they are measurements too.
"""
import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from iosweep_tools.core.cmdline import count, value
from iosweep_tools.core.text import size_text
from iosweep_tools.results.file import ResultsError
from iosweep_tools.results.names import record_attr

DEFAULT_RESAMPLES = 2000
MAX_RESAMPLES = 100000
DEFAULT_SEED = 20240601
# Bootstrap work allowed: resamples x repetitions summed over the points of both runs.
MAX_WORK = 200_000_000


def _phase_list(v):
    return {p.strip().replace("_", "-") for p in str(v or "").split(",") if p.strip()}


def _all(phase, run):
    return True


def _record(attr):
    return lambda phase, run: record_attr(phase, run.attrs) == attr


def _counting(phase, run):
    return "counts" in run.flags(phase)


def _data(phase, run):
    """A phase that reads or writes files (not a metadata phase)."""
    return "metadata" not in run.flags(phase)


def _metadata(phase, run):
    return "metadata" in run.flags(phase)


def _folder_count(v):
    """The number of folders of a run's `dir` attribute (the folders joined by commas)."""
    return len([f for f in str(v).split(",") if f]) if v is not None else None


# Settings compared through what they mean rather than as stored.
COMPARED_AS = {"dir": _folder_count}


# (what, run attribute, the phases it applies to, how to show a value)
SETTINGS = [
    ("file size", "file_size_bytes", _data, size_text),
    ("sequential record", "seq_record_bytes", _record("seq_record_bytes"), size_text),
    ("random record", "rand_record_bytes", _record("rand_record_bytes"), size_text),
    ("scan record", "scan_record_bytes", _record("scan_record_bytes"), size_text),
    ("engine", "engine_name", _all, str),
    ("engine set-up", "engine_detail", _all, str),
    ("--iodepth", "iodepth", _all, str),
    ("--iodepth-batch", "iodepth_batch", _all, str),
    ("sweep axis", "sweep_axis", _all, str),
    ("O_DIRECT", "direct", _all, str),
    ("cache", "cache", _all, str),
    ("read shift", "read_shift", _all, str),
    ("fsync phases", "fsync_phases", None, str),
    ("preallocate", "preallocate", lambda p, r: "creates" in r.flags(p), str),
    ("hugepages", "hugepages", _all, str),
    ("file layout", "file_layout", _all, str),
    ("shared pattern", "shared_pattern", _all, str),
    ("collective MPI-IO", "mpiio_collective", _all, str),
    ("MPI-IO hints", "mpiio_hints", _all, str),
    ("placement", "placement", _all, str),
    ("stonewall", "stonewall_s", _all, str),
    ("stonewall wear-out", "stonewall_wearout", _all, str),
    ("verify", "verify", _all, str),
    ("pattern", "pattern_bytes", _all, size_text),
    ("filter every", "filter_every_words", _counting, str),
    ("filter kernel", "filter_kernel", _counting, str),
    ("collector", "collector", lambda p, r: p == "ship-count", str),
    ("file system", "fs_type", _all, str),
    # How many folders the ranks were spread over (one per drive: --dir a,b,...). The folders'
    # own paths are not a setting: a rerun in another folder of the same file system measures
    # the same thing, and the file system itself is compared above.
    ("--dir folders", "dir", _all, _folder_count),
    # The metadata phases' items and trees (results/README.md, "Metadata phases").
    ("metadata items per rank", "md_items", _metadata, str),
    ("metadata items in all", "md_items_total", _metadata, str),
    ("items per folder", "md_items_per_folder", _metadata, str),
    ("tree depth", "md_depth", _metadata, str),
    ("tree branch", "md_branch", _metadata, str),
    ("items in", "md_files", _metadata, str),
    ("metadata layout", "md_layout", _metadata, str),
    ("bytes written per item", "md_write_bytes", _metadata, size_text),
    ("bytes read per item", "md_read_bytes", _metadata, size_text),
    ("fsync per item", "md_fsync", _metadata, str),
]
# Options of the `config` TOML already compared through the attributes above, and those that do
# not change what a point measures (names, output, the sweep itself: points are matched one by
# one, and the data's seed: the data is incompressible whatever it is).
CONFIG_COVERED = {
    "file-size",
    "seq-record",
    "rand-record",
    "scan-record",
    "engine",
    "iodepth",
    "iodepth-batch",
    "direct",
    "cache",
    "read-shift",
    "fsync",
    "preallocate",
    "hugepages",
    "file-layout",
    "shared-pattern",
    "mpiio-collective",
    "mpiio-hint",
    "placement",
    "stonewall",
    "stonewall-wearout",
    "verify",
    "filter-every",
    "filter-kernel",
    "collector",
    "dir",
    "md-items",
    "md-items-total",
    "md-items-per-folder",
    "md-depth",
    "md-branch",
    "md-files",
    "md-layout",
    "md-write-bytes",
    "md-read-bytes",
    "md-fsync",
}
CONFIG_IGNORED = {
    "version",
    "output",
    "label",
    "keep",
    "quiet",
    "dry-run",
    "format",
    "show-controls",
    "force",
    "rerun",
    "config",
    "ranks",
    "sweep",
    "streams",
    "phases",
    "repetitions",
    "timeseries-bin",
    "rated-bw",
    "seed",
    "order-seed",
    "reuse",
    "progress",
}


@dataclass
class Difference:
    what: str
    a: str
    b: str
    phases: set = field(default_factory=set)  # the phases of the rows it keeps from comparison


@dataclass
class Row:
    phase: str
    ranks: int
    iodepth: int
    streams: int
    unit: str
    field: str
    a: list
    b: list
    nodes_a: list
    nodes_b: list
    ratio: float = float("nan")
    lo: float = float("nan")
    hi: float = float("nan")
    interval_note: str = ""
    verdict: str = ""
    compared: bool = False
    differs: list = field(default_factory=list)

    @property
    def mean_a(self):
        return float(np.mean(self.a))

    @property
    def mean_b(self):
        return float(np.mean(self.b))


@dataclass
class Comparison:
    a: object
    b: object
    rows: list
    differences: list
    only_a: list
    only_b: list
    loose: bool
    resamples: int
    seed: int


def _shown(v, how):
    if v is None:
        return "not recorded"
    try:
        return how(v)
    except (TypeError, ValueError):
        return str(v)


def differences(a, b):
    """[Difference]: every setting that differs between runs `a` and `b` (results.reader.Run), with
    the phases of both runs it applies to."""
    phases = sorted(set(a.phases_present()) | set(b.phases_present()))
    out = []
    for what, attr, applies, how in SETTINGS:
        va, vb = a.attrs.get(attr), b.attrs.get(attr)
        same = COMPARED_AS.get(attr, lambda v: v)
        if same(va) == same(vb):
            continue
        if attr == "fsync_phases":
            if va is not None and vb is not None:
                hit = _phase_list(va) ^ _phase_list(vb)
                if not hit:
                    continue
            else:
                hit = set(phases)
        else:
            hit = {p for p in phases if applies(p, a) or applies(p, b)}
        if hit:
            out.append(Difference(what, _shown(va, how), _shown(vb, how), hit))
    ca, cb = a.config(), b.config()
    for key in sorted(set(ca) | set(cb)):
        if key in CONFIG_COVERED or key in CONFIG_IGNORED or ca.get(key) == cb.get(key):
            continue
        out.append(
            Difference(
                f"--{key}",
                "not given" if key not in ca else str(ca[key]),
                "not given" if key not in cb else str(cb[key]),
                set(phases),
            )
        )
    return out


def points(run):
    """{(phase, ranks, iodepth): (streams, [headline per repetition], [nodes per repetition])},
    in summary order."""
    s = run.summary
    names = s.dtype.names
    out = {}
    for i in range(len(s)):
        phase = run.phase_of_row(i)
        depth = int(s["iodepth"][i]) if "iodepth" in names else int(run.attrs.get("iodepth") or 1)
        k = int(s["ranks"][i])
        fld, _ = run.headline(phase)
        if fld not in names:
            raise ResultsError(f"'{run.path}' run {run.id}: summary has no field '{fld}'")
        streams = int(s["streams"][i]) if "streams" in names else k * depth
        nodes = int(s["nodes"][i]) if "nodes" in names else 0
        e = out.setdefault((phase, k, depth), (streams, [], []))
        e[1].append(float(s[fld][i]))
        e[2].append(nodes)
    return out


def _means(x, idx):
    return x[idx].mean(axis=1)


def bootstrap(a, b, resamples, rng):
    """(ratio of means, 2.5th and 97.5th percentiles of the resampled ratios of means)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ratio = float(b.mean() / a.mean())
    if len(a) == 1 and len(b) == 1:
        return ratio, ratio, ratio
    chunk = max(1, (1 << 22) // max(len(a), len(b)))
    rs = []
    done = 0
    while done < resamples:
        n = min(chunk, resamples - done)
        ma = _means(a, rng.integers(0, len(a), size=(n, len(a))))
        mb = _means(b, rng.integers(0, len(b), size=(n, len(b))))
        rs.append(mb / ma)
        done += n
    r = np.concatenate(rs)
    lo, hi = np.percentile(r, [2.5, 97.5])
    return ratio, float(lo), float(hi)


def _verdict(row):
    if row.lo > 1:
        v = "faster"
    elif row.hi < 1:
        v = "slower"
    else:
        v = "within noise"
    if len(row.a) == 1 and len(row.b) == 1 and v == "within noise":
        v = "equal"
    return v


def work(a, b, resamples):
    """Resamples x repetitions the comparison would draw."""
    return resamples * (len(a.summary) + len(b.summary))


def _judged(row, key, loose, resamples, seed):
    """`row` compared (the bootstrap of its repetitions) or said why not."""
    va, vb = row.a, row.b
    if not all(math.isfinite(v) for v in va + vb) or row.mean_a <= 0 or row.mean_b < 0:
        row.verdict = "not comparable (a figure is NaN, or A's mean is not above 0)"
        return
    if row.differs and not loose:
        verb = "differs" if len(row.differs) == 1 else "differ"
        row.verdict = f"not compared: {', '.join(row.differs)} {verb}"
        return
    rng = np.random.default_rng([seed, zlib.crc32(repr(key).encode())])
    row.ratio, row.lo, row.hi = bootstrap(va, vb, resamples, rng)
    row.compared = True
    if len(va) == 1 and len(vb) == 1:
        row.interval_note = "degenerate: 1 repetition on each side, no interval"
    elif len(va) == 1 or len(vb) == 1:
        side = "A" if len(va) == 1 else "B"
        row.interval_note = (
            f"degenerate on {side}'s side: 1 repetition, only the other side's spread"
        )
    row.verdict = _verdict(row)


def compare(a, b, loose=False, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """The Comparison of run `b` against run `a` (results.reader.Run)."""
    if work(a, b, resamples) > MAX_WORK:
        raise ResultsError(
            f"{len(a.summary)} + {len(b.summary)} summary rows x {resamples} resamples is more"
            f" bootstrap work than this script does ({MAX_WORK} draws)"
        )
    diffs = differences(a, b)
    pa, pb = points(a), points(b)
    order = {name: v for v, name in a.phase_names.items()}
    order.update({name: v for v, name in b.phase_names.items() if name not in order})
    rows = []
    for key in sorted(set(pa) & set(pb), key=lambda k: (order.get(k[0], 99), k[2] * k[1], k[1])):
        phase, k, depth = key
        streams, va, na = pa[key]
        _, vb, nb = pb[key]
        fld, unit = a.headline(phase)
        row = Row(phase, k, depth, streams, unit, fld, va, vb, sorted(set(na)), sorted(set(nb)))
        row.differs = [d.what for d in diffs if phase in d.phases]
        if row.nodes_a != row.nodes_b:
            row.differs.append("nodes")
        _judged(row, key, loose, resamples, seed)
        rows.append(row)
    only_a = sorted(set(pa) - set(pb), key=lambda k: (order.get(k[0], 99), k[1], k[2]))
    only_b = sorted(set(pb) - set(pa), key=lambda k: (order.get(k[0], 99), k[1], k[2]))
    return Comparison(a, b, rows, diffs, only_a, only_b, loose, resamples, seed)


def below(cmp, threshold):
    """The compared rows whose whole interval lies below `threshold` (the gate's failures)."""
    return [r for r in cmp.rows if r.compared and r.hi < threshold]


def display_value(row, v):
    """(number, unit) as shown: MiB/s (bytes/s / 2^20) or ops/s."""
    return (v / 1048576.0, "MiB/s") if row.unit == "bytes/s" else (v, "ops/s")


def bootstrap_options(resamples_text, seed_text):
    """(resamples, seed) of --resamples and --seed as given (None: the defaults), checked;
    Stop naming the option (iosweep-compare, iosweep-report)."""
    resamples, seed = DEFAULT_RESAMPLES, DEFAULT_SEED
    if resamples_text is not None:
        resamples = value("--resamples", resamples_text, count(100, MAX_RESAMPLES))
    if seed_text is not None:
        seed = value("--seed", seed_text, count(0, 2**63 - 1))
    return resamples, seed
