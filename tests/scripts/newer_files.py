"""Fixture files in the schema of newer iosweep versions, built from a real run by adding fields.

    with_timeseries_latency("real.h5", "fixture.h5")
    with_mounts_and_wire("real.h5", "fixture.h5")

with_timeseries_latency: every timeseries row gains lat_p50_ns, lat_p99_ns and lat_max_ns (f64,
ns), and every (point, bin) gains one row with rank == -1, the merge of all ranks. Only the
latency values are made up (this iosweep does not measure them per bin): a rank's bin gets its
point's summary percentiles scaled by (1 + bin / 10 + rank / 100), and the merged row the
largest of its ranks' values. bytes and ops of the merged rows are the sums of the ranks' rows,
as the binary writes them. The tests that use it check that the scripts show and draw the
stored values and never count a byte twice, not that the values are physical.
"""
import shutil

import h5py
import numpy as np

LATENCY = ("lat_p50_ns", "lat_p99_ns", "lat_max_ns")


def with_timeseries_latency(src, dst):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        for g in f["runs"].values():
            old = g["timeseries"]
            if "lat_p50_ns" in old.dtype.names:
                continue
            rows, attrs, s = old[()], dict(old.attrs), g["summary"][()]
            dt = np.dtype(
                [(n, old.dtype[n]) for n in old.dtype.names] + [(n, "<f8") for n in LATENCY]
            )
            by_point = {int(p): s[s["point"] == p][0] for p in s["point"]}
            out = []
            for p in sorted({int(x) for x in rows["point"]}):
                mine = rows[rows["point"] == p]
                summary = by_point[p]
                for r in mine:
                    k = 1 + int(r["bin"]) / 10 + int(r["rank"]) / 100
                    out.append(tuple(r) + tuple(float(summary[n]) * k for n in LATENCY))
                for b in sorted({int(x) for x in mine["bin"]}):
                    sel = [x for x in out if x[0] == p and x[2] == b and x[1] >= 0]
                    out.append(
                        (
                            p,
                            -1,
                            b,
                            min(x[3] for x in sel),
                            sum(int(x[4]) for x in sel),
                            sum(int(x[5]) for x in sel),
                        )
                        + tuple(max(x[6 + j] for x in sel) for j in range(3))
                    )
            del g["timeseries"]
            ds = g.create_dataset(
                "timeseries", data=np.array(out, dtype=dt), maxshape=(None,), chunks=True
            )
            for k, v in attrs.items():
                ds.attrs[k] = v
            for n in LATENCY:
                ds.attrs[f"{n}.unit"] = "ns"
                ds.attrs[f"{n}.reduction"] = "fixture: made up from the point's percentiles"
    return dst


def with_mounts_and_wire(src, dst):
    """A copy of a real file whose runs gain what files of newer iosweep versions may hold: a
    `mounts` table (per node: the file system under --dir) and, in the summary, wire_fraction,
    wire_rx_bytes and wire_tx_bytes (made up: half the phase's bytes each way)."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        for g in f["runs"].values():
            hosts = g["hosts"][()]
            mdt = np.dtype([("node", "<i4"), ("fs_type", "S32"), ("mount_point", "S64")])
            m = np.array([(i, b"fuse.glusterfs", b"/mnt/gv0") for i in range(len(hosts))], mdt)
            if "mounts" in g:  # files that have one: replaced by the made-up client mount
                del g["mounts"]
            ds = g.create_dataset("mounts", data=m)
            ds.attrs["node.unit"], ds.attrs["fs_type.unit"] = "1", "text"
            ds.attrs["mount_point.unit"] = "text"
            old = g["summary"]
            s, attrs = old[()], dict(old.attrs)
            wire = ("wire_fraction", "wire_rx_bytes", "wire_tx_bytes")
            added = [(n, "<f8") for n in wire if n not in old.dtype.names]
            dt = np.dtype([(n, old.dtype[n]) for n in old.dtype.names] + added)
            out = np.zeros(len(s), dtype=dt)
            for n in old.dtype.names:
                out[n] = s[n]
            out["wire_fraction"] = 1.0
            out["wire_rx_bytes"] = s["bytes"] / 2
            out["wire_tx_bytes"] = s["bytes"] / 2
            out["wire_fraction"][0] = np.nan
            del g["summary"]
            ds = g.create_dataset("summary", data=out, maxshape=(None,), chunks=True)
            for k, v in attrs.items():
                ds.attrs[k] = v
            ds.attrs["wire_fraction.unit"] = "1"
            ds.attrs["wire_rx_bytes.unit"] = ds.attrs["wire_tx_bytes.unit"] = "bytes"
    return dst
