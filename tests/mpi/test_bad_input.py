"""Bad input through the real binary under mpiexec: exit status 2, one line from rank 0 naming
the option and the problem, nothing created on disk, the results file untouched."""
import os
import subprocess

import h5py
import pytest

from conftest import make_results, run_sweep, snapshot

GOOD = ["--file-size", "32MiB", "--seq-record", "4MiB"]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A work folder, an existing results file with one run, and a few traps (shared by the
    cases, which must leave all of it untouched)."""
    tmp_path = tmp_path_factory.mktemp("bad")
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "results.h5"
    make_results(1, work, out, "1MiB", "1MiB", "--phases", "seq-write")
    (tmp_path / "a-file").write_text("not a folder\n")
    (tmp_path / "notes.txt").write_text("a text file, not HDF5\n")
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f.attrs["schema"] = "someone.else"
    with h5py.File(tmp_path / "newer.h5", "w") as f:
        f.attrs["schema"] = "iosweep.results"
        f.attrs["schema_version"] = 2
    (tmp_path / "unknown-key.toml").write_text('file-size = "1m"\nno-such-option = 3\n')
    (tmp_path / "keep3.toml").write_text("keep = 3\n")
    (tmp_path / "array.toml").write_text('file-size = ["1m", "2m"]\n')
    (tmp_path / "broken.toml").write_text('label = "never closed\n')
    for name in ("phases", "ranks", "wire-interface", "fsync"):  # an empty list of each kind
        (tmp_path / f"empty-{name}.toml").write_text(f"{name} = []\n")
    (tmp_path / "huge.toml").write_text("# padding\n" * 200000)  # 2 MB: more than a preset may be
    (tmp_path / "folder.h5").mkdir()
    os.symlink(tmp_path / "nowhere" / "r.h5", tmp_path / "dangling.h5")
    with h5py.File(tmp_path / "fake.h5", "w") as f:  # iosweep's attributes, none of its structure
        f.attrs["schema"] = "iosweep.results"
        f.attrs["schema_version"] = 1
    # Two kept runs for --reuse: one whose file is then replaced by a symbolic link.
    for label in ("kept", "linked"):
        keep = ["--phases", "seq-write", "--keep", "--label", label]
        make_results(1, work, tmp_path / "keep.h5", "1MiB", "1MiB", *keep)
    with h5py.File(tmp_path / "keep.h5", "r") as f:
        kept, linked = [r.decode() for r in f["run_index"]["run_id"]]
    os.unlink(work / f"iosweep.{linked}.0")
    os.symlink(work / f"iosweep.{kept}.0", work / f"iosweep.{linked}.0")
    return tmp_path, work, out, {"kept": kept, "linked": linked}


CASES = [
    # (id, extra arguments, option the message must name)
    ("size-not-numeric", ["--file-size", "abc"], "--file-size"),
    ("size-negative", ["--file-size", "-4k"], "--file-size"),
    ("size-zero", ["--file-size", "0"], "--file-size"),
    ("size-overflow", ["--file-size", "99999999999TiB"], "--file-size"),
    ("size-unknown-unit", ["--file-size", "12q"], "--file-size"),
    ("seq-record-zero", ["--seq-record", "0"], "--seq-record"),
    ("rand-record-not-dividing-file", ["--rand-record", "3000"], "--rand-record"),
    # Any byte size goes through the page cache; O_DIRECT needs whole logical blocks.
    ("direct-record-of-any-size", ["--direct", "--seq-record", "47008"], "--seq-record"),
    ("record-larger-than-file", ["--seq-record", "64m"], "--seq-record"),
    ("record-not-dividing-file", ["--file-size", "20m", "--seq-record", "16m"], "--file-size"),
    ("scan-record-not-dividing", ["--scan-record", "3m"], "--file-size"),
    ("ranks-empty", ["--ranks="], "--ranks"),
    ("ranks-duplicate", ["--ranks", "1,1"], "--ranks"),
    ("ranks-decreasing", ["--ranks", "2,1"], "--ranks"),
    ("ranks-beyond-world", ["--ranks", "1,8"], "--ranks"),
    ("ranks-zero", ["--ranks", "0,1"], "--ranks"),
    ("sweep-max-below-min", ["--sweep", "4:2"], "--sweep"),
    ("sweep-malformed", ["--sweep", "abc"], "--sweep"),
    ("sweep-beyond-world", ["--sweep", "4:8"], "--sweep"),
    ("phase-unknown", ["--phases", "seq-wrote"], "--phases"),
    ("engine-unknown", ["--engine", "aio"], "--engine"),
    ("iodepth-zero", ["--engine", "uring", "--iodepth", "0"], "--iodepth"),
    ("iodepth-posix", ["--iodepth", "8"], "--iodepth"),
    ("placement-unknown", ["--placement", "diagonal"], "--placement"),
    ("repetitions-zero", ["--repetitions", "0"], "--repetitions"),
    ("filter-every-one", ["--filter-every", "1"], "--filter-every"),
    ("filter-kernel-unknown", ["--filter-kernel", "avx1024"], "--filter-kernel"),
    ("cache-unknown", ["--cache", "maybe"], "--cache"),
    ("read-shift-negative", ["--read-shift", "-1"], "--read-shift"),
    ("wearout-without-stonewall", ["--stonewall-wearout"], "--stonewall-wearout"),
    ("stonewall-garbage", ["--stonewall", "soon"], "--stonewall"),
    ("rated-bw-garbage", ["--rated-bw", "fast"], "--rated-bw"),
    ("timeseries-bin-zero", ["--timeseries-bin", "0"], "--timeseries-bin"),
    ("stall-limit-under-a-second", ["--stall-limit", "500ms"], "--stall-limit"),
    ("stall-limit-garbage", ["--stall-limit", "never"], "--stall-limit"),
    ("stall-wait-not-a-flag", ["--stall-wait=maybe"], "--stall-wait"),
    ("unknown-option", ["--bogus"], "--bogus"),
    ("dir-missing", ["--dir", "{tmp}/missing"], "--dir"),
    ("dir-is-a-file", ["--dir", "{tmp}/a-file"], "--dir"),
    ("output-is-a-folder", ["--output", "{tmp}/folder.h5"], "--output"),
    ("output-is-text", ["--output", "{tmp}/notes.txt"], "--output"),
    ("output-other-schema", ["--output", "{tmp}/other.h5"], "--output"),
    ("output-newer-schema", ["--output", "{tmp}/newer.h5"], "--output"),
    ("output-missing-folder", ["--output", "{tmp}/nowhere/r.h5"], "--output"),
    ("config-unknown-key", ["--config", "{tmp}/unknown-key.toml"], "--config"),
    ("config-missing", ["--config", "{tmp}/none.toml"], "--config"),
    ("reuse-with-write-phase", ["--reuse", "20200101T000000Z-00000000"], "--reuse"),
    (
        "reuse-missing-files",
        ["--reuse", "20200101T000000Z-00000000", "--phases", "seq-read"],
        "--reuse",
    ),
    # Resources bounded before anything starts.
    (
        "iodepth-beyond-memory",
        # 4096 records in flight of 64 MiB each (a file of 4096 records: a depth beyond a
        # phase's records takes buffers for the records only).
        [
            "--engine",
            "uring",
            "--iodepth",
            "4096",
            "--file-size",
            "256GiB",
            "--seq-record",
            "64MiB",
        ],
        "--iodepth",
    ),
    ("stonewall-beyond-the-clock", ["--stonewall", "2562048h"], "--stonewall"),
    ("stall-limit-beyond-the-clock", ["--stall-limit", "2562048h"], "--stall-limit"),
    (
        "timeseries-bin-beyond-the-clock",
        ["--timeseries-bin", "99999999999999h"],
        "--timeseries-bin",
    ),
    (
        "mpiio-hint-key-too-long",
        ["--engine", "mpiio", "--mpiio-hint", "k" * 300 + "=v"],
        "--mpiio-hint",
    ),
    (
        "mpiio-hint-value-too-long",
        ["--engine", "mpiio", "--mpiio-hint", "cb_nodes=" + "9" * 300],
        "--mpiio-hint",
    ),
    # Presets and flags.
    ("config-not-a-regular-file", ["--config", "/dev/zero"], "--config"),
    ("config-empty-name", ["--config", ""], "--config"),
    ("config-too-large", ["--config", "{tmp}/huge.toml"], "--config"),
    ("flag-not-true-or-false", ["--config", "{tmp}/keep3.toml"], "--keep"),
    ("reuse-empty", ["--reuse", "", "--phases", "seq-read"], "--reuse"),
    ("label-empty", ["--label", ""], "--label"),
    ("size-with-a-space", ["--file-size", "4 MiB"], "--file-size"),
    ("size-with-a-leading-space", ["--file-size", " 4m"], "--file-size"),
    ("ranks-with-a-space", ["--ranks", "1, 2"], "--ranks"),
    ("ranks-trailing-comma", ["--ranks", "1,2,"], "--ranks"),
    ("phases-double-comma", ["--phases", "seq-write,,seq-read"], "--phases"),
    ("fsync-reading-phase", ["--fsync", "seq-read"], "--fsync"),
    # The results file.
    ("output-on-a-pseudo-file-system", ["--output", "/proc/new.h5"], "--output"),
    ("output-dangling-symlink", ["--output", "{tmp}/dangling.h5"], "--output"),
    ("output-schema-without-structure", ["--output", "{tmp}/fake.h5"], "--output"),
    # --reuse mismatches, found before the run.
    ("reuse-other-size", ["--reuse", "{kept}", "--phases", "seq-read"], "--reuse"),
    (
        "reuse-symlink",
        [
            "--reuse",
            "{linked}",
            "--phases",
            "seq-read",
            "--file-size",
            "1MiB",
            "--seq-record",
            "1MiB",
        ],
        "--reuse",
    ),
    # Pseudo file systems.
    ("dir-pseudo-file-system", ["--dir", "/proc"], "--dir"),
    ("dir-pseudo-file-system-forced", ["--dir", "/proc", "--force"], "--dir"),
    # A row says what ran: a blocking collective call keeps no depth.
    (
        "collective-with-a-depth",
        ["--engine", "mpiio", "--file-layout", "shared", "--mpiio-collective", "--iodepth", "4"],
        "--mpiio-collective",
    ),
    (
        "collective-with-streams",
        ["--engine", "mpiio", "--file-layout", "shared", "--mpiio-collective", "--streams", "2"],
        "--mpiio-collective",
    ),
    # Empty values and lists that say one thing twice.
    ("fsync-empty", ["--fsync="], "--fsync"),
    ("label-empty-after-equals", ["--label="], "--label"),
    ("phases-listed-twice", ["--phases", "seq-write,seq-write"], "--phases"),
    ("fsync-listed-twice", ["--fsync", "seq-write,seq-write"], "--fsync"),
    (
        "hint-given-twice",
        ["--engine", "mpiio", "--mpiio-hint", "a=1,a=2"],
        "--mpiio-hint",
    ),
    # Units: a rate is per second; out of range is out of range.
    ("rated-bw-without-per-second", ["--rated-bw", "5GB"], "--rated-bw"),
    ("rated-bw-out-of-range", ["--rated-bw", "1e400GB/s"], "--rated-bw"),
    ("rated-bw-same-rate-twice", ["--rated-bw", "5GB/s,5GB/s"], "--rated-bw"),
    # Values iosweep could not record as text, and interfaces a node does not have.
    ("label-not-utf8", ["--label", b"caf\xe9".decode("utf-8", "surrogateescape")], "--label"),
    ("wire-interface-missing", ["--wire-interface", "nosuchif0"], "--wire-interface"),
    ("wire-interface-auto-in-a-list", ["--wire-interface", "auto,eth0"], "--wire-interface"),
    ("preset-array-for-one-value", ["--config", "{tmp}/array.toml"], "--file-size"),
    ("preset-not-toml", ["--config", "{tmp}/broken.toml"], "--config"),
    # An empty list from a preset is an empty value, as on the command line (the unit suite
    # holds every list option to it, from presets and stored runs).
    ("preset-empty-phases", ["--config", "{tmp}/empty-phases.toml"], "--phases"),
    ("preset-empty-ranks", ["--config", "{tmp}/empty-ranks.toml"], "--ranks"),
    (
        "preset-empty-wire-interface",
        ["--config", "{tmp}/empty-wire-interface.toml"],
        "--wire-interface",
    ),
    ("preset-empty-fsync", ["--config", "{tmp}/empty-fsync.toml"], "--fsync"),
    # The metadata phases.
    ("md-on-mpiio", ["--engine", "mpiio", "--phases", "md-create"], "--engine"),
    (
        "md-items-and-total",
        ["--phases", "md", "--md-items", "8", "--md-items-total", "64"],
        "--md-items",
    ),
    (
        "md-read-beyond-the-item",
        ["--phases", "md-read", "--md-read-bytes", "4k"],
        "--md-read-bytes",
    ),
    (
        "md-items-need-more-folders",
        ["--phases", "md-create", "--md-items", "100", "--md-items-per-folder", "10"],
        "--md-items-per-folder",
    ),
    ("md-layout-unknown", ["--phases", "md", "--md-layout", "public"], "--md-layout"),
    ("md-branch-zero", ["--phases", "md", "--md-branch", "0"], "--md-branch"),
    ("md-phase-unknown", ["--phases", "md-chmod"], "--phases"),
]


def with_defaults(extra):
    """GOOD, then the case's own arguments; an option the case gives replaces GOOD's."""
    given = {a for a in extra if a.startswith("--")}
    args, i = [], 0
    while i < len(GOOD):
        if GOOD[i] in given:
            i += 2
            continue
        args += GOOD[i : i + 2]
        i += 2
    return args + extra


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input(env, case):
    tmp, work, out, kept = env
    _, extra, option = case
    extra = [a.replace("{tmp}", str(tmp)).format(**kept) if "{" in a else a for a in extra]
    folder = None if "--dir" in extra else work
    results = None if "--output" in extra else out
    before = snapshot(tmp)
    p = run_sweep(2, *with_defaults(extra), dir=folder, output=results, quiet=False)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1, p.stderr
    assert option in lines[0], lines[0]
    assert snapshot(tmp) == before, "bad input must create, change or remove nothing"


def _mount(kind, target, options=None):
    cmd = ["mount", "-t", kind] + (["-o", options] if options else []) + [kind, str(target)]
    return subprocess.run(cmd, capture_output=True).returncode == 0


@pytest.fixture
def mounted(tmp_path):
    mounts = []

    def make(kind, options=None):
        if os.geteuid() != 0:
            pytest.skip("mounting a file system for this test needs root")
        d = tmp_path / f"mnt{len(mounts)}"
        d.mkdir()
        if not _mount(kind, d, options):
            pytest.skip(f"cannot mount {kind} here")
        mounts.append(d)
        return d

    yield make
    for d in mounts:
        subprocess.run(["umount", "-l", str(d)])


def _expect_refusal(tmp_path, args, option, watch):
    before = snapshot(watch)
    p = run_sweep(2, *args, output=tmp_path / "r.h5", quiet=False)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and option in lines[0], p.stderr
    assert snapshot(watch) == before
    assert not (tmp_path / "r.h5").exists()
    return lines[0]


def test_dir_on_read_only_file_system(tmp_path, mounted):
    d = mounted("tmpfs", "ro,size=4m")
    line = _expect_refusal(tmp_path, ["--dir", d] + GOOD, "--dir", d)
    assert "read-only" in line


def test_dir_not_writable_for_a_user(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes to any folder; covered by the read-only mount test")
    d = tmp_path / "locked"
    d.mkdir(mode=0o555)
    _expect_refusal(tmp_path, ["--dir", d] + GOOD, "--dir", d)


def test_direct_on_a_file_system_without_o_direct(tmp_path, mounted):
    d = mounted("ramfs")  # ramfs refuses O_DIRECT (this kernel's tmpfs accepts it)
    line = _expect_refusal(tmp_path, ["--dir", d, "--direct"] + GOOD, "--direct", d)
    assert "O_DIRECT" in line


def test_direct_on_tmpfs_is_refused_where_tmpfs_refuses_it(tmp_path, mounted):
    d = mounted("tmpfs", "size=64m")
    try:
        fd = os.open(d / "probe", os.O_CREAT | os.O_WRONLY | os.O_DIRECT)
        os.close(fd)
        os.unlink(d / "probe")
        pytest.skip("this kernel's tmpfs accepts O_DIRECT (Linux >= 6.6); see the ramfs test")
    except OSError:
        pass
    _expect_refusal(tmp_path, ["--dir", d, "--direct"] + GOOD, "--direct", d)


def test_not_enough_free_inodes_for_the_metadata_phases(tmp_path, mounted):
    d = mounted("tmpfs", "size=16m,nr_inodes=100")
    args = ["--dir", d, "--phases", "md-create", "--md-items", "500"]
    line = _expect_refusal(tmp_path, args, "--md-items", d)
    assert "free inodes" in line


def test_not_enough_free_space_gives_both_numbers_and_force_overrides(tmp_path, mounted):
    d = mounted("tmpfs", "size=16m")
    line = _expect_refusal(
        tmp_path, ["--dir", d, "--file-size", "32MiB", "--seq-record", "4MiB"], "--file-size", d
    )
    assert "67108864 bytes" in line and "free" in line
    # --force runs anyway (and then meets ENOSPC: an I/O error, exit 1, files removed).
    p = run_sweep(
        2,
        output=tmp_path / "r.h5",
        dir=d,
        file_size="32MiB",
        seq_record="4MiB",
        force=True,
        phases="seq-write",
    )
    assert p.returncode == 1, p.stderr
    assert "ENOSPC" in p.stderr
    assert os.listdir(d) == []


def test_a_long_value_is_never_cut(env):
    tmp, work, out, _ = env
    long_dir = str(tmp / ("d" * 4000))
    p = run_sweep(2, *GOOD, dir=long_dir, output=out, quiet=False)
    assert p.returncode == 2
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1
    assert long_dir in lines[0] and lines[0].endswith("does not exist"), lines[0][-200:]


def test_control_characters_in_a_value_are_escaped_on_one_line(env):
    tmp, work, out, _ = env
    bad = str(tmp / "a\nb\x1b[31mc")
    p = run_sweep(2, *GOOD, dir=bad, output=out, quiet=False)
    assert p.returncode == 2
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1, p.stderr
    assert "a\\nb\\x1b[31mc" in lines[0] and "\x1b" not in p.stderr


def test_a_preset_with_a_byte_order_mark_is_read(env, tmp_path):
    tmp, work, out, _ = env
    preset = tmp_path / "bom.toml"
    preset.write_bytes(b"\xef\xbb\xbf" + b'file-size = "8MiB"\nseq-record = "1MiB"\n')
    p = run_sweep(2, config=preset, dir=work, output=out, dry_run=True, check=0)
    assert "8 MiB per rank" in p.stdout


@pytest.mark.parametrize(
    "phases,said",
    [
        ("md-stat,md-stat", "'md-stat' is listed twice"),
        ("md,md-stat", "'md-stat' is listed twice (through md and md-stat)"),
        ("md-rmdir,md", "'md-rmdir' is listed twice (through md-rmdir and md)"),
    ],
)
def test_a_phase_named_twice_is_refused_by_one_rule(env, phases, said):
    """A phase named twice, by its name or through the group md, is one refusal: one line,
    status 2, nothing created (md,md-stat used to run md-stat once, silently)."""
    tmp, work, out, _ = env
    before = snapshot(tmp)
    p = run_sweep(2, *GOOD, phases=phases, dir=work, output=out, quiet=False)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and lines == ["iosweep: --phases: " + said], p.stderr
    assert snapshot(tmp) == before


def _deep_folder(base, length):
    """A folder whose absolute path is `length` bytes long, made one component at a time (each
    mkdir relative to the last, as no single path may reach PATH_MAX)."""
    path, fd = str(base), os.open(str(base), os.O_RDONLY | os.O_DIRECTORY)
    try:
        while len(path) < length:
            name = "d" * min(200, length - len(path) - 1)
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, path = nxt, path + "/" + name
    finally:
        os.close(fd)
    return path


@pytest.mark.parametrize(
    "length, phases, why",
    [(4060, "seq-write", "folder"), (4040, "md-create,md-remove", "--md-depth")],
)
def test_a_dir_whose_paths_would_pass_path_max_is_refused(tmp_path, length, phases, why):
    """A --dir so deep that the run's files (or its metadata tree, 3 levels of folders below
    it) would not fit in PATH_MAX is refused up front, naming the option, with nothing made;
    before, the run started and stopped with ENAMETOOLONG."""
    deep = _deep_folder(tmp_path, length)
    out = tmp_path / "r.h5"
    p = run_sweep(1, dir=deep, file_size="1MiB", phases=phases, md_items=8, md_depth=3, output=out)
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and len(said) == 1, p.stderr
    assert said[0].startswith("iosweep: --dir: '") and "PATH_MAX" in said[0], said
    assert said[0].endswith(why) or why in said[0], said
    leaf = os.open(deep, os.O_RDONLY | os.O_DIRECTORY) if len(deep) < 4096 else None
    if leaf is not None:
        try:
            assert os.listdir(leaf) == []
        finally:
            os.close(leaf)
    assert not out.exists()
