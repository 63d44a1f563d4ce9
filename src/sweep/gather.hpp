// What one point sends to rank 0, on the active ranks' communicator: one MPI_Gather of the
// per-rank samples, one MPI_Reduce of the latency histograms, one MPI_Reduce of the 8-byte
// count for counting phases (the in-situ result: nothing else of the data travels), and the
// time series (one gather of bin counts, two gathers of bins). Outside every timed window.
#pragma once

#include <mpi.h>

#include "core/histogram.hpp"
#include "core/timeseries.hpp"
#include "model/sample.hpp"
#include "sweep/reducer.hpp"

namespace iosweep {

// Collective over `active`; rank 0 of `active` (world rank 0) gets the samples, the merged
// histogram, the summed count and the series in `in`; the others get nothing.
void gather_point(MPI_Comm active, const RankSample& mine, const LatencyHistogram& latency,
                  const TimeSeries& series, bool counts, PointInput& in);

}  // namespace iosweep
