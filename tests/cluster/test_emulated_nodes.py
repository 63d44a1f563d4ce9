"""Open MPI across four emulated nodes (UTS namespaces behind an rsh agent): the user's own line
`mpirun -np 8 --hostfile <made threadlist>` runs a 1:8 sweep, and the results show the hosts,
the node-spread placement and, with --placement block, rank order."""
import subprocess

import h5py
import pytest

from conftest import BIN, SOURCE_DIR, iosweep_argv, latest_run, mpi_env
from iosweep_tools.core.launch import can_emulate, emulated_env

NODES = ["node1", "node2", "node3", "node4"]


@pytest.fixture(scope="module")
def threadlist(tmp_path_factory):
    why = can_emulate()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("emu")
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "make-threadlist"), "--slots", "2", *NODES],
        capture_output=True,
        text=True,
        check=True,
    )
    (tmp / "threadlist").write_text(p.stdout)
    return tmp / "threadlist"


def mpirun(n, hostfile, *extra, launch=(), env=None, timeout=300, **options):
    """`mpirun -np N --hostfile HOSTFILE LAUNCH iosweep ...` over the emulated nodes, iosweep's
    command line built by iosweep_argv(*extra, **options); env defaults to the emulated launch
    environment. Returns the CompletedProcess."""
    cmd = ["mpirun", "-np", str(n), "--hostfile", str(hostfile), *launch, BIN]
    return subprocess.run(
        cmd + iosweep_argv(*extra, **options),
        capture_output=True,
        text=True,
        env=env or emulated_env(mpi_env()),
        timeout=timeout,
    )


