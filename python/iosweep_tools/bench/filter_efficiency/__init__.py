"""filter-efficiency: filter-count against scan-only and seq-read (table) and the command (cli)."""
