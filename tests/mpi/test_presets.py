"""Every preset in modes/ parses and validates (--dry-run), so none can rot, and says what it
reproduces, how to launch it and what to expect."""
import pytest

from conftest import SOURCE_DIR, dir_listing, run_sweep

PRESETS = sorted((SOURCE_DIR / "modes").glob("*.toml"))


def test_there_are_presets():
    assert PRESETS


@pytest.mark.parametrize("preset", PRESETS, ids=[p.stem for p in PRESETS])
def test_preset_dry_run(preset, workdir, tmp_path):
    # --force: a dry run validates the options, not this machine's free space for 512 ranks.
    p = run_sweep(
        2, config=preset, dir=workdir, output=tmp_path / "r.h5", dry_run=True, force=True, check=0
    )
    assert "dry run" in p.stdout
    assert dir_listing(workdir) == [] and not (tmp_path / "r.h5").exists()


@pytest.mark.parametrize("preset", PRESETS, ids=[p.stem for p in PRESETS])
def test_preset_header(preset):
    head = [ln for ln in preset.read_text().splitlines() if ln.startswith("#")]
    text = "\n".join(head).lower()
    assert len(head) >= 3
    assert "launcher" in text and "expected" in text


def preset_options(preset):
    import tomllib

    return tomllib.loads(preset.read_text())


IOZONE_PRESETS = [p for p in PRESETS if "# iozone:" in p.read_text()]


def test_the_published_presets_carry_their_iozone_command():
    assert {p.stem for p in IOZONE_PRESETS} >= {"pixstor-sequential", "pixstor-random"}


@pytest.mark.parametrize("preset", IOZONE_PRESETS, ids=[p.stem for p in IOZONE_PRESETS])
def test_preset_matches_the_iozone_command_it_reproduces(preset, workdir, tmp_path):
    """Reads the `# iozone:` line and checks the preset against it, option by option, through
    the configuration iosweep itself resolves (--dry-run prints it, the TOML is read here)."""
    text = preset.read_text()
    assert "# version: IOzone 3.492" in text
    cmd = (
        next(ln for ln in text.splitlines() if ln.startswith("# iozone:")).split(":", 1)[1].split()
    )
    assert cmd[0] == "iozone"
    flags = set(cmd)
    record = cmd[cmd.index("-r") + 1]
    tests = {cmd[i + 1] for i, a in enumerate(cmd) if a == "-i"} | {
        a[2:] for a in cmd if a.startswith("-i") and len(a) > 2
    }
    opts = preset_options(preset)
    phases = set(opts["phases"])
    fsync = opts.get("fsync", False)
    fsync_phases = (
        set()
        if fsync in (False, "none", "false")
        else (
            {"seq-write", "rand-write"} if fsync in (True, "all", "true") else set(fsync.split(","))
        )
    )
    units = {"K": "KiB", "M": "MiB", "G": "GiB"}
    want_record = record[:-1] + units[record[-1].upper()]
    if "0" in tests:  # -i0: initial write (and rewrite) in --seq-record records
        assert "seq-write" in phases and opts["seq-record"] == want_record
        assert ("seq-write" in fsync_phases) == ("-e" in flags)
    if "1" in tests:
        assert "seq-read" in phases and opts["seq-record"] == want_record
    if "2" in tests:  # -i2: random read and write in --rand-record records
        assert {"rand-write", "rand-read"} <= phases and opts["rand-record"] == want_record
        assert ("rand-write" in fsync_phases) == ("-e" in flags)
    assert opts.get("keep", False) == ("-w" in flags)
    # And iosweep resolves the preset to exactly that: --dry-run accepts it.
    run_sweep(
        2, config=preset, dir=workdir, output=tmp_path / "r.h5", dry_run=True, force=True, check=0
    )


MDTEST_PRESETS = [p for p in PRESETS if "# mdtest:" in p.read_text()]
MDTEST_PHASES = {"-C": "md-create", "-T": "md-stat", "-E": "md-read", "-r": "md-remove"}


def test_the_metadata_presets_carry_their_mdtest_command():
    assert {p.stem for p in MDTEST_PRESETS} >= {
        "pixstor-md-empty",
        "pixstor-md-4k",
        "pixstor-md-3k",
        "io500-mdtest-easy",
        "io500-mdtest-hard",
    }


