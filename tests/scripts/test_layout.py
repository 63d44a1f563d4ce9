"""core.install: the one function that finds the binary, in its order ($IOSWEEP_BIN, the
installed binary, build/iosweep of the source tree, iosweep on PATH), and the folders of an
installed layout, read from the _layout.py an install writes beside the package and relative to
it, so that a prefix can move. The install here is a copy of the package laid out as
`cmake --install` lays it (CMakeLists.txt), under a prefix that is then renamed."""
import os
import shutil
import subprocess

import pytest

from conftest import SOURCE_DIR

LAYOUT = """BINARY = "../../../../bin/iosweep"
LIBEXEC = "../../../../libexec/iosweep"
BASELINES = "../../../../share/iosweep/baselines"
ENV_FILE = "../../../../share/iosweep/iosweep-env.sh"
"""
ASK = (
    "from iosweep_tools.core import install, launch; "
    "print(install.find_binary(), install.scripts_dir(), install.baselines_dir(), launch.ENV_FILE)"
)


def executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def ask(python_path, env_extra=None, path="/usr/bin:/bin"):
    env = {"PATH": path, "HOME": os.environ.get("HOME", "/root"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(env_extra or {})
    p = subprocess.run(
        ["/usr/bin/python3", "-c", f"import sys; sys.path.insert(0, {str(python_path)!r}); {ASK}"],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


@pytest.fixture
def prefix(tmp_path):
    """An installed layout under tmp_path/p, moved to tmp_path/moved: the package with its
    _layout.py, a stand-in binary and launcher, the environment file."""
    p = tmp_path / "p"
    package = p / "lib" / "python3" / "dist-packages" / "iosweep_tools"
    shutil.copytree(SOURCE_DIR / "python" / "iosweep_tools", package)
    (package / "_layout.py").write_text(LAYOUT)
    executable(p / "bin" / "iosweep")
    (p / "libexec" / "iosweep").mkdir(parents=True)
    shutil.copy(SOURCE_DIR / "scripts" / "make-threadlist", p / "libexec" / "iosweep" / "m-t")
    share = p / "share" / "iosweep"
    share.mkdir(parents=True)
    shutil.copy(SOURCE_DIR / "scripts" / "iosweep-env.sh", share)
    moved = tmp_path / "moved"
    p.rename(moved)
    return moved


def test_an_installed_package_finds_its_binary_and_folders_relative_to_itself(prefix):
    packages = prefix / "lib" / "python3" / "dist-packages"
    assert ask(packages) == [
        str(prefix / "bin" / "iosweep"),
        str(prefix / "libexec" / "iosweep"),
        str(prefix / "share" / "iosweep" / "baselines"),
        str(prefix / "share" / "iosweep" / "iosweep-env.sh"),
    ]
    # $IOSWEEP_BIN comes first, whatever it names; without an installed binary, iosweep on PATH;
    # with neither, the installed path, for a message to name.
    assert ask(packages, {"IOSWEEP_BIN": "/x/iosweep"})[0] == "/x/iosweep"
    (prefix / "bin" / "iosweep").unlink()
    elsewhere = executable(prefix / "elsewhere" / "iosweep")
    assert ask(packages, path=f"{elsewhere.parent}:/usr/bin:/bin")[0] == str(elsewhere)
    assert ask(packages)[0] == str(prefix / "bin" / "iosweep")


def test_the_source_tree_finds_build_iosweep_and_scripts(tmp_path):
    got = ask(SOURCE_DIR / "python")
    assert got[1:] == [
        str(SOURCE_DIR / "scripts"),
        str(SOURCE_DIR / "results" / "baselines"),
        str(SOURCE_DIR / "scripts" / "iosweep-env.sh"),
    ]
    built = SOURCE_DIR / "build" / "iosweep"
    if not (built.is_file() and os.access(built, os.X_OK)):
        pytest.skip(f"{built} is not built: the source tree's binary cannot be found")
    assert got[0] == str(built)


def test_an_installed_launcher_runs_with_no_source_tree_on_its_path(prefix):
    p = subprocess.run(
        [str(prefix / "libexec" / "iosweep" / "m-t"), "--slots", "2", "n[1-2]"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        cwd="/",
    )
    assert (p.returncode, p.stdout, p.stderr) == (0, "n1 slots=2\nn2 slots=2\n", "")
    # It ran the installed package: breaking that copy breaks the launcher.
    (
        prefix / "lib" / "python3" / "dist-packages" / "iosweep_tools" / "threadlist" / "cli.py"
    ).write_text("raise SystemExit('the installed copy ran')\n")
    p = subprocess.run(
        [str(prefix / "libexec" / "iosweep" / "m-t"), "n1"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert p.stderr.strip() == "the installed copy ran"
