"""iosweep beside other measurements: IOzone's and IOR's outputs (parsers, one module per tool,
into the records of record; matched with a run's figures in tools) and one run against another
(runs); and iosweep-compare (cli), with the text of both (tools_text, runs_text)."""
