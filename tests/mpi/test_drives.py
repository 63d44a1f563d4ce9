"""Several folders in one --dir on one machine (tests/cluster/test_drives.py runs them on drives
of their own): every rank's file in its folder, two folders on one device counted once, the
list recorded and run again by --rerun, and the refusals (a folder missing, named twice, or a
list for a shared file) in one line with nothing created."""
import os
import subprocess
import tomllib

import h5py
import numpy as np

from conftest import latest_run, run_iosweep, run_sweep, snapshot, this_host
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import phases


def folders_of(tmp_path, n):
    out = []
    for i in range(n):
        (tmp_path / f"f{i}").mkdir()
        out.append(tmp_path / f"f{i}")
    return out


def test_ranks_take_the_folders_round_robin_and_a_device_counts_once(tmp_path):
    a, b = folders_of(tmp_path, 2)
    out = tmp_path / "r.h5"
    p = run_sweep(
        3,
        dir=f"{a},{b}",
        file_size="2MiB",
        phases="seq-write,seq-read",
        ranks=3,
        keep=True,
        output=out,
        check=0,
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        run_id = g.name.split("/")[-1]
        assert text(g.attrs["dir"]) == f"{a},{b}"
        rm = g["rank_map"][()]
        assert list(rm["folder"]) == [0, 1, 0]  # one node: rank i takes folder i mod 2
        for r in rm:
            assert ((a, b)[r["folder"]] / f"iosweep.{run_id}.{r['position']}").is_file()
        assert sorted(os.listdir(a)) == [f"iosweep.{run_id}.{p}" for p in (0, 2)]
        mounts = g["mounts"][()]
        assert [(m["folder"], text(m["dir"])) for m in mounts] == [(0, str(a)), (1, str(b))]
        dev, s = g["device"][()], g["summary"][()]
        if len(dev):  # the folders' file system has a block device: one row holds both
            assert len(set(dev["point"])) == len(s) == 2
            for row in s:
                (d,) = dev[dev["point"] == row["point"]]
                assert text(d["folders"]) == f"{a},{b}" and d["ranks"] == 3
                assert d["claimed_bytes"] == row["bytes"] and row["drives"] == 1
        else:
            assert (s["drives"] == 0).all() and np.isnan(s["drive_bw_min_Bps"]).all()
        seq = s[s["phase"] == phases(g)["seq_read"]][0]
        rk = g["ranks"][()]
        assert list(rk[rk["point"] == seq["point"]]["folder"]) == [0, 1, 0]
    assert f"    {a}" in p.stdout and f"    {b}" in p.stdout  # the header's folders per node
    # --rerun runs the same folders again: the recorded list reads back as it was given.
    shown = tomllib.loads(run_iosweep(1, ["show", out], check=0).stdout)
    assert shown["dir"] == [f"{a},{b}"]
    for d in (a, b):
        for name in os.listdir(d):
            os.unlink(d / name)
    run_iosweep(3, ["run", "--rerun", out, "--quiet"], check=0)
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert text(g.attrs["dir"]) == f"{a},{b}" and list(g["rank_map"]["folder"]) == [0, 1, 0]
    assert len(os.listdir(a)) == 2 and len(os.listdir(b)) == 1


def test_a_bad_folder_in_the_list_is_refused_in_one_line_before_anything_is_written(tmp_path):
    a, b = folders_of(tmp_path, 2)
    missing = tmp_path / "missing"
    out = tmp_path / "r.h5"
    before = snapshot(tmp_path)
    for folders, layout, said in [
        (f"{a},{missing}", None, f"--dir: host {this_host()}: '{missing}' does not exist"),
        (f"{a},{b},{a}/", None, f"--dir: '{a}' is listed twice"),
        (
            f"{a},{b}",
            "shared",
            "--dir: --file-layout shared makes one file in one folder; give one folder, not 2",
        ),
    ]:
        p = run_sweep(2, dir=folders, file_size="1MiB", file_layout=layout, output=out)
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
        assert p.returncode == 2 and lines == ["iosweep: " + said], p.stderr
        assert snapshot(tmp_path) == before


def test_one_folder_spelled_twice_is_refused_by_its_device_and_inode(tmp_path):
    """D,D/../d, D,/x/./d, a symbolic link to D and a bind mount of D are one folder: refused in
    one line naming both spellings (compared by device and inode on every node), status 2,
    nothing created."""
    (a,) = folders_of(tmp_path, 1)
    (tmp_path / "link").symlink_to(a)
    spellings = [f"{a}/../{a.name}", f"{tmp_path}/./{a.name}", str(tmp_path / "link")]
    bind = tmp_path / "bind"
    bound = False
    if os.geteuid() == 0:
        bind.mkdir()
        bound = subprocess.run(["mount", "--bind", str(a), str(bind)]).returncode == 0
        if bound:
            spellings.append(str(bind))
    out = tmp_path / "r.h5"
    try:
        before = snapshot(tmp_path)
        for other in spellings:
            p = run_sweep(2, dir=f"{a},{other}", file_size="1MiB", output=out)
            lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
            said = f"iosweep: --dir: host {this_host()}: '{a}' and '{other}' are the same folder"
            assert p.returncode == 2 and len(lines) == 1, p.stderr
            assert lines[0].startswith(said) and lines[0].endswith("list each folder once")
            assert snapshot(tmp_path) == before
    finally:
        # A bind mount of a folder of the same file system is no mount point to
        # os.path.ismount (same device as its parent): it is unmounted because this test made it.
        if bound:
            subprocess.run(["umount", str(bind)])
