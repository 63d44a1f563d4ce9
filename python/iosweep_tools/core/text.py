"""How values are shown in messages and tables.

    one_line("a\\nb")       # 'a\\\\nb': control characters escaped, so a message stays one line
    shown("a\\nb")          # "'a\\\\nb'": quoted as messages quote a value given
    size_text(16 << 20)     # '16 MiB', binary units as iosweep prints them
    printable(b"sd\\x01a")  # 'sd\\\\x01a': a name as the binary prints it (core/errors.cpp)
"""


def one_line(text):
    """`text` with every control character shown escaped (\\n, \\t, \\x1b), so that a message
    naming any value stays one line."""
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(
        named.get(c, f"\\x{ord(c):02x}") if ord(c) < 32 or ord(c) == 127 else c for c in str(text)
    )


def printable(data):
    """`data` (bytes as stored, or text) as iosweep's own printable() shows it in the console
    (src/core/errors.cpp): valid UTF-8 kept, \\n \\t \\r named, every other control
    character and every byte that is not UTF-8 as \\xNN."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(
        named.get(c, f"\\x{ord(c):02x}") if ord(c) < 32 or ord(c) == 127 else c
        for c in bytes(data).decode("utf-8", "backslashreplace")
    )


def shown(value):
    """A value as messages quote it: '...', control characters escaped, at most 200 characters."""
    s = one_line(value)
    return f"'{s[:200]}...'" if len(s) > 200 else f"'{s}'"


def size_text(n):
    """A byte count in binary units as iosweep prints them (4 KiB, 16 MiB, 1.5 GiB); '?' for
    None."""
    if n is None:
        return "?"
    n = int(n)
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n} B"
