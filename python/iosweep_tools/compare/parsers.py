"""Other tools' outputs recognised by their content and parsed into Results (compare.record).

    results = parse_any("iozone-t4.txt")      # [Result]; ParseError naming the file and line

PARSERS is the table of the tools read: a tool's parser is one module of this package with a
function that recognises the tool's output by its text and one that parses it into Results, and
one row here (tried in order: the first that recognises a file parses it); EXPECTED names them
all in the message for a file none recognises.
"""
import os
import stat

from iosweep_tools.compare.ior import looks_like_ior, parse_ior
from iosweep_tools.compare.iozone import looks_like_iozone, parse_iozone
from iosweep_tools.compare.mdtest import looks_like_mdtest, parse_mdtest
from iosweep_tools.compare.record import ParseError

# (recognises the tool's output, parses it), in the order they are tried.
PARSERS = [
    (looks_like_ior, parse_ior),
    (looks_like_mdtest, parse_mdtest),
    (looks_like_iozone, parse_iozone),
]
EXPECTED = "IOzone, IOR or mdtest output"

MAX_OUTPUT_BYTES = 256 << 20  # an output larger than this is not one


def _read(path):
    """The text of `path`: only a regular file of at most MAX_OUTPUT_BYTES is read (a FIFO or
    /dev/zero would never end)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ParseError(path, 0, f"a regular file (an {EXPECTED})")
        if st.st_size > MAX_OUTPUT_BYTES:
            raise ParseError(path, 0, f"an output of at most {MAX_OUTPUT_BYTES >> 20} MiB")
        with open(path, errors="replace") as fh:
            return fh.read(MAX_OUTPUT_BYTES + 1)
    except OSError as e:
        raise ParseError(path, 0, f"a readable file ({e.strerror})") from None


def parse_any(path):
    """The Results of an output of any tool of PARSERS, recognised by its content."""
    text = _read(path)
    for looks_like, parse in PARSERS:
        if looks_like(text):
            return parse(path, text)
    first = next((i for i, line in enumerate(text.splitlines(), 1) if line.strip()), 1)
    raise ParseError(path, first, EXPECTED)
