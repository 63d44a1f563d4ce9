"""bench-vs-io500: iosweep io500 against the io500 application (cli.py)."""
