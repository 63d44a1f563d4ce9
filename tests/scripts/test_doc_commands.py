"""Every command the documentation shows is one iosweep takes as written.

README.md, docs/*.md, modes/README.md and results/README.md show commands in fenced blocks and in
`inline code`. Each command of iosweep's own (build/iosweep or iosweep, under mpirun/mpiexec,
srun, sbatch or dfs-bed exec too, and every launcher in scripts/) is checked against the real
program: the program exists, its subcommand exists, every --option it gives is one the program's
own --help lists, and every preset it names (--config FILE or NAME) is there. Placeholders
(`D`, `...`, `[optional]`) are allowed; an option or a program the code no longer has is not.
"""
import os
import re
import shlex
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import BIN, SOURCE_DIR

DOCS = ["README.md", "modes/README.md", "results/README.md"] + sorted(
    str(p.relative_to(SOURCE_DIR)) for p in (SOURCE_DIR / "docs").glob("*.md")
)
LAUNCHERS = ("mpirun", "mpiexec", "srun", "sbatch", "timeout", "sudo", "env")
FENCE = re.compile(r"^```(\w*)")
INLINE = re.compile(r"`([^`\n]+)`")


def fenced_lines(text):
    """(line number, line) of every shell block, continuation lines joined."""
    out, lang, joined, start = [], None, "", 0
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line.strip())
        if m:
            lang = None if lang is not None else m.group(1)
            continue
        if lang is None or lang not in ("", "sh", "bash", "shell", "console"):
            continue
        if not joined:
            start = n
        joined += line.rstrip().rstrip("\\") + " "
        if not line.rstrip().endswith("\\"):
            out.append((start, joined.strip()))
            joined = ""
    return out


def inline_commands(text):
    """(line number, span) of inline code that starts with one of iosweep's programs."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in INLINE.finditer(line):
            span = m.group(1).strip()
            if re.match(r"(build/iosweep|scripts/[a-z][\w-]*|iosweep(-\w+)?)\s+\S", span):
                out.append((n, span))
    return out


def words(line):
    """Shell words of a documentation line, without comments, optional brackets and
    substitutions; None when it is not a shell command at all."""
    line = re.sub(r"\s#.*$", "", line)
    line = re.sub(r"\$\([^)]*\)", "X", line).replace("[", " ").replace("]", " ")
    try:
        return shlex.split(line)
    except ValueError:
        return None


def segments(ws):
    """The simple commands of a line split at |, &&, ||, ; and redirections."""
    seg = []
    for w in ws:
        if w in ("|", "&&", "||", ";") or w.startswith(">") or w.startswith("<"):
            if seg:
                yield seg
            seg = []
        else:
            seg.append(w)
    if seg:
        yield seg


def program_of(seg):
    """(program, its arguments) of a simple command, past environment assignments and the
    launchers (with their options) in front of it; None when it is not iosweep's."""
    i = 0
    while i < len(seg):
        w = seg[i]
        if re.match(r"^[A-Z_][A-Z0-9_]*=", w) or w.startswith("(") or w in ("cd", "exec"):
            i += 1
            continue
        if w in LAUNCHERS:
            i += 1
            while i < len(seg) and not ours(seg[i]):
                i += 1
            continue
        return (w, seg[i + 1 :]) if ours(w) else None
    return None


def ours(w):
    return w in ("build/iosweep", "iosweep") or bool(
        re.match(r"^(scripts/[\w/.-]+|iosweep-\w+)$", w)
    )


@lru_cache(maxsize=None)
def help_text(argv):
    """What `argv --help` prints, or None when it fails (argv: a program and its subcommand)."""
    p = subprocess.run(
        [*argv, "--help"], capture_output=True, text=True, timeout=60, cwd=SOURCE_DIR
    )
    return p.stdout + p.stderr if p.returncode == 0 else None


def help_options(argv):
    """The --options a program's --help names."""
    text = help_text(argv)
    assert text is not None, f"{' '.join(argv)} --help fails"
    return frozenset(re.findall(r"(--[a-z][a-z0-9-]*)", text))


def resolve(program):
    if program in ("build/iosweep", "iosweep"):
        return BIN
    name = program.split("/")[-1]
    path = SOURCE_DIR / "scripts" / name
    if program.startswith("scripts/slurm/") or program.startswith("scripts/cluster/"):
        path = SOURCE_DIR / program
    assert path.exists(), f"{program}: no such program in scripts/"
    return str(path)


def check_iosweep(args):
    """`iosweep SUBCOMMAND ...`: the subcommand exists and takes every option given."""
    sub = next((a for a in args if not a.startswith("-")), None)
    if sub in ("run", "show", "units"):
        known = help_options((BIN, sub)) | help_options((BIN,))
    else:
        known = help_options((BIN,))
    check_options(args, known, "iosweep " + (sub or ""))
    for i, a in enumerate(args[:-1]):
        if a == "--config" and args[i + 1] not in ("FILE", "NAME"):
            preset = args[i + 1]
            named = SOURCE_DIR / "modes" / f"{preset}.toml"
            assert (SOURCE_DIR / preset).exists() or named.exists(), f"no preset {preset}"


def check_options(args, known, what):
    for a in args:
        if a == "--":
            break
        if a.startswith("--") and len(a) > 2 and a != "--help":
            for opt in a.split("=")[0].split("/"):  # prose names alternatives: --csv/--json
                assert opt in known, f"{what} takes no {opt}"


def check_script(path, args):
    """A launcher: every option it is given is in its --help (a subcommand's own --help too)."""
    if path.endswith(".sbatch"):
        check_iosweep(["run", *args])
        return
    if Path(path).suffix == ".sh" or not os.access(path, os.X_OK):
        return
    head = Path(path).read_bytes()[:64]
    if b"python" not in head:
        return
    known = help_options((path,))
    sub = args[0] if args and not args[0].startswith("-") else None
    if sub is not None and sub.isalpha() and help_text((path, sub)) is not None:
        known = known | help_options((path, sub))
    check_options(args, known, Path(path).name)
    if "--" in args and Path(path).name == "dfs-bed":
        check_command(args[args.index("--") + 1 :])


def check_command(seg):
    found = program_of(seg)
    if found is None:
        return False
    program, args = found
    path = resolve(program)
    if path == BIN:
        check_iosweep(args)
    else:
        check_script(path, args)
    return True


def commands():
    out = []
    for doc in DOCS:
        text = (SOURCE_DIR / doc).read_text()
        for n, line in fenced_lines(text) + inline_commands(text):
            ws = words(line)
            if ws:
                out.extend((f"{doc}:{n}", seg) for seg in segments(ws))
    return out


ALL = commands()


def test_the_docs_show_commands_at_all():
    checked = [where for where, seg in ALL if program_of(seg) is not None]
    assert len(checked) >= 40, checked


@pytest.mark.parametrize("where,seg", ALL, ids=[f"{w}:{' '.join(s)[:40]}" for w, s in ALL])
def test_a_documented_command_is_one_iosweep_takes(where, seg):
    try:
        check_command(seg)
    except AssertionError as e:
        raise AssertionError(f"{where}: {' '.join(seg)}: {e}") from None
