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