def size_bytes(text):
    """mdtest's and iosweep's sizes in bytes: 4K, 4KiB, 3901."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = str(text).upper().removesuffix("IB").removesuffix("B")
    return int(t[:-1]) * units[t[-1]] if t[-1] in units else int(t)


@pytest.mark.parametrize("preset", MDTEST_PRESETS, ids=[p.stem for p in MDTEST_PRESETS])
def test_md_preset_matches_the_mdtest_command_it_mirrors(preset):
    """The `# mdtest:` line, option by option, against the preset's own options."""
    cmd = next(ln for ln in preset.read_text().splitlines() if ln.startswith("# mdtest:"))
    cmd = cmd.split(":", 1)[1].split()
    assert cmd[0] == "mdtest"
    opts = preset_options(preset)

    def arg(flag, default=None):
        return cmd[cmd.index(flag) + 1] if flag in cmd else default

    assert ("-u" in cmd) == (opts.get("md-layout", "private") == "private")
    assert ("-y" in cmd) == opts.get("md-fsync", False)
    depth = arg("-z", "0")
    assert opts.get("md-depth", "0") == depth
    if depth != "0":  # at depth 0 the one folder is the leaf
        assert ("-L" in cmd) == (opts.get("md-files", "leaf") == "leaf")
    if "-n" in cmd:  # items per task
        assert opts["md-items"] == arg("-n") and "md-items-total" not in opts
    else:  # the PixStor series: a total over each point's threads
        assert "md-items-total" in opts and "md-items" not in opts
    assert opts.get("md-items-per-folder", "0") == arg("-I", "0")
    branch = arg("-b", "auto")
    assert opts.get("md-branch", "auto") == ("auto" if branch.startswith("$") else branch)
    for flag, key in (("-w", "md-write-bytes"), ("-e", "md-read-bytes")):
        assert size_bytes(opts.get(key, "0")) == size_bytes(arg(flag, "0"))
    if "-W" in cmd:
        assert opts["stonewall"] == arg("-W") + "s" and opts["stonewall-wearout"] is True
    asked = {MDTEST_PHASES[f] for f in MDTEST_PHASES if f in cmd}
    if not asked:  # mdtest runs every phase; a read only where it reads bytes
        asked = {"md-create", "md-stat", "md-remove"} | ({"md-read"} if "-e" in cmd else set())
    assert set(opts["phases"]) == asked


@pytest.mark.parametrize("preset", MDTEST_PRESETS, ids=[p.stem for p in MDTEST_PRESETS])
def test_md_preset_runs_with_a_few_items(preset, workdir, tmp_path):
    """Each metadata preset for real on one point of 2 ranks, its millions of items replaced by a
    few (which finish long before any stonewall it sets); --cache keep spares the machine's
    caches (test_metadata drops them)."""
    opts = preset_options(preset)
    items = {"md_items_total": 64} if "md-items-total" in opts else {"md_items": 16}
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        config=preset,
        dir=workdir,
        output=out,
        quiet=True,
        ranks=2,
        cache="keep",
        **items,
        check=0,
    )
    assert dir_listing(workdir) == []
    for phase in opts["phases"]:
        assert sum(ln.startswith(phase + " ") for ln in p.stdout.splitlines()) == 1, phase


# The PixStor study's steps and the single-shape presets each of them is.
STUDY = {
    "iozone-random": "pixstor-random",
    "mdtest-empty": "pixstor-md-empty",
    "mdtest-4k": "pixstor-md-4k",
    "mdtest-3k": "pixstor-md-3k",
}


def test_the_pixstor_study_runs_each_single_preset_as_a_step():
    """Every [[step]] of pixstor-study, its keys over the top level, sets exactly what its
    single-shape preset sets (but keep, an option of the whole run the study leaves off)."""
    study = preset_options(SOURCE_DIR / "modes" / "pixstor-study.toml")
    steps = study.pop("step")
    assert [s["name"] for s in steps] == list(STUDY)
    for step in steps:
        merged = {**study, **{k: v for k, v in step.items() if k != "name"}}
        single = preset_options(SOURCE_DIR / "modes" / f"{STUDY[step['name']]}.toml")
        single.pop("keep", None)
        assert {k: v for k, v in merged.items() if k in single} == single, step["name"]
        assert set(step) - {"name"} <= set(single), step["name"]
