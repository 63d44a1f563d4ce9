"""How iosweep is launched: the environment of scripts/iosweep-env.sh, mpirun's command line, and
emulated nodes (scripts/cluster/emu-rsh).

    env = launch_env()                           # for subprocess.run(["mpirun", ...], env=env)
    cmd, env = mpirun(4, hostfile=None)          # mpirun --bind-to none -np 4 --oversubscribe
    emulated_nodes(path, 16, 8)                  # a host file of node01 .. node16, 8 slots each

The launch environment is the one of iosweep-env.sh, which the bash scripts source: this module
reads its lines, so both sides use one definition.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

from iosweep_tools.core import install

ENV_FILE = install.env_file()
EMU_RSH = install.scripts_dir() / "cluster" / "emu-rsh"

_SETTING = re.compile(
    r"(iosweep_env|iosweep_env_root) +([A-Za-z_][A-Za-z0-9_]*) +([^\s'\"$`\\;&|<>(){}#]+)"
)
_HELPER = re.compile(r"iosweep_env(_root)?\(\) \{ .* \}|unset -f iosweep_env iosweep_env_root")


def env_settings(path=ENV_FILE):
    """[(name, value, root_only)] as iosweep-env.sh sets them, in file order."""
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or _HELPER.fullmatch(line):
            continue
        m = _SETTING.fullmatch(line)
        if not m:
            raise ValueError(
                f"{path}: line {i}: expected 'iosweep_env NAME VALUE' or "
                f"'iosweep_env_root NAME VALUE' (found '{line}')"
            )
        out.append((m.group(2), m.group(3), m.group(1) == "iosweep_env_root"))
    return out


def launch_vars(euid=None):
    """{name: value} that iosweep-env.sh sets for a user (this process's effective uid by
    default)."""
    euid = os.geteuid() if euid is None else euid
    return {name: value for name, value, root_only in env_settings() if euid == 0 or not root_only}


def launch_env(base=None, euid=None):
    """A copy of `base` (os.environ by default) with the launch variables set where `base` has
    them unset or empty, exactly as sourcing iosweep-env.sh does in bash."""
    env = dict(os.environ if base is None else base)
    for name, value in launch_vars(euid).items():
        if not env.get(name):
            env[name] = value
    return env


# ------------------------------------------------------------------------ emulated nodes


def can_emulate():
    """None when this machine can run emulated nodes (scripts/cluster/emu-rsh), else why not."""
    if os.geteuid() != 0:
        return "emulated nodes need root (unshare --uts)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    if subprocess.run(["unshare", "--uts", "true"], capture_output=True).returncode != 0:
        return "this machine refuses new UTS namespaces"
    return None


def emulated_env(base):
    """`base` with what makes mpirun start one orted per host of its host file as an emulated
    node: emu-rsh as its rsh agent, TCP on loopback between nodes. The orteds start each other
    down Open MPI's tree (its default): started one by one from mpirun instead
    (plm_rsh_no_tree_spawn), 128 ranks on 16 emulated nodes did not get through MPI_Init in
    400 s on a 2-core machine, where the tree takes 14 s."""
    env = dict(base)
    env.pop("OMPI_MCA_plm_rsh_no_tree_spawn", None)
    env.update(
        {
            "OMPI_MCA_plm_rsh_agent": str(EMU_RSH),
            "OMPI_MCA_oob_tcp_if_include": "lo",
            "OMPI_MCA_btl_tcp_if_include": "lo",
        }
    )
    return env


def emulated_nodes(path, nodes, slots):
    """Writes a host file of `nodes` emulated nodes (node01, node02 ...) of `slots` slots each
    (scripts/cluster/emu-rsh starts them) to `path` and returns it."""
    path.write_text("".join(f"node{i + 1:02d} slots={slots}\n" for i in range(nodes)))
    return path


def mpirun(n, hostfile=None, bind=False):
    """(command, environment) of mpirun starting `n` ranks with the launch environment:
    unbound (--bind-to none) unless `bind` (mpirun's own binding), on this machine
    (--oversubscribe) or, with `hostfile`, round-robin over its emulated nodes."""
    env = launch_env()
    cmd = ["mpirun"] + ([] if bind else ["--bind-to", "none"]) + ["-np", str(n)]
    if hostfile:
        cmd += ["--hostfile", str(hostfile), "--map-by", "node"]
        env = emulated_env(env)
    else:
        cmd += ["--oversubscribe"]
    return cmd, env
