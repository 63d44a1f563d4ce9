"""Sizes, parsed by the iosweep binary itself (`iosweep units SIZE...`): the parser and the
messages of its options, so that a size means the same to a command as to iosweep.

    units("build/iosweep", "4k", "16m")            # [4096, 16777216]; UnitsError
    sizes(binary, ("--size", "1g", WHOLE_RECORDS))  # [1073741824]; Stop naming the option
"""
from iosweep_tools.core.children import ChildError, run_child
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.launch import launch_env
from iosweep_tools.core.text import one_line, size_text


class UnitsError(Exception):
    """A size iosweep refuses (status 2) or a binary that could not answer; str() is the reason."""

    def __init__(self, msg, status):
        super().__init__(msg)
        self.status = status


def units(binary, *texts):
    """The byte count of each size, from `iosweep units`: the parser and messages of the options.
    The binary runs as every child of the commands does (core.children.run_child), with 30 s and
    64 KiB of output at most. Raises UnitsError: status 2 when iosweep refused a size."""
    cmd = [str(binary), "units", "--", *texts]
    try:
        p = run_child(cmd, timeout=30, env=launch_env(), limit=65536)
    except ChildError as e:
        raise UnitsError(f"{binary} units: {e}", None) from None
    except OSError as e:
        raise UnitsError(f"{binary}: cannot run it ({e.strerror})", None) from None
    if p.returncode != 0:
        said = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = next((ln for ln in said if ln.startswith("iosweep: ")), said[0] if said else "")
        why = why.removeprefix("iosweep: ").removeprefix("units: ")
        if p.returncode != 2:
            why = f"{binary} units failed (exit {p.returncode})" + (f": {why}" if why else "")
        raise UnitsError(why, p.returncode)
    out = p.stdout.split()
    if len(out) != len(texts) or not all(x.isdigit() for x in out):
        got = one_line(p.stdout.strip())
        got = got if len(got) <= 200 else got[:200] + "..."
        raise UnitsError(
            f"{binary} units: expected {len(texts)} byte count(s), got '{got}'", p.returncode
        )
    return [int(x) for x in out]


def _units(binary, texts):
    """([byte counts], "") of `iosweep units TEXTS`, or (None, what iosweep said) when it
    refused one; Stop naming --bin when the binary could not answer."""
    try:
        return units(binary, *texts), ""
    except UnitsError as e:
        if e.status != 2:
            raise Stop(f"--bin: {e}") from None
        return None, str(e)


def _bounded(option, text, n, lo=1, hi=1 << 40, multiple=1, lo_why="", multiple_why=""):
    if n < lo:
        if lo_why:
            raise Stop(f"{option}: {lo_why} (found {text})")
        if lo > 1:
            raise Stop(f"{option}: must be at least {size_text(lo)} (found {text})")
        raise Stop(f"{option}: must be more than 0 bytes")
    if n > hi:
        raise Stop(f"{option}: must be at most {size_text(hi)} (found {text})")
    if n % multiple:
        raise Stop(
            f"{option}: {text} is not a multiple of {size_text(multiple)}"
            + (f" ({multiple_why})" if multiple_why else "")
        )
    return n


def sizes(binary, *items):
    """The byte counts of sizes from iosweep's own parser (`iosweep units`, with a timeout and
    bounded output), each item (option, text, bounds) with bounds a dict of lo, hi (bytes,
    default 1 byte to 1 TiB), multiple, lo_why and multiple_why; raises Stop naming the first
    option refused. One run of the binary when all are sizes, one per size to name the one that
    is not."""
    counts, why = _units(binary, [text for _, text, _ in items])
    if counts is None:
        for option, text, _ in items:
            one, why_one = _units(binary, [text])
            if one is None:
                raise Stop(f"{option}: {why_one}")
        raise Stop(f"--bin: {binary} units refused the sizes together, none alone: {why}")
    return [_bounded(option, text, n, **b) for (option, text, b), n in zip(items, counts)]


# The bounds of a --size whose files hold whole 16 MiB sequential records, iosweep's default.
WHOLE_RECORDS = {
    "lo": 16 << 20,
    "hi": 1 << 40,
    "multiple": 16 << 20,
    "lo_why": "must hold at least one 16 MiB sequential record",
    "multiple_why": "whole 16 MiB sequential records",
}
