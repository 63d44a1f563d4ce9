"""make-threadlist: host files from node lists (nodelist) and the command (cli)."""
