"""Every preset in modes/ parses and validates (--dry-run), so none can rot, and says what it
reproduces, how to launch it and what to expect."""
import pytest

from conftest import SOURCE_DIR, dir_listing, run_iosweep

PRESETS = sorted((SOURCE_DIR / "modes").glob("*.toml"))


def test_there_are_presets():
    assert PRESETS


@pytest.mark.parametrize("preset", PRESETS, ids=[p.stem for p in PRESETS])
def test_preset_dry_run(preset, workdir, tmp_path):
    # --force: a dry run validates the options, not this machine's free space for 512 ranks.
    p = run_iosweep(2, ["run", "--config", preset, "--dir", workdir, "--output", tmp_path / "r.h5",
                        "--dry-run", "--force"], check=0)
    assert "dry run" in p.stdout
    assert dir_listing(workdir) == [] and not (tmp_path / "r.h5").exists()


@pytest.mark.parametrize("preset", PRESETS, ids=[p.stem for p in PRESETS])
def test_preset_header(preset):
    head = [l for l in preset.read_text().splitlines() if l.startswith("#")]
    text = "\n".join(head).lower()
    assert len(head) >= 3
    assert "launcher" in text and "expected" in text
