// The filter-count kernel: how many 64-bit words of a buffer equal a key. Three paths, chosen
// once at startup: AVX-512, AVX2 and a portable scalar loop. `auto` takes the widest path the
// CPU supports; an explicit path the CPU lacks is a usage error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iosweep {

enum class FilterKernel { automatic, avx512, avx2, scalar };

using CountFn = std::uint64_t (*)(const std::uint64_t* words, std::size_t n, std::uint64_t key);

const char* filter_kernel_name(FilterKernel k);
bool parse_filter_kernel(const std::string& s, FilterKernel& out);
bool filter_kernel_supported(FilterKernel k);
// `automatic` resolves to the widest supported path.
FilterKernel resolve_filter_kernel(FilterKernel k);
CountFn filter_count_fn(FilterKernel resolved);

std::uint64_t count_equal_scalar(const std::uint64_t* words, std::size_t n, std::uint64_t key);
std::uint64_t count_equal_avx2(const std::uint64_t* words, std::size_t n, std::uint64_t key);
std::uint64_t count_equal_avx512(const std::uint64_t* words, std::size_t n, std::uint64_t key);

}  // namespace iosweep
