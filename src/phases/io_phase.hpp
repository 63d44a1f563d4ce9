// The four read/write phases in one class: operation (read, write) x pattern (sequential,
// random) x record size (--seq-record, --rand-record).
#pragma once

#include <memory>
#include <optional>

#include "core/aligned_buffer.hpp"
#include "core/permutation.hpp"
#include "engines/engine.hpp"
#include "phases/io_driver.hpp"
#include "phases/phase.hpp"

namespace iosweep {

class IoPhase final : public Phase {
 public:
  explicit IoPhase(PhaseKind kind) : kind_(kind) {}
  PhaseKind kind() const override { return kind_; }
  std::string validate(const Config& cfg) const override;
  void prepare(PhaseContext& ctx) override;
  void run(PhaseContext& ctx, RankSample& sample) override;
  void finish(PhaseContext& ctx, RankSample& sample) override;
  void cleanup(PhaseContext& ctx) override;

 private:
  DriverJob job(PhaseContext& ctx, int handle);
  bool writes() const { return phase_writes(kind_); }

  PhaseKind kind_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<PatternBuffer> source_;
  AlignedBuffer read_buffers_;
  std::optional<RecordOrder> order_;
  std::string path_;
  int file_position_ = 0;
  std::uint64_t record_ = 0;
  std::uint64_t data_bytes_ = 0;
  bool create_in_window_ = false;
  DriverResult timed_;
};

// Before a phase other than seq-write: makes sure the rank's own file exists, writing it
// outside any timed window when this run has not written it yet (or checking the kept file of
// --reuse). Sets the own file's valid length.
void ensure_own_file(PhaseContext& ctx);

// Per-record verification shared by the reading phases (--verify).
struct Verifier {
  Verifier(const DataSpec& s, std::uint64_t f) : spec(&s), file(f) {}
  const DataSpec* spec;
  std::uint64_t file;
  Mismatch first;
  std::uint64_t bad_blocks = 0;
  std::uint64_t ns = 0;
  void check(const std::byte* p, std::uint64_t offset, std::size_t len);
  void fill(RankSample& s) const;
};

}  // namespace iosweep
