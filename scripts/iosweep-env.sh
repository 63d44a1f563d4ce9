# iosweep-env.sh: the environment iosweep is started with under mpirun or srun, defined once.
# The bash scripts source it (quickstart, slurm/iosweep.sbatch); iosweep_tools.core.launch
# (python/iosweep_tools/core/launch.py) reads these same lines for the Python commands and the
# tests. A variable the caller has already set to something is left as it is. Every setting is a
# line of one of these two forms, which core.launch parses (it refuses any other line):
#   iosweep_env NAME VALUE         for everyone
#   iosweep_env_root NAME VALUE    only when running as root (effective user id 0)

iosweep_env() { [ -n "${!1:-}" ] || export "$1=$2"; }
iosweep_env_root() { [ "$EUID" -ne 0 ] || iosweep_env "$1" "$2"; }

# Open MPI refuses to start as root without both.
iosweep_env_root OMPI_ALLOW_RUN_AS_ROOT 1
iosweep_env_root OMPI_ALLOW_RUN_AS_ROOT_CONFIRM 1
# Idle ranks yield their core instead of spinning: much faster when ranks outnumber cores,
# harmless otherwise.
iosweep_env OMPI_MCA_mpi_yield_when_idle 1

unset -f iosweep_env iosweep_env_root
