"""The whole benchmark end to end under mpiexec -n 2 and -n 4, checked through the HDF5 file."""
import hashlib
import os

import h5py
import numpy as np
import pytest

from conftest import dir_listing, latest_run, run_ids, run_sweep, this_host
from iosweep_tools.results.names import by_value, phases

# The phases a run does by default, in table order.
PHASES_IN_ORDER = ["seq_write", "seq_read", "rand_write", "rand_read", "scan_only", "filter_count"]


@pytest.mark.parametrize("n,points", [(2, [1, 2]), (4, [1, 2, 4])])
def test_all_five_phases_sweep(workdir, tmp_path, n, points):
    out = tmp_path / "r.h5"
    p = run_sweep(n, dir=workdir, file_size="8MiB", filter_every=1000, output=out, check=0)
    assert "placement (spread)" in p.stdout
    for phase in PHASES_IN_ORDER:
        printed = phase.replace("_", "-") in p.stdout
        assert printed == (phase != "scan_only")  # a control is printed with --show-controls only
    assert dir_listing(workdir) == [], "the run's files must be removed at its end"
    with h5py.File(out, "r") as f:
        assert f.attrs["schema"] == "iosweep.results"
        assert f.attrs["schema_version"] == 1
        g = latest_run(f)
        s = g["summary"][:]
        n_phases = len(g.attrs["phases"].split(","))
        assert n_phases == 6  # the five phases and filter-count's scan-only control
        assert len(s) == n_phases * len(points)
        # One row per (phase, point), phases in table order within each point.
        name = by_value(phases(g))
        assert list(s["ranks"]) == [k for k in points for _ in PHASES_IN_ORDER]
        assert [name[v] for v in s["phase"]] == PHASES_IN_ORDER * len(points)
        assert all(s["bytes"] == s["ranks"] * 8 * 2**20)
        assert all(s["bandwidth_Bps"] > 0) and all(s["wall_s"] > 0)
        fc = s[s["phase"] == phases(g)["filter_count"]]
        assert all(fc["matches"] == fc["expected_matches"])
        assert all(fc["expected_matches"] == fc["ranks"] * ((8 * 2**20 // 8) // 1000))
        rm = g["rank_map"][:]
        assert sorted(rm["rank"]) == list(range(n))
        assert sorted(rm["position"]) == list(range(n))
        assert list(g["hosts"].asstr()[:]) == [this_host()]
        ranks = g["ranks"][:]
        assert len(ranks) == n_phases * sum(points)
        assert g.attrs["status"] == 1  # complete
        assert "--file-size" in g.attrs["argv"]
        assert 'file-size="8MiB"' in g.attrs["config"]
        assert "hdf5" in g.attrs["versions"] and "mpi" in g.attrs["versions"]
        idx = f["run_index"][:]
        assert idx[-1]["n_points"] == len(s) and idx[-1]["status"] == 1


def _dump(group):
    """Every dataset and attribute of a group, as bytes, for a byte-for-byte comparison."""
    h = hashlib.sha256()

    def visit(name, obj):
        h.update(name.encode())
        for k in sorted(obj.attrs):
            h.update(k.encode() + repr(obj.attrs[k]).encode())
        if isinstance(obj, h5py.Dataset):
            data = obj[()]
            if data.dtype.kind == "O":  # variable-length strings: compare the values
                h.update(repr(list(data)).encode())
            else:
                h.update(np.ascontiguousarray(data).tobytes())

    for k in sorted(group.attrs):
        h.update(k.encode() + repr(group.attrs[k]).encode())
    group.visititems(visit)
    return h.hexdigest()


def test_second_run_appends_and_leaves_the_first_intact(workdir, tmp_path):
    out = tmp_path / "r.h5"
    args = dict(dir=workdir, file_size="4MiB", output=out, phases="seq-write,seq-read")
    run_sweep(2, **args, check=0)
    with h5py.File(out, "r") as f:
        (first,) = list(f["runs"].keys())
        before = _dump(f["runs"][first])
    run_sweep(2, **args, label="second", check=0)
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert len(ids) == 2 and ids[0] == first
        assert _dump(f["runs"][first]) == before
        assert f["runs"][ids[1]].attrs["label"] == "second"
        assert len(f["run_index"]) == 2


def test_reading_phases_alone_create_their_files_untimed(workdir, tmp_path):
    out = tmp_path / "r.h5"
    run_sweep(
        2, dir=workdir, file_size="4MiB", output=out, phases="rand-read,filter-count", check=0
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][:]
        name = by_value(phases(g))
        assert [name[v] for v in s["phase"]] == ["rand_read", "scan_only", "filter_count"] * 2
        assert all(s["bytes"] == s["ranks"] * 4 * 2**20)
    assert dir_listing(workdir) == []


def test_keep_leaves_the_files_and_dry_run_touches_nothing(workdir, tmp_path):
    out = tmp_path / "r.h5"
    p = run_sweep(2, dir=workdir, file_size="4MiB", output=out, dry_run=True, quiet=False, check=0)
    assert "dry run" in p.stdout and "bytes/phase" in p.stdout
    assert dir_listing(workdir) == [] and not out.exists()
    run_sweep(2, dir=workdir, file_size="4MiB", output=out, phases="seq-write", keep=True, check=0)
    files = dir_listing(workdir)
    assert len(files) == 2 and all(f.startswith("iosweep.") for f in files)
    assert all(os.path.getsize(workdir / f) == 4 * 2**20 for f in files)


def test_uneven_world_size_appends_the_world_size(workdir, tmp_path):
    out = tmp_path / "r.h5"
    run_sweep(3, dir=workdir, file_size="1MiB", output=out, phases="seq-write", check=0)
    with h5py.File(out, "r") as f:
        assert list(latest_run(f)["summary"]["ranks"]) == [1, 2, 3]


def test_random_phases_alone_on_a_file_shorter_than_the_sequential_record(tmp_path, workdir):
    # The file is written untimed first, in whole records of the file even though --seq-record
    # (16 MiB by default) is longer than it: every random read finds its data.
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=workdir,
        file_size="4MiB",
        phases="rand-read",
        verify=True,
        output=out,
        seq_record=None,
        check=0,
    )
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
    assert s["bytes"][0] == 4 << 20 and s["bad_blocks"][0] == 0
