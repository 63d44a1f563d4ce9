"""iosweep installed as sites install it, then used with the source tree out of reach.

`cmake --install BUILD --prefix P` into a temporary prefix, and the Debian package `cpack -G DEB`
makes, installed with apt-get. Each is then used the way a cluster node uses it: the binary under
mpiexec with a preset found by name, iosweep-load, iosweep-report, the Python package imported,
the Lmod modulefile loaded; every command runs in a private mount namespace where an empty tmpfs
lies over this checkout, so nothing can come from the source tree or its build folder, and with
no IOSWEEP_* or PYTHONPATH variable. The package is removed again and nothing of it may remain.
Needs root (namespaces, apt-get); skips saying why otherwise.
"""
import glob
import os
import shutil
import subprocess
from pathlib import Path

import h5py
import pytest

from conftest import SOURCE_DIR, mpi_env, run_ids

BUILD_DIR = Path(os.environ.get("IOSWEEP_BUILD_DIR", SOURCE_DIR / "build"))
LMOD_INIT = "/usr/share/lmod/lmod/init/bash"

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
    """A small sweep with a preset found by name, then iosweep-load and iosweep-report of it."""
    out = work / "r.h5"
    hidden(
        f"mpiexec --oversubscribe -n 2 {bindir}/iosweep run --config smoke --dir {work}"
        f" --file-size 1m --seq-record 256k --sweep 1:2 --output {out} --quiet",
        env,
        work,
    )
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
    tools = hidden(f"{moved}/libexec/iosweep/make-threadlist --slots 2 'n[1-2]'", env, work)
    assert tools.split() == ["n1", "slots=2", "n2", "slots=2"] or "n1" in tools


@pytest.mark.skipif(not os.path.exists(LMOD_INIT), reason="Lmod is not installed (package lmod)")
def test_the_modulefile_puts_iosweep_and_its_package_in_reach(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(
        ["cmake", "--install", str(BUILD_DIR), "--prefix", str(prefix)],
        check=True,
        capture_output=True,
    )
    out = hidden(
        f"source {LMOD_INIT} && module use {prefix}/share/modulefiles && module load iosweep"
        " && command -v iosweep && command -v iosweep-report && echo $IOSWEEP_ROOT"
        " && /usr/bin/python3 -c 'import iosweep_tools; print(iosweep_tools.__file__)'",
        clean_env(),
        tmp_path,
    )
    lines = out.split()
    assert lines[0] == f"{prefix}/bin/iosweep"
    assert lines[1] == f"{prefix}/bin/iosweep-report"
    assert lines[2] == str(prefix)
    assert lines[3].startswith(f"{prefix}/lib/python3/dist-packages/iosweep_tools/")


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
    finally:
        subprocess.run(
            ["apt-get", "remove", "--purge", "-y", "-q", "iosweep"],
            capture_output=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    left = [f for f in files if os.path.lexists(f)]
    assert left == [], f"removing the package left {left}"
    for folder in (
        "/usr/lib/python3/dist-packages/iosweep_tools",
        "/usr/share/iosweep",
        "/usr/libexec/iosweep",
        "/usr/share/doc/iosweep",
    ):
        assert not os.path.exists(folder), f"removing the package left {folder}"
