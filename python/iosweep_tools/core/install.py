"""Where iosweep's parts are: the binary, the launchers and shell tools, the published figures.

Two layouts. In a source tree the package is python/iosweep_tools, beside scripts/ (launchers,
iosweep-env.sh, cluster/ and dfs/ rsh agents), results/baselines/ and build/iosweep. Installed
(`cmake --install build --prefix P`) the binary is P/bin/iosweep, the other launchers and the
rsh agents P/libexec/iosweep, the launch environment P/share/iosweep/iosweep-env.sh, the
published figures P/share/iosweep/baselines, and the package
P/lib/python3/dist-packages/iosweep_tools with a module `_layout` written at install time: the
paths of those relative to the package's own folder, so that the prefix can move. Its presence
is what says "installed".
"""
import os
import shutil
from pathlib import Path

try:
    from iosweep_tools import _layout
except ImportError:  # a source tree: no installed layout
    _layout = None

PACKAGE = Path(__file__).resolve().parents[1]  # the folder iosweep_tools
SOURCE = PACKAGE.parents[1]  # python/.. in a source tree


def _installed(relative):
    return Path(os.path.normpath(PACKAGE / relative))


def find_binary():
    """The iosweep binary the commands run, the first of: $IOSWEEP_BIN (as given, whatever it
    is); the installed binary; build/iosweep of the source tree; `iosweep` on PATH. When none of
    the last three is an executable file, the one a message should name (the installed or the
    source tree's path)."""
    given = os.environ.get("IOSWEEP_BIN")
    if given:
        return given
    mine = _installed(_layout.BINARY) if _layout else SOURCE / "build" / "iosweep"
    if mine.is_file() and os.access(mine, os.X_OK):
        return str(mine)
    return shutil.which("iosweep") or str(mine)


def scripts_dir():
    """The folder of the launchers and the rsh agents: P/libexec/iosweep, or scripts/."""
    return _installed(_layout.LIBEXEC) if _layout else SOURCE / "scripts"


def env_file():
    """The launch environment's one definition: P/share/iosweep/iosweep-env.sh, or
    scripts/iosweep-env.sh."""
    return _installed(_layout.ENV_FILE) if _layout else SOURCE / "scripts" / "iosweep-env.sh"


def baselines_dir():
    """The folder of the published figures (CSV): P/share/iosweep/baselines, or
    results/baselines/."""
    return _installed(_layout.BASELINES) if _layout else SOURCE / "results" / "baselines"
