"""iosweep_tools: the Python half of iosweep, which runs the binary and reads its results files.

Sub-packages by concern, each importing only the ones below it (docs/architecture.md, "The
Python side", has the table that tests/scripts/test_package.py checks):

    core        what all share: errors, sizes through `iosweep units`, the launch environment,
                finding the binary, children, argument checks, the command top level
    results     the results file: open under iosweep's lock, names and enums, one run, DataFrames
                (frames: the API for pandas and Jupyter), CSV/JSON export, time series
    compare     IOzone and IOR outputs beside a run (parsers, matching) and run against run
    report      the HTML report                     plot        the charts
    dfsbed      the GlusterFS bed                   bench       the benchmark harnesses
    threadlist  host files from node lists

Every command is one `cli` module (`iosweep_tools.results.cli` is iosweep-load): the only
modules that print and end with a status; everything else returns or raises.
"""
