"""The metadata phases over emulated nodes: md-stat and md-read of every rank touch the items a
rank of another node made (no option asked for it: the point spans two nodes), and a point whose
active ranks sit unequally on the nodes is named under the placement and in its rows."""
import subprocess

import h5py
import pytest
from iosweep_tools.core.launch import can_emulate, emulated_env
from iosweep_tools.results.names import by_value, phases

from conftest import BIN, SOURCE_DIR, iosweep_argv, latest_run, mpi_env

NODES = ["node1", "node2"]


@pytest.fixture(scope="module")
def threadlist(tmp_path_factory):
    why = can_emulate()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("emu-md")
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "make-threadlist"), "--slots", "2", *NODES],
        capture_output=True,
        text=True,
        check=True,
    )
    (tmp / "threadlist").write_text(p.stdout)
    return tmp / "threadlist"


def test_readers_touch_another_nodes_items(threadlist, tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    cmd = ["mpirun", "-np", "4", "--hostfile", str(threadlist), BIN]
    cmd += iosweep_argv(
        dir=work,
        ranks="2,3",
        phases="md-create,md-stat,md-read",
        md_items=40,
        md_write_bytes="1k",
        md_read_bytes="1k",
        output=out,
    )
    p = subprocess.run(
        cmd, capture_output=True, text=True, env=emulated_env(mpi_env()), timeout=300
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert list(work.iterdir()) == []
    assert "unequal active ranks per node at: 3 ranks (2,1)" in p.stdout
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("md-")]
    assert len(rows) == 6
    assert all(("ranks/node 2,1" in ln) == (ln.split()[1] == "3") for ln in rows), rows
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        names = by_value(phases(run))
        node_of = {int(r["position"]): int(r["node"]) for r in run["rank_map"][()]}
        s, ranks = run["summary"][()], run["ranks"][()]
        for row in s:
            phase = names[int(row["phase"])]
            mine = ranks[ranks["point"] == row["point"]]
            k = int(row["ranks"])
            assert row["ops"] == 40 * k, phase
            for r in mine:
                pos = int(r["position"])
                if phase == "md_create":
                    assert r["file"] == pos
                    continue
                assert r["file"] == (pos + 1) % k, (phase, k)  # the next position's items
                if k == 2:  # one rank per node: every reader on the other node
                    assert node_of[int(r["file"])] != node_of[pos]