def run(threadlist, tmp_path, placement):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    p = mpirun(
        8,
        threadlist,
        dir=work,
        file_size="2MiB",
        sweep="1:8",
        placement=placement,
        phases="seq-write,rand-read",
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert list(work.iterdir()) == []
    return p, out


def test_spread_placement_over_four_nodes(threadlist, tmp_path):
    p, out = run(threadlist, tmp_path, "spread")
    for n in NODES:
        assert n in p.stdout  # the placement printed before the sweep
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        hosts = list(g["hosts"].asstr()[()])
        assert sorted(hosts) == NODES
        rm = g["rank_map"][()]
        # mpirun's default by-slot mapping: ranks 2i and 2i+1 on the i-th host of the threadlist.
        for row in rm:
            assert hosts[row["node"]] == NODES[row["rank"] // 2]
        s = g["summary"][()]
        assert list(s["ranks"][s["phase"] == 0]) == [1, 2, 4, 8]
        assert list(s["nodes"][s["phase"] == 0]) == [1, 2, 4, 4]
        r = g["ranks"][()]
        for point, k in zip(s["point"], s["ranks"]):
            rows = r[r["point"] == point]
            assert len({hosts[n] for n in rows["node"]}) == min(k, 4)
            for row in rows:  # each per-rank row names the host that rank ran on
                assert hosts[row["node"]] == NODES[row["rank"] // 2]
        assert g.attrs["n_nodes"] == 4


def test_block_placement_follows_rank_order(threadlist, tmp_path):
    _, out = run(threadlist, tmp_path, "block")
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        hosts = list(g["hosts"].asstr()[()])
        s, r = g["summary"][()], g["ranks"][()]
        assert list(s["nodes"][s["phase"] == 0]) == [1, 1, 2, 4]
        for point, k in zip(s["point"], s["ranks"]):
            rows = r[r["point"] == point]
            assert sorted(rows["rank"]) == list(range(k))
            assert {hosts[n] for n in rows["node"]} == set(NODES[: (k + 1) // 2])


def test_traffic_between_nodes_really_crosses_tcp(threadlist, tmp_path):
    # Forbidding TCP leaves only shared memory, which does not reach another node.
    env = emulated_env(mpi_env())
    env["OMPI_MCA_btl"] = "vader,self"
    p = mpirun(
        8,
        threadlist,
        dir=tmp_path,
        file_size="1MiB",
        phases="seq-write",
        dry_run=True,
        quiet=False,
        env=env,
        timeout=120,
    )
    assert p.returncode != 0


def test_read_shift_auto_puts_every_reader_on_another_node(threadlist, tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    p = mpirun(
        8,
        threadlist,
        dir=work,
        file_size="2MiB",
        sweep="2:8",
        read_shift="auto",
        phases="seq-write,seq-read",
        verify=True,
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "warning: --read-shift auto" not in p.stderr  # four nodes: a shift always exists
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        rm = g["rank_map"][()]
        node_of_position = {int(r["position"]): int(r["node"]) for r in rm}
        s, r = g["summary"][()], g["ranks"][()]
        reads = s[s["phase"] == 1]
        assert len(reads) == 3 and all(reads["bad_blocks"] == 0)
        for point in reads["point"]:
            for row in r[r["point"] == point]:
                assert row["file"] != row["position"]
                assert node_of_position[int(row["file"])] != int(row["node"]), row


def test_sixty_four_ranks_on_eight_nodes_round_robin(tmp_path):
    """The published layout in small: ranks round-robin over 8 emulated nodes (--map-by node, as
    a round-robin threadlist), the whole 1..64 sweep in one launch. Every point spreads its
    ranks over min(k, 8) nodes in node-spread order, the ranks that sit a point out cost no
    memory of their own to speak of, and the job ends in bounded time."""
    why = can_emulate()
    if why:
        pytest.skip(why)
    nodes = [f"node{i}" for i in range(1, 9)]
    hostfile = tmp_path / "nodes"
    hostfile.write_text("".join(f"{n} slots=8\n" for n in nodes))
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    p = mpirun(
        64,
        hostfile,
        launch=["--map-by", "node", "--bind-to", "none"],
        dir=work,
        file_size="1MiB",
        sweep="1:64",
        output=out,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert list(work.iterdir()) == []
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        hosts = list(g["hosts"].asstr()[()])
        assert sorted(hosts) == nodes
        rm = g["rank_map"][()]
        # --map-by node: rank r on the (r mod 8)-th host; node-spread order: position = rank.
        for row in rm:
            assert hosts[row["node"]] == nodes[row["rank"] % 8]
            assert row["position"] == row["rank"]
        s = g["summary"][()]
        assert sorted(set(s["ranks"])) == [1, 2, 4, 8, 16, 32, 64]
        assert all(s["nodes"] == [min(k, 8) for k in s["ranks"]])
        r = g["ranks"][()]
        for point, k in zip(s["point"], s["ranks"]):
            rows = r[r["point"] == point]
            assert sorted(rows["position"]) == list(range(k))  # the first k of the order
            assert len(set(rows["node"])) == min(k, 8)
        u = g["rank_usage"][()]
        assert len(u) == 64
        # Ranks that sat out points hold little memory of their own while they wait.
        idle = u["private_idle_peak_bytes"][u["private_idle_peak_bytes"] > 0]
        assert len(idle) > 0 and idle.max() <= 8 << 20, idle.max()


def test_ship_count_sends_to_collectors_on_other_nodes(threadlist, tmp_path):
    """Over four emulated nodes, --collector next-node puts every collector on another node:
    every byte read crosses nodes (the 1-rank point ships to itself), and the counts are exact."""
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    p = mpirun(
        8,
        threadlist,
        dir=work,
        file_size="4MiB",
        scan_record="1MiB",
        filter_every=3000,
        sweep="1:8",
        phases="filter-count,ship-count",
        verify=True,
        output=out,
        seq_record=None,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        ship = {v: k for k, v in h5py.check_enum_dtype(g["summary"].dtype["phase"]).items()}
        sc = s[[ship[v] == "ship_count" for v in s["phase"]]]
        assert list(sc["ranks"]) == [1, 2, 4, 8]
        assert all(sc["matches"] == sc["expected_matches"]) and all(sc["bad_blocks"] == 0)
        for row in sc:
            shipped = row["mpi_bytes"] - 8 * row["ranks"]
            assert shipped == row["bytes"]
            assert row["mpi_remote_bytes"] == (shipped if row["ranks"] > 1 else 0)


@pytest.mark.parametrize(
    "pattern,engine",
    [
        ("segmented", ["--engine", "posix"]),
        ("strided", ["--engine", "mpiio", "--mpiio-collective"]),
    ],
)
def test_one_shared_file_over_two_nodes(threadlist, tmp_path, pattern, engine):
    # 4 ranks by slot: two on node1, two on node2, all writing and reading regions of one file.
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    p = mpirun(
        4,
        threadlist,
        *engine,
        dir=work,
        file_size="2MiB",
        rand_record="64KiB",
        file_layout="shared",
        shared_pattern=pattern,
        verify=True,
        read_shift=1,
        phases="seq-write,seq-read,rand-read,filter-count",
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert list(work.iterdir()) == []
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        assert g.attrs["file_layout"] in (b"shared", "shared")
        assert list(s["nodes"][s["phase"] == 0]) == [1, 2, 2]
        assert all(s["bad_blocks"] == 0)
        fc = s[s["matches"] > 0]
        assert len(fc) and all(fc["matches"] == fc["expected_matches"])
