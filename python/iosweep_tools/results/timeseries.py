"""Throughput and latency over time from a run's `timeseries` table, cluster-wide.

    from iosweep_tools.results import timeseries as ts
    bins = ts.cluster_bins(run.table("timeseries"), point=3)     # one dict per time bin
    ts.has_latency(table), ts.has_merged(table)

The table has one row per (point, rank, bin): `bytes` and `ops` completed in the bin, from the
rank's exit of the phase barrier. Newer files add, on every row, `lat_p50_ns`, `lat_p99_ns` and
`lat_max_ns` (the rank's own latency percentiles in the bin), and one more row per (point, bin)
with `rank == -1`: the merge of all ranks (bytes and ops summed over ranks, percentiles from the
exactly merged histograms of the bin). Older files have neither.

A sum over the table must take the ranks' rows (rank >= 0) or the merged rows (rank == -1),
never both, or it counts every byte twice: cluster_bins takes the merged row of a bin when the
file has one (its stored values) and otherwise sums the ranks' rows (a derived figure, and no
latency: a percentile of the merge cannot be made from per-rank percentiles).
"""
import numpy as np

LATENCY = ("lat_p50_ns", "lat_p99_ns", "lat_max_ns")
MERGED_RANK = -1
SUMMED = "sum over the ranks' rows (rank >= 0) of the bin; t_start_s the earliest"


def has_latency(table):
    """True when the table records latency percentiles per bin (files of newer iosweep)."""
    return table is not None and all(f in table.dtype.names for f in LATENCY)


def has_merged(table):
    """True when the table holds the merged rows (rank == -1) of newer files."""
    return table is not None and len(table) > 0 and bool((table["rank"] == MERGED_RANK).any())


def rank_rows(table):
    """The ranks' own rows (rank >= 0): what a per-rank sum may add up."""
    return table[table["rank"] >= 0]


def cluster_bins(table, point):
    """The bins of summary point `point`, all ranks together, in bin order: [{bin, t_start_s,
    bytes, ops, lat_p50_ns, lat_p99_ns, lat_max_ns (None when not recorded), row (the index of
    the merged row in the table, None when summed), derived (None, or how the figure was made),
    ranks (ranks with a row in this bin)}]."""
    if table is None or len(table) == 0:
        return []
    idx = np.nonzero(table["point"] == point)[0]
    rows = table[idx]
    merged = rows["rank"] == MERGED_RANK
    out = []
    lat = has_latency(table)
    if merged.any():
        ranks_in = rows[rows["rank"] >= 0]
        for i in np.argsort(rows["bin"][merged], kind="stable"):
            j = idx[merged][i]
            r = table[j]
            b = int(r["bin"])
            out.append(
                {
                    "bin": b,
                    "t_start_s": float(r["t_start_s"]),
                    "bytes": int(r["bytes"]),
                    "ops": int(r["ops"]),
                    **{f: (float(r[f]) if lat else None) for f in LATENCY},
                    "row": int(j),
                    "derived": None,
                    "ranks": int((ranks_in["bin"] == b).sum()),
                }
            )
        return out
    for b in np.unique(rows["bin"]):
        sel = rows[rows["bin"] == b]
        out.append(
            {
                "bin": int(b),
                "t_start_s": float(sel["t_start_s"].min()),
                "bytes": int(sel["bytes"].astype(np.uint64).sum()),
                "ops": int(sel["ops"].astype(np.uint64).sum()),
                **{f: None for f in LATENCY},
                "row": None,
                "derived": SUMMED,
                "ranks": int(len(sel)),
            }
        )
    return out


def largest_points(run):
    """{phase: summary row index} of the first repetition at each phase's largest point (most
    streams or ranks): the point the report and the plot draw over time."""
    s = run.summary
    axis = run.axis()
    out = {}
    for i in range(len(s)):
        phase = run.phase_of_row(i)
        key = (int(s[axis][i]), -int(s["repetition"][i]))
        if phase not in out or key > out[phase][0]:
            out[phase] = (key, i)
    return {p: i for p, (_, i) in out.items()}


def latency_series(run):
    """{phase: {row, point, times, p50, p99, max}} for the largest point of every phase
    (largest_points), from the merged rows; {} when the file records no latency over time."""
    table = run.table("timeseries")
    if not (has_latency(table) and has_merged(table)):
        return {}
    out = {}
    for phase, i in largest_points(run).items():
        bins = cluster_bins(table, int(run.summary["point"][i]))
        if bins:
            out[phase] = {
                "row": i,
                "point": int(run.summary["point"][i]),
                "times": [b["t_start_s"] for b in bins],
                "p50": [b["lat_p50_ns"] for b in bins],
                "p99": [b["lat_p99_ns"] for b in bins],
                "max": [b["lat_max_ns"] for b in bins],
            }
    return out
