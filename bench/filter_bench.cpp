// Google Benchmark for the filter-count kernels: every path on a buffer that stays in L2
// (256 KiB) and on one far larger than the last-level cache (1 GiB), reported in bytes/s.
// Built by CMake (target filter_bench), not run by ctest; docs/performance.md has its output.
#include <benchmark/benchmark.h>

#include <cstring>

#include "core/aligned_buffer.hpp"
#include "core/filter_kernel.hpp"
#include "core/pattern.hpp"

using namespace iosweep;

namespace {

const AlignedBuffer& buffer(std::size_t bytes) {
  static AlignedBuffer l2, dram;
  AlignedBuffer& b = bytes <= (1u << 20) ? l2 : dram;
  if (b.size() != bytes) {
    b = AlignedBuffer(bytes);
    const DataSpec spec{1, 0xfeedfacecafebeefull, 1048576};
    fill_blocks(spec, 0, 0, b.span());  // real iosweep data, keys planted
  }
  return b;
}

void count(benchmark::State& state, FilterKernel k) {
  if (!filter_kernel_supported(k)) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const AlignedBuffer& b = buffer(bytes);
  const CountFn fn = filter_count_fn(k);
  const auto* w = reinterpret_cast<const std::uint64_t*>(b.data());
  for (auto _ : state)
    benchmark::DoNotOptimize(fn(w, bytes / 8, 0xfeedfacecafebeefull));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
}

}  // namespace

BENCHMARK_CAPTURE(count, scalar, FilterKernel::scalar)->Arg(256 << 10)->Arg(1 << 30)->UseRealTime();
BENCHMARK_CAPTURE(count, avx2, FilterKernel::avx2)->Arg(256 << 10)->Arg(1 << 30)->UseRealTime();
BENCHMARK_CAPTURE(count, avx512, FilterKernel::avx512)->Arg(256 << 10)->Arg(1 << 30)->UseRealTime();

BENCHMARK_MAIN();
