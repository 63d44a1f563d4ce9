// Gathering a point to rank 0 (see gather.hpp).
#include "sweep/gather.hpp"

#include <algorithm>
#include <vector>

namespace iosweep {

namespace {

BinLatency latency_of(const TimeSeries::BinCounts& counts, std::uint64_t max_ns) {
  return {TimeSeries::percentile_ns(counts, 0.50, max_ns),
          TimeSeries::percentile_ns(counts, 0.99, max_ns), static_cast<double>(max_ns)};
}

// One rank's samples of `values` (per-rank lengths `counts_of`) on the root.
template <class T>
std::vector<T> gather_bins(const std::vector<T>& mine, MPI_Datatype type,
                           const std::vector<int>& counts_of, const std::vector<int>& displs,
                           int all, MPI_Comm comm) {
  std::vector<T> out(static_cast<std::size_t>(all));
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), type, out.data(), counts_of.data(),
              displs.data(), type, 0, comm);
  return out;
}

// The time series: every rank's bins (bytes, ops, its own latency figures) gathered, and the
// bins' latency histograms summed over the ranks into one per bin (exactly, as the phase's
// histograms are), with the largest latency of each bin.
void gather_series(MPI_Comm active, const TimeSeries& series, PointInput& in) {
  int me = 0, k = 1;
  MPI_Comm_rank(active, &me);
  MPI_Comm_size(active, &k);
  const bool root = me == 0;
  int nbins = static_cast<int>(series.bytes().size()), max_bins = 0;
  MPI_Allreduce(&nbins, &max_bins, 1, MPI_INT, MPI_MAX, active);
  std::vector<int> counts_of(root ? static_cast<std::size_t>(k) : 0), displs(counts_of.size());
  MPI_Gather(&nbins, 1, MPI_INT, counts_of.data(), 1, MPI_INT, 0, active);
  int all_bins = 0;
  for (std::size_t i = 0; i < counts_of.size(); ++i) {
    displs[i] = all_bins;
    all_bins += counts_of[i];
  }
  std::vector<double> mine_latency;  // p50, p99, max of each of this rank's bins
  for (int b = 0; b < nbins; ++b) {
    const auto u = static_cast<std::size_t>(b);
    const BinLatency l = latency_of(series.latency()[u], series.max_ns()[u]);
    mine_latency.insert(mine_latency.end(), {l.p50_ns, l.p99_ns, l.max_ns});
  }
  const auto bytes = gather_bins(series.bytes(), MPI_UINT64_T, counts_of, displs, all_bins, active);
  const auto ops = gather_bins(series.ops(), MPI_UINT64_T, counts_of, displs, all_bins, active);
  std::vector<int> counts3(counts_of.size()), displs3(counts_of.size());
  for (std::size_t i = 0; i < counts_of.size(); ++i) {
    counts3[i] = 3 * counts_of[i];
    displs3[i] = 3 * displs[i];
  }
  const auto lat = gather_bins(mine_latency, MPI_DOUBLE, counts3, displs3, 3 * all_bins, active);
  // The bins' histograms, padded to the longest series, summed; their maxima, maxed.
  const auto width = static_cast<std::size_t>(max_bins);
  std::vector<std::uint32_t> mine_counts(width * TimeSeries::kBinBuckets, 0), summed;
  std::vector<std::uint64_t> mine_max(width, 0), maxed(root ? width : 0);
  for (std::size_t b = 0; b < series.latency().size(); ++b) {
    std::copy(series.latency()[b].begin(), series.latency()[b].end(),
              mine_counts.begin() + static_cast<std::ptrdiff_t>(b * TimeSeries::kBinBuckets));
    mine_max[b] = series.max_ns()[b];
  }
  if (root) summed.resize(mine_counts.size());
  MPI_Reduce(mine_counts.data(), summed.data(), static_cast<int>(mine_counts.size()), MPI_UINT32_T,
             MPI_SUM, 0, active);
  MPI_Reduce(mine_max.data(), maxed.data(), max_bins, MPI_UINT64_T, MPI_MAX, 0, active);
  if (!root) return;
  for (std::size_t i = 0; i < counts_of.size(); ++i) {
    const auto at = static_cast<std::ptrdiff_t>(displs[i]);
    const int n = counts_of[i];
    in.series_bytes.emplace_back(bytes.begin() + at, bytes.begin() + at + n);
    in.series_ops.emplace_back(ops.begin() + at, ops.begin() + at + n);
    auto& l = in.series_latency.emplace_back();
    for (int b = 0; b < n; ++b) {
      const std::size_t j = 3 * (static_cast<std::size_t>(displs[i]) + static_cast<std::size_t>(b));
      l.push_back({lat[j], lat[j + 1], lat[j + 2]});
    }
  }
  for (std::size_t b = 0; b < width; ++b) {
    TimeSeries::BinCounts c{};
    std::copy_n(summed.begin() + static_cast<std::ptrdiff_t>(b * TimeSeries::kBinBuckets),
                TimeSeries::kBinBuckets, c.begin());
    in.merged_latency.push_back(latency_of(c, maxed[b]));
  }
}

}  // namespace

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
  gather_series(active, series, in);
  if (!root) return;
  std::copy(lat_sum.begin(), lat_sum.end() - 1, in.latency.counts().begin());
  in.latency.sum_ns() = lat_sum.back();
  for (const auto& r : in.samples)
    in.latency.max_ns_ref() = std::max(in.latency.max_ns_ref(), r.latency_max_ns);
  in.total_matches = total;
}

}  // namespace iosweep
