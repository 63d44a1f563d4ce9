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

Settings that decide what a figure means are compared as the runs declare them: iosweep stores
with every run which of its options (and what it found: the engine's set-up, the file system)
make two runs incomparable, the attribute holding each value and the phases it changes
(results.settings; for a run recorded before, the binary makes the same from its configuration).
Where they differ, the rows of those phases are listed and not compared unless `loose`. A point
whose rows used different node counts is not compared either. Control phases (scan_only) are
compared as any phase: they are measurements too.
"""
import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from iosweep_tools.core.cmdline import count, value
from iosweep_tools.results import settings
from iosweep_tools.results.file import ResultsError

DEFAULT_RESAMPLES = 2000
MAX_RESAMPLES = 100000
DEFAULT_SEED = 20240601
# Bootstrap work allowed: resamples x repetitions summed over the points of both runs.
MAX_WORK = 200_000_000


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


def _changes(setting, phases):
    """The phases of `phases` a run's setting changes (none when the run does not declare it)."""
    return phases & setting.phases if setting is not None else set()


def differences(a, b):
    """[Difference]: every setting runs `a` and `b` (results.reader.Run) declare
    (results.settings) that differs for a phase either run has, with those phases. A phase
    differs where only one run's setting changes it (fsync in one run's list), or both do with
    other values."""
    present = set(a.phases_present()) | set(b.phases_present())
    da = {s.attribute: s for s in settings.declared(a)}
    db = {s.attribute: s for s in settings.declared(b)}
    out = []
    for attr in list(da) + [k for k in db if k not in da]:
        sa, sb = da.get(attr), db.get(attr)
        pa, pb = _changes(sa, present), _changes(sb, present)
        va = sa.compared(a) if sa else a.attrs.get(attr)
        vb = sb.compared(b) if sb else b.attrs.get(attr)
        hit = (pa ^ pb) | ((pa & pb) if va != vb else set())
        if hit:
            ta = sa.text(a) if sa else "not recorded"
            tb = sb.text(b) if sb else "not recorded"
            out.append(Difference((sa or sb).what, ta, tb, hit))
    return out


def bare_phase(label):
    """The phase of a point's label: `md-create`, or `md-4k/md-create` in a run of steps."""
    return label.rsplit("/", 1)[-1]


def points(run):
    """{(phase, ranks, iodepth): (streams, [headline per repetition], [nodes per repetition])},
    in summary order; the phase is `step/phase` in a run of several steps (Run.phase_label), so
    that a step is compared with the step of the same name (a study's md-create of its 4 KiB
    series with the other run's, never with its empty-file series)."""
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
        e = out.setdefault((run.phase_label(i), k, depth), (streams, [], []))
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
    steps = {st["name"]: n for n, st in enumerate(a.steps)}

    def place(key):
        step = key[0][: -len(bare_phase(key[0]))].rstrip("/")
        return (steps.get(step, len(steps)), step, order.get(bare_phase(key[0]), 99))

    rows = []
    for key in sorted(set(pa) & set(pb), key=lambda k: (*place(k), k[2] * k[1], k[1])):
        label, k, depth = key
        phase = bare_phase(label)
        streams, va, na = pa[key]
        _, vb, nb = pb[key]
        fld, unit = a.headline(phase)
        row = Row(label, k, depth, streams, unit, fld, va, vb, sorted(set(na)), sorted(set(nb)))
        row.differs = [d.what for d in diffs if phase in d.phases]
        if row.nodes_a != row.nodes_b:
            row.differs.append("nodes")
        _judged(row, key, loose, resamples, seed)
        rows.append(row)
    only_a = sorted(set(pa) - set(pb), key=lambda k: (*place(k), k[1], k[2]))
    only_b = sorted(set(pb) - set(pa), key=lambda k: (*place(k), k[1], k[2]))
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
