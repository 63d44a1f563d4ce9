// Filter-count kernels (see filter_kernel.hpp). The vector paths are compiled with function
// target attributes so the rest of the binary stays portable; dispatch uses the CPU's cpuid.
#include "core/filter_kernel.hpp"

#include <immintrin.h>

namespace iosweep {

const char* filter_kernel_name(FilterKernel k) {
  switch (k) {
    case FilterKernel::automatic:
      return "auto";
    case FilterKernel::avx512:
      return "avx512";
    case FilterKernel::avx2:
      return "avx2";
    case FilterKernel::scalar:
      return "scalar";
  }
  return "?";
}

bool parse_filter_kernel(const std::string& s, FilterKernel& out) {
  for (auto k :
       {FilterKernel::automatic, FilterKernel::avx512, FilterKernel::avx2, FilterKernel::scalar})
    if (s == filter_kernel_name(k)) {
      out = k;
      return true;
    }
  return false;
}

bool filter_kernel_supported(FilterKernel k) {
  switch (k) {
    case FilterKernel::avx512:
      return __builtin_cpu_supports("avx512f") != 0;
    case FilterKernel::avx2:
      return __builtin_cpu_supports("avx2") != 0;
    default:
      return true;
  }
}

FilterKernel resolve_filter_kernel(FilterKernel k) {
  if (k != FilterKernel::automatic) return k;
  if (filter_kernel_supported(FilterKernel::avx512)) return FilterKernel::avx512;
  if (filter_kernel_supported(FilterKernel::avx2)) return FilterKernel::avx2;
  return FilterKernel::scalar;
}

CountFn filter_count_fn(FilterKernel resolved) {
  switch (resolved) {
    case FilterKernel::avx512:
      return count_equal_avx512;
    case FilterKernel::avx2:
      return count_equal_avx2;
    default:
      return count_equal_scalar;
  }
}

std::uint64_t count_equal_scalar(const std::uint64_t* words, std::size_t n, std::uint64_t key) {
  // Four independent accumulators keep the loop free of a serial dependency.
  std::uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    c0 += words[i] == key;
    c1 += words[i + 1] == key;
    c2 += words[i + 2] == key;
    c3 += words[i + 3] == key;
  }
  for (; i < n; ++i)
    c0 += words[i] == key;
  return c0 + c1 + c2 + c3;
}

__attribute__((target("avx2"))) std::uint64_t count_equal_avx2(const std::uint64_t* words,
                                                               std::size_t n, std::uint64_t key) {
  const __m256i k = _mm256_set1_epi64x(static_cast<long long>(key));
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  std::size_t i = 0;
  // Equal lanes compare to -1; subtracting the mask counts them per lane.
  for (; i + 16 <= n; i += 16) {
    const auto* p = reinterpret_cast<const __m256i*>(words + i);
    a0 = _mm256_sub_epi64(a0, _mm256_cmpeq_epi64(_mm256_loadu_si256(p), k));
    a1 = _mm256_sub_epi64(a1, _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 1), k));
    a2 = _mm256_sub_epi64(a2, _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 2), k));
    a3 = _mm256_sub_epi64(a3, _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 3), k));
  }
  const __m256i s = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s);
  std::uint64_t c = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < n; ++i)
    c += words[i] == key;
  return c;
}

__attribute__((target("avx512f,popcnt"))) std::uint64_t count_equal_avx512(
    const std::uint64_t* words, std::size_t n, std::uint64_t key) {
  const __m512i k = _mm512_set1_epi64(static_cast<long long>(key));
  std::uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    c0 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(words + i), k)));
    c1 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(words + i + 8), k)));
    c2 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(words + i + 16), k)));
    c3 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(words + i + 24), k)));
  }
  for (; i + 8 <= n; i += 8)
    c0 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(words + i), k)));
  if (i < n) {  // tail of 1..7 words through a masked load
    const __mmask8 m = static_cast<__mmask8>((1u << (n - i)) - 1u);
    c1 += static_cast<std::uint64_t>(
        _mm_popcnt_u32(_mm512_mask_cmpeq_epi64_mask(m, _mm512_maskz_loadu_epi64(m, words + i), k)));
  }
  return c0 + c1 + c2 + c3;
}

}  // namespace iosweep
