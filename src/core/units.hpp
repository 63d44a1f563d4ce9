// Units: parsing of sizes, rates and durations given on the command line, and the constants
// used to display figures. Sizes are binary everywhere (4k = 4KiB = 4096 bytes, as IOzone's kB);
// rates given for --rated-bw follow vendors' data sheets (GB/s = 1e9 bytes/s, GiB/s = 2^30).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace iosweep {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;
inline constexpr std::uint64_t kTiB = 1024 * kGiB;
inline constexpr double kBytesPerMiB = 1048576.0;

// Each parser returns an empty string on success and a short reason otherwise; `out` is only
// written on success. The reason completes a sentence "--option: <reason>".
std::string parse_size(std::string_view text, std::uint64_t& out);
std::string parse_rate(std::string_view text, double& bytes_per_s);
// Operations per second as data sheets write them: 1500000, 1.5M, 800k, 1.5e6, each optionally
// followed by IOPS or /s (1.5MIOPS, 800k/s); k, M, G are decimal (10^3, 10^6, 10^9) in either
// case; no binary prefix.
std::string parse_iops(std::string_view text, double& ops_per_s);
std::string parse_seconds(std::string_view text, double& seconds);
std::string parse_count(std::string_view text, std::uint64_t& out);

// "16 MiB", "4 KiB", "1.5 GiB", "123 B": exact when the value is a whole number of the unit.
std::string format_size(std::uint64_t bytes);

// "169.4K", "11.2M": a rate as the PixStor study prints them (decimal K and M, one decimal);
// below 1000 with `small_decimals` decimals.
std::string format_compact(double v, int small_decimals = 1);

}  // namespace iosweep
