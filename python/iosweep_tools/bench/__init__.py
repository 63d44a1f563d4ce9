"""The benchmark harnesses, each a command of its own (a sub-package with its cli): iosweep
against fio (vs_fio), against IOR on the GlusterFS bed (vs_ior), against mdtest (vs_mdtest),
filter-count's efficiency (filter_efficiency), the cost of idle ranks (isolation), a sweep of
many ranks (scale) and the streams curve (streams); what they share is harness, and the bed
they run on beds."""
