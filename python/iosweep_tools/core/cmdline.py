"""The command line of iosweep's commands: parsers whose errors are one line, and the checks of
numbers, words, run ids and the binary made before anything runs or is written.

    ap = Parser(...)                                          # argparse, errors as Stop (status 2)
    ap = doc_parser(__doc__)                                  # the same, --help the docstring
    ap.add_argument("--width", type=number(1, 40, "inches"))
    ap.add_argument("--pairs", type=count(1, 100))
    value("--seed", args.seed, count(0, 2**63 - 1))           # the same, after parsing
    binary("--bin", args.bin)                                 # an executable regular file
    run_id("--run", args.run); split_run("r.h5:RUN_ID")

Every refusal raises Stop whose line is `<argument>: <problem>`, before anything is created:
control characters in a value are shown escaped (\\n, \\x1b), as iosweep shows them. Numbers are
finite and bounded.
"""
import argparse
import math
import os
import re

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line, shown


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the argument, with status 2 (argparse itself
    prints its usage and the error on two lines)."""

    def error(self, message):
        raise Stop(self.refusal(message))

    @staticmethod
    def refusal(message):
        """The line of an argparse error: the argument it is about first."""
        if message.startswith("unrecognized arguments: "):
            given = message.removeprefix("unrecognized arguments: ")
            first = given.split(" ")[0]
            return (
                f"{first}: not an argument of this script"
                f" (unrecognized arguments: {given}; see --help)"
            )
        if message.startswith("the following arguments are required: "):
            return f"{message.removeprefix('the following arguments are required: ')}: required"
        return message.removeprefix("argument ")


class PlainParser(Parser):
    """A Parser whose line keeps argparse's own words ("unrecognized arguments: --frob"), as
    the dfs commands have always said them."""

    @staticmethod
    def refusal(message):
        return message


def doc_parser(doc, skip=0, cls=Parser, **kwargs):
    """A Parser (or `cls`) whose --help is a command's docstring as written: its first paragraph
    the description, the paragraphs after the next `skip` ones the epilog."""
    parts = doc.split("\n\n")
    return cls(
        description=parts[0],
        epilog="\n\n".join(parts[1 + skip :]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )


# --------------------------------------------------------------------------- numbers


def count(lo, hi, why_lo=None):
    """An argparse type: a whole number from lo to hi (digits only: no sign, no exponent)."""

    def parse(text):
        t = text.strip()
        if not re.fullmatch(r"[0-9]{1,30}", t):
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number")
        v = int(t)
        if v < lo:
            raise argparse.ArgumentTypeError(f"{why_lo or f'must be at least {lo}'} (found {v})")
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi} (found {v})")
        return v

    return parse


def number(lo, hi, unit="", above=False):
    """An argparse type: a finite number from lo (above lo with `above`) to hi; NaN,
    infinities, zero and negative numbers and values out of bounds are refused."""
    unit = f" {unit}" if unit else ""

    def parse(text):
        try:
            v = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a positive number")
        if v < lo or (above and v == lo):
            raise argparse.ArgumentTypeError(
                f"must be {'more than' if above else 'at least'} {lo:g}{unit} (found {text})"
            )
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:g}{unit} (found {text})")
        return v

    return parse


def value(option, text, parse):
    """`text` parsed by an argparse type such as count() or number(), for an option checked
    after parsing (one that only some forms of a command take); Stop naming `option`."""
    try:
        return parse(text)
    except argparse.ArgumentTypeError as e:
        raise Stop(f"{option}: {e}") from None


def whole_numbers(args, *bounds):
    """Each attribute of `args` named in `bounds` ((name, lo, hi), given as text) made a whole
    number from lo to hi, or a Stop naming --name (the dfs commands' words for count())."""
    for name, lo, hi in bounds:
        v = getattr(args, name)
        if not re.fullmatch(r"[0-9]{1,30}", v) or not lo <= int(v) <= hi:
            raise Stop(f"--{name}: must be a whole number from {lo} to {hi} (found {shown(v)})")
        setattr(args, name, int(v))


def text_value(what="a value"):
    """An argparse type: a non-empty value without whitespace or control characters (it goes
    into a file of whitespace-separated fields or onto a command line)."""

    def parse(text):
        if not text:
            raise argparse.ArgumentTypeError(f"is empty; expected {what}")
        if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
            raise argparse.ArgumentTypeError(
                f"{shown(text)} holds whitespace or control characters; expected {what}"
            )
        return text

    return parse


# ---------------------------------------------------------------------------- the binary

BIN_HELP = (
    "the iosweep binary, an executable file; its `units` command parses the sizes first"
    " (default: $IOSWEEP_BIN, else the installed iosweep or build/iosweep of this source tree,"
    " else iosweep on PATH)"
)


def binary(option, path):
    """`path` as an absolute path, when it is an executable regular file."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise Stop(f"{option}: {one_line(path)} is not an executable (cmake --build build)")
    return os.path.abspath(path)


# ------------------------------------------------------------------------------ run ids

RUN_ID_SHAPE = re.compile(r"\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}")


def run_id(option, text):
    """Stop unless `text` is shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)."""
    if not RUN_ID_SHAPE.fullmatch(text):
        raise Stop(
            f"{option}: {shown(text)} is not shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)"
        )


def split_run(arg):
    """(path, run id or None) of `RESULTS[:RUN_ID]`, split at the last ':' only when what follows
    is shaped like a run id, as `iosweep show` splits it: paths may contain ':'."""
    head, sep, tail = str(arg).rpartition(":")
    if sep and head and RUN_ID_SHAPE.fullmatch(tail):
        return head, tail
    return str(arg), None
