// Gathering a point to rank 0 (see gather.hpp).
#include "sweep/gather.hpp"

#include <algorithm>
#include <vector>

namespace iosweep {

void gather_point(MPI_Comm active, const RankSample& mine, const LatencyHistogram& latency,
                  const TimeSeries& series, bool counts, PointInput& in) {
  int me = 0, k = 1;
  MPI_Comm_rank(active, &me);
  MPI_Comm_size(active, &k);
  const bool root = me == 0;

  std::vector<std::uint64_t> lat(LatencyHistogram::kBuckets + 1), lat_sum(root ? lat.size() : 0);
  std::copy(latency.counts().begin(), latency.counts().end(), lat.begin());
  lat.back() = latency.sum_ns();
  MPI_Reduce(lat.data(), lat_sum.data(), static_cast<int>(lat.size()), MPI_UINT64_T, MPI_SUM, 0,
             active);
  std::uint64_t matches = mine.matches, total = 0;
  if (counts) MPI_Reduce(&matches, &total, 1, MPI_UINT64_T, MPI_SUM, 0, active);
  if (root) in.samples.resize(static_cast<std::size_t>(k));
  MPI_Gather(&mine, sizeof(RankSample), MPI_BYTE, in.samples.data(), sizeof(RankSample), MPI_BYTE,
             0, active);

  int nbins = static_cast<int>(series.bytes().size());
  std::vector<int> counts_of(root ? static_cast<std::size_t>(k) : 0), displs(counts_of.size());
  MPI_Gather(&nbins, 1, MPI_INT, counts_of.data(), 1, MPI_INT, 0, active);
  int all_bins = 0;
  for (std::size_t i = 0; i < counts_of.size(); ++i) {
    displs[i] = all_bins;
    all_bins += counts_of[i];
  }
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(all_bins)), ops(bytes.size());
  MPI_Gatherv(series.bytes().data(), nbins, MPI_UINT64_T, bytes.data(), counts_of.data(),
              displs.data(), MPI_UINT64_T, 0, active);
  MPI_Gatherv(series.ops().data(), nbins, MPI_UINT64_T, ops.data(), counts_of.data(), displs.data(),
              MPI_UINT64_T, 0, active);
  if (!root) return;

  std::copy(lat_sum.begin(), lat_sum.end() - 1, in.latency.counts().begin());
  in.latency.sum_ns() = lat_sum.back();
  for (const auto& r : in.samples)
    in.latency.max_ns_ref() = std::max(in.latency.max_ns_ref(), r.latency_max_ns);
  in.total_matches = total;
  for (std::size_t i = 0; i < counts_of.size(); ++i) {
    const auto b = bytes.begin() + displs[i], o = ops.begin() + displs[i];
    in.series_bytes.emplace_back(b, b + counts_of[i]);
    in.series_ops.emplace_back(o, o + counts_of[i]);
  }
}

}  // namespace iosweep
