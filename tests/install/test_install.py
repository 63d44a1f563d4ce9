"""iosweep installed as sites install it, then used with the source tree out of reach.

`cmake --install BUILD --prefix P` into a temporary prefix, and the Debian package `cpack -G DEB`
makes, installed with apt-get. Each is then used the way a cluster node uses it: the binary under
mpiexec with a preset found by name, run from a home folder with the default --output,
iosweep-load, iosweep-report, the Python package imported, the man page, the Lmod modulefile
loaded (from its own tree, linked from a central tree, and for the package from where Debian's
Lmod looks by default), make-threadlist on PATH; the Python package installed with pip into a
user's own interpreter (a virtual environment). Every command runs in a private mount namespace
where an empty tmpfs lies over this checkout, so nothing can come from the source tree or its
build folder, and with no IOSWEEP_* or PYTHONPATH variable. The package is removed, then purged,
and nothing of it may remain. Needs root (namespaces, apt-get); skips saying why otherwise.
"""
import glob
import os
import shutil
import subprocess
from pathlib import Path

import h5py
import pytest

from conftest import BIN, SOURCE_DIR, mpi_env, run_ids

BUILD_DIR = Path(os.environ.get("IOSWEEP_BUILD_DIR", SOURCE_DIR / "build"))
LMOD_INIT = "/usr/share/lmod/lmod/init/bash"
LMOD_PROFILE = "/etc/profile.d/lmod.sh"  # a login shell's Lmod: MODULEPATH from modulespath
LMOD_LINK = "/etc/lmod/modules/iosweep"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="installing and hiding the tree need root"
)


def clean_env(path_first=None):
    """The launch environment of a node that never saw the checkout: no IOSWEEP_* variable, no
    PYTHONPATH, PATH from the system (with the install's bin first, when given)."""
    env = {k: v for k, v in mpi_env().items() if not k.startswith("IOSWEEP_") and k != "PYTHONPATH"}
    env["PATH"] = (f"{path_first}:" if path_first else "") + "/usr/sbin:/usr/bin:/sbin:/bin"
    return env


def hidden(cmd, env, cwd, timeout=180):
    """Runs `cmd` (a shell command line) with an empty tmpfs over the source tree."""
    script = f"mount -t tmpfs -o size=1m iosweep-hidden {SOURCE_DIR} && cd {cwd} && {cmd}"
    p = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert p.returncode == 0, f"{cmd}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def use_installed(bindir, work, env):
    """A small sweep with a preset found by name, run from a home folder with the default
    --output (results/iosweep.h5 there, its folder made by the run; the end of the run says
    where), then iosweep-load and iosweep-report of it."""
    home = work / "home"
    home.mkdir()
    out = home / "results" / "iosweep.h5"
    said = hidden(
        f"mpiexec --oversubscribe -n 2 {bindir}/iosweep run --config smoke --dir {work}"
        f" --file-size 1m --seq-record 256k --sweep 1:2 --quiet",
        env,
        home,
    )
    assert f"appended to {out}" in said, said
    with h5py.File(out, "r") as f:
        run_id = run_ids(f)[-1]
        assert f["runs"][run_id].attrs["status"] == 1  # complete
    listing = hidden(f"{bindir}/iosweep-load {out}", env, work)
    assert run_id in listing
    hidden(f"{bindir}/iosweep-report {out} -o {work}/r.html", env, work)
    assert run_id in (work / "r.html").read_text()
    return run_id


