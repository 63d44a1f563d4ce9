"""bench-vs-fio: iosweep against fio, back to back (workloads) and the command (cli)."""
