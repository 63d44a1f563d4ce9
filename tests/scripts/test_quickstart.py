"""scripts/quickstart builds the `release` preset (build/, the build the README's install section
installs: one build, not two) and only the binary before it shows a result; the unit tests are
not compiled first. cmake and mpirun are stand-ins on PATH that record how they were called (the
real build and sweep are what every other test runs); install-deps runs for real and finds
every package there."""
import os
import subprocess

from conftest import SOURCE_DIR

RECORDER = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
"""


def test_quickstart_builds_the_release_preset_and_only_the_binary_first(tmp_path):
    log = tmp_path / "calls"
    shims = tmp_path / "bin"
    shims.mkdir()
    for tool in ("cmake", "mpirun"):
        (shims / tool).write_text(RECORDER.format(log=log))
        (shims / tool).chmod(0o755)
    env = dict(os.environ, PATH=f"{shims}:{os.environ['PATH']}", TMPDIR=str(tmp_path))
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "quickstart"), "--label", "q"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "cmake --preset release", calls
    assert calls[1].startswith("cmake --build --preset release --target iosweep "), calls
    assert len(calls) == 3 and calls[2].startswith("mpirun -np 4 --oversubscribe build/iosweep run")
    assert calls[2].endswith("--output results/iosweep.h5 --label q"), calls
    assert not any(p.name.startswith("iosweep-quickstart") for p in tmp_path.iterdir())
