"""isolation-check: do idle ranks cost a point anything (pairs), and the command (cli)."""
