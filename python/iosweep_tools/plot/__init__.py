"""iosweep-plot: the charts of a run (draw), the published figures drawn beside it (baselines)
and the command (cli)."""
