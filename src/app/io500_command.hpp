// `iosweep io500 FILE.ini`: the IO500 in one launch, as the io500 application runs it. The
// folders are named as the application names them (a timestamp folder below datadir and
// resultdir unless the INI says otherwise, the stamp drawn on rank 0), made by rank 0 (and
// removed again, when still empty, if the run is refused before it starts), the phases run as
// the steps of app/io500_steps.hpp through the ordinary run, and the application's result files
// are written beside (output/io500_writer.hpp).
#pragma once

#include "app/cli.hpp"
#include "mpi/session.hpp"

namespace iosweep {

int run_io500(CliResult& cli, int argc, char** argv, const MpiSession& mpi);

}  // namespace iosweep
