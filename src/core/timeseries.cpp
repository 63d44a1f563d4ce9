// Percentiles of a time-series bin (see timeseries.hpp).
#include "core/timeseries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace iosweep {

double TimeSeries::percentile_ns(const BinCounts& counts, double q, std::uint64_t max_ns) {
  std::uint64_t total = 0;
  for (const std::uint32_t c : counts)
    total += c;
  if (total == 0) return std::numeric_limits<double>::quiet_NaN();
  // The smallest bucket whose cumulative count reaches ceil(q * total), as the phase's
  // histogram takes it.
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total))));
  std::uint64_t seen = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    seen += counts[j];
    if (seen >= rank) {
      const double mid =
          (static_cast<double>(bucket_lower(j)) + static_cast<double>(bucket_upper(j))) / 2;
      return std::min(mid, static_cast<double>(max_ns));
    }
  }
  return static_cast<double>(max_ns);
}

}  // namespace iosweep
