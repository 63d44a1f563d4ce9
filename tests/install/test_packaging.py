"""What sites expect beside the binary: the license, the man page, an RPM and a Spack package.

- LICENSE states BSD-3-Clause, and Debian's copyright file, the RPM and the Spack package say
  the same license.
- The man page is made at build time from the option table (`iosweep help-man`, no MPI: it runs
  with no network at all, as in a build chroot) and names every option `iosweep --help` lists.
- `cpack -G RPM` builds an RPM here (Debian's rpm package) whose dependencies carry the names
  of RHEL-likes and whose files are the install tree's under /usr.
- packaging/spack/iosweep/package.py is valid Python whose versions and variants are
  CMakeLists.txt's: the version of project(), and per variant the option it sets, with the
  same default.
"""
import ast
import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, SOURCE_DIR

BUILD_DIR = Path(os.environ.get("IOSWEEP_BUILD_DIR", SOURCE_DIR / "build"))
CMAKE = (SOURCE_DIR / "CMakeLists.txt").read_text()
SPACK = SOURCE_DIR / "packaging" / "spack" / "iosweep" / "package.py"
# Variants whose default differs from the CMake option's, and why.
OWN_DEFAULTS = {"bench": "a site's build leaves out the kernel benchmark (Google Benchmark)"}
VERSION = re.search(r"project\(iosweep VERSION (\S+)", CMAKE).group(1)


def help_options():
    """Every --option `iosweep --help` lists."""
    text = subprocess.run([BIN, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^\s+(--[a-z][a-z0-9-]*)", text, re.M))


def test_the_license_is_stated_the_same_everywhere():
    text = (SOURCE_DIR / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n")
    copyright = (SOURCE_DIR / "packaging" / "deb" / "copyright").read_text()
    assert copyright.startswith("Format: https://www.debian.org/doc/packaging-manuals/")
    assert re.search(r"^Files: \*\n.*\nLicense: BSD-3-Clause$", copyright, re.M)
    # the DEP-5 text holds the LICENSE's conditions, line for line
    conditions = [ln.strip() for ln in text.split("All rights reserved.\n")[1].splitlines()]
    assert all(c in copyright for c in conditions if c)
    assert 'set(CPACK_RPM_PACKAGE_LICENSE "BSD-3-Clause")' in CMAKE
    assert 'license("BSD-3-Clause")' in SPACK.read_text()


def test_the_man_page_is_made_from_the_option_table_without_mpi(tmp_path):
    page = BUILD_DIR / "man" / "iosweep.1.gz"
    assert page.exists(), "the build made no man page (target iosweep_man)"
    roff = gzip.decompress(page.read_bytes()).decode()
    assert roff.startswith('.\\" iosweep(1)') and f'"iosweep {VERSION}"' in roff
    named = re.findall(r"^\\fB\\-\\-((?:[a-z0-9]|\\-)+)\\fR", roff, re.M)
    assert {"--" + n.replace("\\-", "-") for n in named} >= help_options() - {"--help"}
    # the same page, by the binary, where MPI could not start (no network): it needs none
    if os.geteuid() == 0 and shutil.which("unshare"):
        p = subprocess.run(
            ["unshare", "--net", BIN, "help-man"], capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0 and p.stdout == roff, p.stderr
    if shutil.which("groff"):  # it renders without a warning
        p = subprocess.run(
            ["groff", "-man", "-Tutf8", "-ww", "-z"], input=roff, capture_output=True, text=True
        )
        assert p.returncode == 0 and p.stderr == "", p.stderr


def test_cpack_builds_an_rpm_with_the_dependencies_named_as_rhel_names_them(tmp_path):
    if shutil.which("rpmbuild") is None:
        pytest.skip("no rpmbuild (Debian package rpm; scripts/install-deps installs it)")
    p = subprocess.run(
        [
            "cpack",
            "-G",
            "RPM",
            "-B",
            str(tmp_path),
            "--config",
            str(BUILD_DIR / "CPackConfig.cmake"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    rpms = list(tmp_path.glob(f"iosweep-{VERSION}-*.rpm"))
    assert len(rpms) == 1, list(tmp_path.iterdir())

    def query(*what):
        return subprocess.run(
            ["rpm", "-qp", *what, str(rpms[0])], capture_output=True, text=True, check=True
        ).stdout

    requires = {ln.split()[0] for ln in query("--requires").splitlines()}
    for dep in ("openmpi", "hdf5", "liburing", "python3-h5py", "python3-pandas"):
        assert dep in requires, requires
    assert not [r for r in requires if "libhdf5_serial" in r or r.startswith("libopenmpi")]
    assert query("--qf", "%{LICENSE}") == "BSD-3-Clause"
    files = set(query("--list").split())
    for f in (
        "/usr/bin/iosweep",
        "/usr/bin/make-threadlist",
        "/usr/share/man/man1/iosweep.1.gz",
        "/usr/share/doc/iosweep/LICENSE",
        f"/usr/share/modulefiles/iosweep/{VERSION}.lua",
        "/usr/lib/python3/dist-packages/iosweep_tools/__init__.py",
    ):
        assert f in files, f
    assert not [f for f in files if f.startswith("/etc/")]  # Debian's Lmod link is the .deb's


def calls(tree, name):
    """Every call of `name(...)` (a function or a method) in the module, as its literal
    positional and keyword arguments."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if getattr(node.func, "id", getattr(node.func, "attr", None)) != name:
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        kw = {k.arg: k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)}
        out.append((args, kw))
    return out


def test_the_spack_package_names_the_versions_and_options_of_cmakelists():
    tree = ast.parse(SPACK.read_text())
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [(c.name, [b.id for b in c.bases]) for c in classes] == [("Iosweep", ["CMakePackage"])]
    releases = [a[0] for a, kw in calls(tree, "version") if "branch" not in kw]
    assert releases == [VERSION], releases
    options = dict(re.findall(r"^option\((IOSWEEP_\w+) \"[^\"]*\" (ON|OFF)\)", CMAKE, re.M))
    variants = {a[0]: kw["default"] for a, kw in calls(tree, "variant")}
    defines = {a[1]: a[0] for a, _ in calls(tree, "define_from_variant")}
    assert set(defines) == set(variants), (defines, variants)
    for variant, option in defines.items():
        assert option in options, f"variant {variant} sets {option}, which CMakeLists.txt lacks"
        if variant not in OWN_DEFAULTS:
            assert variants[variant] == (options[option] == "ON"), (variant, option)
    # every engine CMake can leave out is a variant
    assert {o for o in options if o.startswith("IOSWEEP_WITH_")} <= set(defines.values())
