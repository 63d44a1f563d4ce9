"""How iosweep's commands stop: one exception.

    raise Stop("--size: must be positive")        # `<command>: --size: must be positive`, 2
    raise Stop("fio exited 1: no such file", 1)   # a failure rather than bad input: status 1

A library raises Stop; the command's top level (core.command.guard) prints its one line, with
control characters escaped (core.text.one_line), and returns its status. Nothing but that top
level prints it.
"""


class Stop(Exception):
    """A command stops: str() is its one line without the command's name, `status` its exit
    status (2: bad input, nothing made; 1: a failure; 130 and 143: interrupted)."""

    def __init__(self, msg, status=2):
        super().__init__(msg)
        self.status = status
