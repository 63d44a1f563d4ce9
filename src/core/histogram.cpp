// Latency histogram arithmetic (see histogram.hpp for the bucket layout).
#include "core/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace iosweep {

void LatencyHistogram::merge(const LatencyHistogram& o) {
  for (std::size_t i = 0; i < kBuckets; ++i)
    counts_[i] += o.counts_[i];
  sum_ns_ += o.sum_ns_;
  max_ns_ = std::max(max_ns_, o.max_ns_);
}

std::uint64_t LatencyHistogram::count() const {
  std::uint64_t n = 0;
  for (auto c : counts_)
    n += c;
  return n;
}

double LatencyHistogram::mean_ns() const {
  const auto n = count();
  return n == 0 ? 0.0 : static_cast<double>(sum_ns_) / static_cast<double>(n);
}

double LatencyHistogram::percentile_ns(double q) const {
  return percentile_from_counts(counts_.data(), kBuckets, q, max_ns_);
}

double percentile_from_counts(const std::uint64_t* counts, std::size_t n, double q,
                              std::uint64_t max_ns) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i)
    total += counts[i];
  if (total == 0) return 0.0;
  // The rank of the q-quantile among `total` sorted samples (1-based, nearest-rank method).
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total)));
  rank = std::clamp<std::uint64_t>(rank, 1, total);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < n; ++i) {
    seen += counts[i];
    if (seen >= rank) {
      const double lo = static_cast<double>(LatencyHistogram::bucket_lower(i));
      const double hi = static_cast<double>(LatencyHistogram::bucket_upper(i));
      const double mid = i < LatencyHistogram::kSub ? lo : (lo + hi) / 2.0;
      return max_ns > 0 ? std::min(mid, static_cast<double>(max_ns)) : mid;
    }
  }
  return static_cast<double>(max_ns);
}

}  // namespace iosweep
