"""Real multi-node behaviour on one machine, for the cluster tests.

EmulatedNodes: Open MPI starts an orted per host of the host file through scripts/cluster/emu-rsh,
which runs it in its own UTS namespace named after the host, so ranks on "node3" really see
node3 and talk to other nodes over TCP on loopback.

MiniSlurm: a real Slurm (munged, slurmctld, one slurmd per node, each slurmd in its own UTS
namespace) configured in a private folder, with its own munge socket and ports, started and
stopped by pid. Nothing it starts survives stop(), and nothing it did not start is touched.
"""
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from iosweep_tools.core.launch import can_emulate

SOURCE_DIR = Path(__file__).resolve().parents[2]


def free_port_block(n):
    """A base port with n free TCP ports after it (checked, not reserved)."""
    for base in range(17000, 40000, 100):
        ok = True
        for p in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free block of ports")


class MiniSlurm:
    def __init__(self, root, nodes=4, cpus=4):
        self.root = Path(root)
        self.nodes = [f"n{i}" for i in range(1, nodes + 1)]
        self.cpus = cpus
        self.pidfiles = []
        self.conf = self.root / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    @staticmethod
    def missing():
        for tool in (
            "slurmctld",
            "slurmd",
            "sbatch",
            "squeue",
            "scontrol",
            "sinfo",
            "munged",
            "mungekey",
        ):
            if shutil.which(tool) is None:
                return f"{tool} is not installed (scripts/install-deps installs Slurm and munge)"
        return can_emulate()

    def _pid(self, path, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                return int(Path(path).read_text().split()[0])
            except (OSError, ValueError, IndexError):
                time.sleep(0.05)
        raise RuntimeError(f"{path} did not appear: see the logs in {self.root}")

    def start(self):
        r = self.root
        for d in ("state", "spool", "tmp", "munge"):
            (r / d).mkdir(parents=True, exist_ok=True)
        for n in self.nodes:
            (r / "spool" / n).mkdir(exist_ok=True)
            (r / "tmp" / n).mkdir(exist_ok=True)
        # munge, on a socket and key of our own (the test folders are private to root, so it
        # runs as root; --force accepts that).
        key, sock, mpid = (
            r / "munge" / "munge.key",
            r / "munge" / "munge.sock",
            r / "munge" / "munged.pid",
        )
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True)
        subprocess.run(
            [
                "munged",
                "--force",
                f"--key-file={key}",
                f"--socket={sock}",
                f"--pid-file={mpid}",
                f"--log-file={r / 'munge' / 'munged.log'}",
                f"--seed-file={r / 'munge' / 'seed'}",
            ],
            check=True,
        )
        self.pidfiles.append(mpid)
        self._pid(mpid)
        n = len(self.nodes)
        base = free_port_block(n + 2)
        host = socket.gethostname().split(".")[0]
        self.conf.write_text(
            f"""# written by tests/cluster/minicluster.py
ClusterName=iosweeptest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={base}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
MailProg=/bin/true
ReturnToService=2
StateSaveLocation={r / 'state'}
SlurmdSpoolDir={r / 'spool'}/%n
TmpFS={r / 'tmp'}/%n
SlurmctldPidFile={r / 'slurmctld.pid'}
SlurmctldLogFile={r / 'slurmctld.log'}
SlurmdPidFile={r}/slurmd-%n.pid
SlurmdLogFile={r}/slurmd-%n.log
MinJobAge=600
NodeName=n[1-{n}] NodeAddr=127.0.0.1 Port=[{base + 1}-{base + n}] CPUs={self.cpus} State=UNKNOWN
PartitionName=test Nodes=n[1-{len(self.nodes)}] Default=YES MaxTime=INFINITE State=UP
"""
        )
        subprocess.run(["slurmctld", "-f", str(self.conf)], check=True, env=self.env)
        self.pidfiles.append(r / "slurmctld.pid")
        self._pid(r / "slurmctld.pid")
        for n in self.nodes:
            subprocess.run(
                [
                    "unshare",
                    "--uts",
                    "/bin/sh",
                    "-c",
                    f'hostname {n} && exec slurmd -f "$0" -N {n}',
                    str(self.conf),
                ],
                check=True,
                env=self.env,
            )
            self.pidfiles.append(r / f"slurmd-{n}.pid")
            self._pid(r / f"slurmd-{n}.pid")
        self.wait_idle()

    def wait_idle(self, timeout=30.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            p = subprocess.run(
                ["sinfo", "-h", "-N", "-o", "%N %t"], capture_output=True, text=True, env=self.env
            )
            states = dict(ln.split() for ln in p.stdout.splitlines() if ln.strip())
            if len(states) == len(self.nodes) and all(s == "idle" for s in states.values()):
                return
            time.sleep(0.25)
        raise RuntimeError(f"nodes not idle after {timeout} s: {p.stdout} (logs in {self.root})")

    def sbatch(self, args, env):
        # Open MPI names its session folders by host under TMPDIR (/tmp/ompi.n1.0, ...), and
        # every cluster of this kind names its nodes n1..: each cluster gets a TMPDIR of its
        # own, so that two test runs on one machine never share a node's session folder.
        e = dict(env, SLURM_CONF=str(self.conf), TMPDIR=str(self.root / "tmp"))
        p = subprocess.run(
            ["sbatch", "--parsable"] + [str(a) for a in args], capture_output=True, text=True, env=e
        )
        if p.returncode != 0:
            raise RuntimeError(f"sbatch failed: {p.stderr}")
        return p.stdout.strip().split(";")[0]

    def wait_job(self, job, timeout=300.0):
        """Polls squeue until the job has left the queue; returns (JobState, ExitCode)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            q = subprocess.run(
                ["squeue", "-h", "-j", job], capture_output=True, text=True, env=self.env
            )
            if not q.stdout.strip():
                break
            time.sleep(0.25)
        else:
            raise RuntimeError(f"job {job} still queued after {timeout} s")
        info = subprocess.run(
            ["scontrol", "show", "job", job], capture_output=True, text=True, env=self.env
        ).stdout
        fields = dict(kv.split("=", 1) for kv in info.split() if "=" in kv)
        return fields.get("JobState"), fields.get("ExitCode")

    def daemon_logs(self, lines=20):
        """The last lines of every slurmd's log, for a failing job's message: what the nodes'
        daemons (and their PMIx servers) said, which the job's own output does not hold."""
        out = []
        for n in self.nodes:
            try:
                text = (self.root / f"slurmd-{n}.log").read_text(errors="replace")
            except OSError:
                continue
            out.append(f"--- slurmd-{n}.log (last {lines} lines)")
            out.extend(text.splitlines()[-lines:])
        return "\n".join(out)

    def stop(self):
        """Stops every daemon this object started, by pid, daemons first, munge last."""
        pids = []
        for pf in reversed(self.pidfiles):
            try:
                pids.append(int(Path(pf).read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        end = time.monotonic() + 10
        for pid in pids:
            while time.monotonic() < end:
                try:
                    os.kill(pid, 0)
                    time.sleep(0.1)
                except ProcessLookupError:
                    break
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