def test_cmake_install_into_a_prefix_works_without_the_source_tree(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(
        ["cmake", "--install", str(BUILD_DIR), "--prefix", str(prefix)],
        check=True,
        capture_output=True,
    )
    for part in (
        "bin/iosweep",
        "bin/iosweep-load",
        "share/iosweep/modes/smoke.toml",
        "share/iosweep/slurm/iosweep.sbatch",
        "share/iosweep/iosweep-env.sh",
        "share/doc/iosweep/README.md",
        "share/doc/iosweep/LICENSE",
        "share/doc/iosweep/copyright",
        "share/man/man1/iosweep.1.gz",
        "bin/make-threadlist",
        "lib/python3/dist-packages/iosweep_tools/__init__.py",
    ):
        assert (prefix / part).exists(), f"{part} was not installed"
    # A moved install tree still works: every path between its parts is relative.
    moved = tmp_path / "moved"
    shutil.move(prefix, moved)
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env()
    use_installed(moved / "bin", work, env)
    tools = hidden(f"{moved}/bin/make-threadlist --slots 2 'n[1-2]'", env, work)
    assert tools.split() == ["n1", "slots=2", "n2", "slots=2"], tools
    # --dry-run from a folder without results/: the default output is made by the run, so the
    # dry run accepts it, says where it will be, and makes nothing.
    empty = tmp_path / "empty-home"
    empty.mkdir()
    plan = hidden(f"{moved}/bin/iosweep run --dir {work} --file-size 16m --dry-run", env, empty)
    assert f"results: appended to {empty}/results/iosweep.h5 (--output's default" in plan, plan
    assert list(empty.iterdir()) == []


LOADED = (
    "module load iosweep && command -v iosweep && command -v iosweep-report"
    " && command -v make-threadlist && echo $IOSWEEP_ROOT && man -w iosweep"
    " && /usr/bin/python3 -c 'import iosweep_tools; print(iosweep_tools.__file__)'"
)


def check_loaded(out, prefix):
    """What LOADED printed: everything from the install tree at `prefix`."""
    lines = out.split()
    assert lines[0] == f"{prefix}/bin/iosweep", out
    assert lines[1] == f"{prefix}/bin/iosweep-report", out
    assert lines[2] == f"{prefix}/bin/make-threadlist", out
    assert lines[3] == str(prefix), out
    assert lines[4] == f"{prefix}/share/man/man1/iosweep.1.gz", out
    assert lines[5].startswith(f"{prefix}/lib/python3/dist-packages/iosweep_tools/"), out


# The modulefile from its own tree, and linked into a site's central tree (the folder linked,
# and the file linked), as sites do: it finds its prefix through the links.
@pytest.mark.skipif(not os.path.exists(LMOD_INIT), reason="Lmod is not installed (package lmod)")
@pytest.mark.parametrize("where", ["own-tree", "folder-linked", "file-linked"])
def test_the_modulefile_puts_iosweep_and_its_package_in_reach(tmp_path, where):
    prefix = tmp_path / "prefix"
    subprocess.run(
        ["cmake", "--install", str(BUILD_DIR), "--prefix", str(prefix)],
        check=True,
        capture_output=True,
    )
    own = prefix / "share" / "modulefiles"
    tree = {"own-tree": own, "folder-linked": tmp_path / "central"}.get(where, tmp_path / "c2")
    if where == "folder-linked":
        tree.mkdir()
        (tree / "iosweep").symlink_to(own / "iosweep")
    elif where == "file-linked":
        (tree / "iosweep").mkdir(parents=True)
        for f in (own / "iosweep").iterdir():
            (tree / "iosweep" / f.name).symlink_to(os.path.relpath(f, tree / "iosweep"))
    out = hidden(f"source {LMOD_INIT} && module use {tree} && {LOADED}", clean_env(), tmp_path)
    check_loaded(out, prefix)


# A user's own interpreter (a pyenv or conda Python; here a virtual environment of Debian's,
# which sees Debian's h5py, numpy, pandas and matplotlib as a conda environment sees its own)
# takes the package with pip from a copy of the tree's Python side, then reads a run with it.
# --no-deps: Debian names its h5py's metadata h5py._debian_h5py_serial, which pip does not count
# as h5py; the imports below show the four packages are there.
def test_pip_installs_the_package_into_a_users_own_interpreter(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(SOURCE_DIR / part, src)
    shutil.copytree(SOURCE_DIR / "python", src / "python", ignore=shutil.ignore_patterns("__py*"))
    venv = tmp_path / "venv"
    subprocess.run(
        ["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True
    )
    p = subprocess.run(
        [f"{venv}/bin/python", "-m", "pip", "install", "-q", "--no-index"]
        + ["--no-build-isolation", "--no-deps", str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    work = tmp_path / "work"
    work.mkdir()
    out = work / "r.h5"
    subprocess.run(
        [BIN, "run", "--dir", str(work), "--file-size", "1m", "--seq-record", "256k", "--quiet"]
        + ["--phases", "seq-write,seq-read", "--output", str(out)],
        check=True,
        capture_output=True,
        env=mpi_env(),
    )
    code = (
        "import iosweep_tools; from iosweep_tools.results import frames; "
        f"print(iosweep_tools.__file__); print(len(frames.load('{out}')[1]))"
    )
    said = hidden(
        f'{venv}/bin/python -c "{code}" && {venv}/bin/iosweep-load {out}', clean_env(), work
    )
    lines = said.splitlines()
    assert lines[0].startswith(f"{venv}/lib/python3"), said
    assert lines[1] == "2", said  # seq-write and seq-read at 1 rank
    with h5py.File(out, "r") as f:
        assert run_ids(f)[-1] in said


def package_files(deb):
    """The regular files and links a .deb installs (absolute paths)."""
    listing = subprocess.run(["dpkg-deb", "-c", deb], check=True, capture_output=True, text=True)
    files = []
    for line in listing.stdout.splitlines():
        name = line.split(None, 5)[5].split(" -> ")[0]
        if not line.startswith("d"):
            files.append(name.lstrip("."))
    return files


def test_the_debian_package_installs_works_and_leaves_nothing(tmp_path):
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        pytest.skip("no apt-get/dpkg-deb: not a Debian system")
    if subprocess.run(["dpkg", "-s", "iosweep"], capture_output=True).returncode == 0:
        pytest.skip("a package named iosweep is already installed here; it is not ours to remove")
    subprocess.run(
        [
            "cpack",
            "-G",
            "DEB",
            "-B",
            str(tmp_path / "pkg"),
            "--config",
            str(BUILD_DIR / "CPackConfig.cmake"),
        ],
        check=True,
        capture_output=True,
    )
    debs = glob.glob(str(tmp_path / "pkg" / "iosweep_*.deb"))
    assert len(debs) == 1, debs
    info = subprocess.run(["dpkg-deb", "-f", debs[0], "Depends"], capture_output=True, text=True)
    for dep in ("libhdf5", "libopenmpi", "liburing", "python3-h5py", "python3-pandas"):
        assert dep in info.stdout, f"Depends lacks {dep}: {info.stdout}"
    files = package_files(debs[0])
    try:
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", debs[0]],
            check=True,
            capture_output=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        work = tmp_path / "work"
        work.mkdir()
        use_installed(Path("/usr/bin"), work, clean_env())
        hidden("/usr/bin/python3 -c 'import iosweep_tools.results'", clean_env(), work)
        # Where Debian's Lmod looks by default (/etc/lmod/modulespath), as a login shell sets it.
        assert os.readlink(LMOD_LINK) == "../../../usr/share/modulefiles/iosweep"
        if os.path.exists(LMOD_INIT):
            check_loaded(hidden(f". {LMOD_PROFILE} && {LOADED}", clean_env(), work), Path("/usr"))
    finally:
        # remove, then purge, as an administrator does: both must succeed
        ends = [
            subprocess.run(
                ["apt-get", how, "-y", "-q", "iosweep"],
                capture_output=True,
                text=True,
                env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            )
            for how in ("remove", "purge")
        ]
    for p in ends:
        assert p.returncode == 0, f"{p.args}: {p.stdout}{p.stderr}"
    assert subprocess.run(["dpkg", "-s", "iosweep"], capture_output=True).returncode != 0
    assert not os.path.lexists(LMOD_LINK)
    left = [f for f in files if os.path.lexists(f)]
    assert left == [], f"removing the package left {left}"
    for folder in (
        "/usr/lib/python3/dist-packages/iosweep_tools",
        "/usr/share/iosweep",
        "/usr/libexec/iosweep",
        "/usr/share/doc/iosweep",
    ):
        assert not os.path.exists(folder), f"removing the package left {folder}"
