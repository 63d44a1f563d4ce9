// The read/write phases in one class, configured by their phase table row: operation (the row
// writes or reads), pattern (random or sequential order), record size (the row's record kind),
// and whether the timed window makes a fresh file (seq-write, IOzone's initial write).
#pragma once

#include <memory>
#include <optional>

#include "core/aligned_buffer.hpp"
#include "core/permutation.hpp"
#include "phases/io_driver.hpp"
#include "phases/phase.hpp"

namespace iosweep {

class IoPhase final : public Phase {
 public:
  using Phase::Phase;
  std::string validate(const Workload& work, const EngineOptions& io) const override;
  EngineNeed engine_need(const Workload& work, const EngineOptions& io,
                         const RankStreams& per_rank) const override;
  std::uint64_t buffer_bytes(const Workload& work, const SweepPoint& point,
                             const PhasePlan& plan) const override;
  void prepare(PhaseContext& ctx) override;
  void run(PhaseContext& ctx, RankSample& sample) override;
  void finish(PhaseContext& ctx, RankSample& sample) override;
  void cleanup(PhaseContext& ctx) override;

 private:
  DriverJob job(PhaseContext& ctx);
  bool writes() const { return desc().writes(); }

  std::unique_ptr<PatternBuffer> source_;
  AlignedBuffer read_buffers_;
  std::optional<RecordOrder> order_;
  std::string path_;
  int file_position_ = 0;
  std::uint64_t record_ = 0;
  std::uint64_t data_bytes_ = 0;
  bool create_in_window_ = false;
  double cached_fraction_ = 0;
  DriverResult timed_;
  Layout layout_;  // where file_position_'s bytes sit in the file
};

// Checks a record size option against the file size and the O_DIRECT alignment (any byte size
// otherwise): "--option: problem", or empty.
std::string check_record(const Workload& work, const EngineOptions& io, std::uint64_t record,
                         const char* option);

// Before a phase that does not create its file: makes sure the rank's own file exists, writing
// it outside any timed window through ctx.engine when this run has not written it yet (or
// checking the kept file of --reuse), with at most 64 MiB in flight. Sets the own file's valid
// length.
void ensure_own_file(PhaseContext& ctx);
// The pattern buffer ensure_own_file holds through an engine of `depth`.
std::uint64_t creation_buffer_bytes(const Workload& work, unsigned depth);

// Per-record verification shared by the reading phases (--verify), of records of
// `record_bytes` read at multiples of it: whole-block records through the block path, others
// through the byte-exact one, chosen here, before any window.
// `image`: check through a PatternImage of the file (made here, before the window: 16 MiB per
// reader), a memcmp per block instead of recomputing every word.
struct Verifier {
  Verifier(const DataSpec& s, std::uint64_t f, std::uint64_t record_bytes, bool image = false)
      : spec(&s), file(f), verify_(verify_fn_for(record_bytes)) {
    if (image) image_ = std::make_unique<PatternImage>(s, f);
  }
  const DataSpec* spec;
  std::uint64_t file;
  Mismatch first;
  std::uint64_t bad_blocks = 0;
  std::uint64_t ns = 0;
  void check(const std::byte* p, std::uint64_t offset, std::size_t len);
  void fill(RankSample& s) const;

 private:
  VerifyFn verify_;
  std::unique_ptr<PatternImage> image_;
};

}  // namespace iosweep
