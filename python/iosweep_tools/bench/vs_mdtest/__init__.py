"""bench-vs-mdtest: iosweep against mdtest, alternately on the same folder and shape (runs: where
they run and each tool's run; table: the pairs judged) and the command (cli)."""
