"""What a scale-check job with --config will run, as the binary's own dry run says, before any
folder is made or any job starts.

    plan = dry_run(binary, ["run", "--dir", d, "--config", "pixstor-md-empty", ...])
    plan.phases, plan.repetitions, plan.md_phases(), plan.md_inodes_per_rank, plan.steps

`iosweep run ... --dry-run` validates the whole command line (the preset found, the command
line's options over the preset's, every check of a run) and touches nothing; it runs as one
process (Open MPI's singleton), so its table of metadata trees has the 1-rank point alone: a
rank's items and folders, the same at every point with --md-items (items per rank).
"""
import re
from dataclasses import dataclass

from iosweep_tools.core.children import ChildError, first_said, run_child
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.launch import launch_env

# iosweep's advice in a refusal names its own options; scale-check takes others (it has no
# --force: its job is sized to fit), so the advice is given in scale-check's terms.
_ADVICE = (
    ("use a smaller --file-size or --force", "give a smaller --size or another --dir"),
    ("make fewer items or use --force", "give fewer --md-items or another --dir"),
    (
        "write less or use --force",
        "give fewer --md-items (the preset sets the bytes of each item) or another --dir",
    ),
)
_PHASES = re.compile(r"\s*phases \(in this order\): (.+); (\d+) repetition\(s\)")
# The metadata plan's row of the 1-rank point: ranks streams items branch folders.
_MD_ROW = re.compile(r"\s*1\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)")


@dataclass
class Plan:
    """The phases (iosweep's names, in order), the repetitions, and for the metadata phases the
    items and folders one rank makes (0 without them)."""

    phases: list
    repetitions: int
    md_items_per_rank: int = 0
    md_folders_per_rank: int = 0
    steps: list = None  # each step's phases, in order (one step without [[step]] tables)

    def md_phases(self):
        return [p for p in self.phases if p.startswith("md-")]

    def data_phases(self):
        return [p for p in self.phases if not p.startswith("md-")]

    @property
    def md_inodes_per_rank(self):
        return self.md_items_per_rank + self.md_folders_per_rank


def _said(p):
    return first_said(p.stderr) or first_said(p.stdout) or "no message"


def in_our_terms(said):
    """iosweep's refusal with its advice in scale-check's options (_ADVICE)."""
    for theirs, ours in _ADVICE:
        said = said.replace(theirs, ours)
    return said


def _parse(binary, text):
    """The Plan of a dry run's output; Stop (status 1) when it does not say its phases."""
    # One line per step of a stepped preset (each step's own phases), one for a run without.
    found = [m for m in map(_PHASES.fullmatch, text.splitlines()) if m]
    if not found:
        raise Stop(f"--bin: {binary} run --dry-run printed no 'phases (in this order)' line", 1)
    steps = [[p.strip() for p in m.group(1).split(",")] for m in found]
    every = []
    for step in steps:
        every += [p for p in step if p not in every]
    plan = Plan(every, int(found[0].group(2)), steps=steps)
    if plan.md_phases():
        lines = text.splitlines()
        after = next((i for i, ln in enumerate(lines) if ln.startswith("  metadata: ")), len(lines))
        row = next((m for m in map(_MD_ROW.fullmatch, lines[after:]) if m), None)
        if row is None:
            raise Stop(f"--bin: {binary} run --dry-run printed no metadata row of 1 rank", 1)
        plan.md_items_per_rank, plan.md_folders_per_rank = int(row.group(2)), int(row.group(4))
    return plan


def dry_run(binary, cmd):
    """The Plan of `binary` CMD --dry-run (CMD: `run` and its options). An option iosweep
    refuses is refused here in iosweep's own words (status 2); a binary that cannot answer is
    a failure (status 1)."""
    argv = [str(binary)] + [str(c) for c in cmd] + ["--dry-run"]
    try:
        p = run_child(argv, timeout=60, env=launch_env(), limit=1 << 20)
    except ChildError as e:
        raise Stop(f"--bin: {binary} run --dry-run {e}", 1) from None
    except OSError as e:
        raise Stop(f"--bin: {binary}: cannot run it ({e.strerror})", 1) from None
    said = _said(p)
    if p.returncode == 2 and said.startswith("iosweep: "):
        raise Stop(in_our_terms(said.removeprefix("iosweep: ")))
    if p.returncode != 0:
        raise Stop(f"--bin: {binary} run --dry-run exited {p.returncode}: {said}", 1)
    return _parse(binary, p.stdout)
