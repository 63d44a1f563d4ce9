"""Every row says how close it came to the CPU: the ranks' user and system CPU per operation and
the share of their windows they were on a CPU (or queued for one), per rank in `ranks` and
reduced in `summary`, and the `CPU-bound` note from 90%. The null engine's rows are iosweep's
own cost and CPU-bound; direct reads of a disk wait on it and are not. Where the drive's link is
unknown the row says so in words."""
import math
import re

import h5py
import numpy as np
import pytest

from conftest import latest_run, run_sweep
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import by_value, phases

CPU_BOUND = re.compile(r"CPU-bound: usr \d+%, sys \d+%, queued \d+% of the window \(>= 90%\)")


def rows_and_ranks(out):
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        dev = g["device"][()] if "device" in g else None
        return g["summary"][()], g["ranks"][()], by_value(phases(g)), dev


def check_reduced(s, ranks):
    """Each row's CPU figures are its ranks' samples reduced as results/README.md says."""
    for row in s:
        mine = ranks[ranks["point"] == row["point"]]
        assert len(mine) == row["ranks"]
        # A window under 1 ms tells no share (NaN) and has no part in the means.
        told = mine["elapsed_s"] >= 1e-3
        busy = (mine["cpu_user_s"] + mine["cpu_sys_s"]) / mine["elapsed_s"]
        assert np.isnan(mine["busy_fraction"][~told]).all()
        assert mine["busy_fraction"][told] == pytest.approx(busy[told], rel=1e-12)
        assert mine["cpu_s"] == pytest.approx(mine["cpu_user_s"] + mine["cpu_sys_s"], rel=1e-12)
        assert told.any(), "every row of this test has a rank with a window of 1 ms or more"
        assert row["busy_fraction_mean"] == pytest.approx(busy[told].mean(), rel=1e-12)
        assert row["busy_fraction_max"] == pytest.approx(busy[told].max(), rel=1e-12)
        ops = int(mine["ops"].sum())
        assert ops == row["ops"] > 0
        assert row["cpu_user_ns_per_op"] == pytest.approx(mine["cpu_user_s"].sum() * 1e9 / ops)
        assert row["cpu_sys_ns_per_op"] == pytest.approx(mine["cpu_sys_s"].sum() * 1e9 / ops)
        queued = (mine["cpu_queued_s"] / mine["elapsed_s"])[told]
        if np.isnan(queued).any():  # a kernel without schedstat: unknown, never 0
            assert math.isnan(row["queued_fraction_mean"])
        else:
            assert row["queued_fraction_mean"] == pytest.approx(queued.mean(), rel=1e-12)
            assert (queued >= 0).all()


def cpu_bound(row):
    queued = 0.0 if math.isnan(row["queued_fraction_mean"]) else row["queued_fraction_mean"]
    return row["busy_fraction_mean"] + queued >= 0.9


def test_the_null_engine_is_cpu_bound_and_its_cost_is_iosweeps_own(workdir, tmp_path):
    """Two ranks of the null engine, data and metadata phases: nothing waits, so every rank is
    on a CPU (or queued for one, on a machine shared with other work) for its whole window, and
    every row says CPU-bound; the random reads' CPU is iosweep's own loop (user time)."""
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        dir=workdir,
        engine="null",
        iodepth=32,
        file_size="4GiB",
        rand_record="4KiB",
        phases="rand-read,md-create,md-stat",
        md_items=200000,
        ranks=2,
        output=out,
        quiet=False,
        check=0,
    )
    s, ranks, names, _ = rows_and_ranks(out)
    assert {names[int(r["phase"])] for r in s} == {"rand_read", "md_create", "md_stat"}
    check_reduced(s, ranks)
    for row in s:
        name, notes = names[int(row["phase"])], text(row["notes"])
        assert cpu_bound(row), (name, row["busy_fraction_mean"], row["queued_fraction_mean"])
        assert CPU_BOUND.search(notes), (name, notes)
        assert 0 < row["cpu_user_ns_per_op"] + row["cpu_sys_ns_per_op"] < 1e6, name
        if name == "rand_read":  # no system call in the null engine's loop
            assert row["cpu_user_ns_per_op"] > row["cpu_sys_ns_per_op"], notes
    table = [ln for ln in p.stdout.splitlines() if ln.startswith(("rand-read", "md-"))]
    assert len(table) == len(s) and all(CPU_BOUND.search(ln) for ln in table), p.stdout


def test_direct_reads_of_a_disk_wait_on_it(diskdir, tmp_path):
    """O_DIRECT 4 KiB reads at depth 1: the rank sleeps in every pread while the device works,
    so it is on a CPU well under 90% of its window, and what CPU it uses is the kernel's
    (system time) more than iosweep's. The row's notes say CPU-bound exactly when the figures
    reach 90% with the time queued for a CPU (a loaded machine can make a waiting rank queue),
    and say the drive's link, or in words why it is unknown."""
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=diskdir,
        engine="posix",
        direct=True,
        file_size="32MiB",
        rand_record="4KiB",
        phases="seq-write,rand-read",
        stonewall="3s",
        output=out,
        check=0,
    )
    s, ranks, names, dev = rows_and_ranks(out)
    check_reduced(s, ranks)
    (row,) = [r for r in s if names[int(r["phase"])] == "rand_read"]
    notes = text(row["notes"])
    assert row["busy_fraction_max"] < 0.9, (row["busy_fraction_max"], notes)
    assert row["cpu_sys_ns_per_op"] > row["cpu_user_ns_per_op"], notes
    assert bool(CPU_BOUND.search(notes)) == cpu_bound(row), notes
    if dev is None or not len(dev):
        pytest.skip(f"{diskdir} has no block device here: no link to say")
    (counted,) = dev[(dev["point"] == row["point"]) & (dev["counted"] == 1)]
    link = text(counted["link"])
    if math.isnan(counted["link_Bps"]):
        assert f"link unknown: {link}" in notes and text(counted["device"]) in link, notes
        assert math.isnan(row["link_fraction_max"]) and math.isnan(counted["link_fraction"])
    else:
        assert link.startswith("PCIe ") and "link " in notes
        assert counted["link_fraction"] == pytest.approx(row["link_fraction_max"])
