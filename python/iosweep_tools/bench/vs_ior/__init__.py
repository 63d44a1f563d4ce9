"""dfs-vs-ior: iosweep against IOR on the GlusterFS bed (runner) and the command (cli)."""
