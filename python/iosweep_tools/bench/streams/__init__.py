"""streams-curve: the 4 KiB random-read curve made two ways (curves) and the command (cli)."""
