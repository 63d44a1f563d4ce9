"""The results file iosweep appends to (results/README.md): opened under iosweep's lock, its
names and enums, one run read and checked, DataFrames (frames, the API for pandas and Jupyter),
CSV and JSON exports, time series; and iosweep-load (cli)."""
