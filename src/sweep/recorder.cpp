// Rank 0's record keeping (see recorder.hpp).
#include "sweep/recorder.hpp"

#include <algorithm>
#include <cstdio>

#include "model/engine_desc.hpp"
#include "output/notes.hpp"

namespace iosweep {
namespace {

// Point indices are given when a point is written.
void renumber(PointResult& p, std::uint32_t point) {
  p.summary.point = point;
  for (auto& r : p.ranks)
    r.point = point;
  for (auto& r : p.nodes)
    r.point = point;
  for (auto& r : p.series)
    r.point = point;
  for (auto& r : p.devices)
    r.point = point;
  for (auto& r : p.wire)
    r.point = point;
}

}  // namespace

void PointRecorder::begin(std::vector<PhaseId> order) {
  book_.clear();
  order_ = std::move(order);
  done_.clear();
}

bool PointRecorder::control_still_to_run(const PhaseDesc& subject) const {
  for (PhaseId id : order_) {
    if (phase_desc(id).control_for == subject.id &&
        std::find(done_.begin(), done_.end(), id) == done_.end())
      return true;
  }
  return false;
}

std::string PointRecorder::record(const PhaseRow& row, const PointInput& in,
                                  std::string engine_detail) {
  PointResult p = reduce_point(in);
  p.engine_detail = std::move(engine_detail);
  done_.push_back(row.desc().id);
  std::string verdict = check(row.desc(), p, in.samples);
  if (verdict.empty() && row.reduce != nullptr && control_still_to_run(row.desc())) {
    held_ = Held{&row, std::move(p), in.latency};
    return {};
  }
  if (row.reduce != nullptr) row.reduce(p.summary, book_);
  book_.add(p.summary);
  if (auto why = write(row, p, in.latency); !why.empty())
    verdict += (verdict.empty() ? "" : "\n") + why;
  if (held_ && !control_still_to_run(held_->row->desc())) {
    Held h = std::move(*held_);
    held_.reset();
    h.row->reduce(h.point.summary, book_);
    book_.add(h.point.summary);
    if (auto why = write(*h.row, h.point, h.latency); !why.empty())
      verdict += (verdict.empty() ? "" : "\n") + why;
  }
  return verdict;
}

std::string PointRecorder::flush() {
  if (!held_) return {};
  Held h = std::move(*held_);
  held_.reset();
  return write(*h.row, h.point, h.latency);
}

std::string PointRecorder::write(const PhaseRow&, PointResult& p, const LatencyHistogram& latency) {
  renumber(p, next_point_++);
  store_notes(p);
  try {
    writers_.append_point(p, latency);
  } catch (const std::exception& e) {
    return std::string("writing the results failed: ") + e.what();
  }
  return {};
}

// The checks every point gets: the exact count of a counting phase (when the engine moved data)
// and the blocks --verify found wrong.
std::string PointRecorder::check(const PhaseDesc& phase, const PointResult& p,
                                 const std::vector<RankSample>& samples) const {
  const SummaryRow& s = p.summary;
  std::string why;
  if (phase.counts() && engine_desc(s.engine).moves_data && s.matches != s.expected_matches) {
    why = std::string(phase.name) + ": " + std::to_string(s.matches) +
          " matches in total, expected exactly " + std::to_string(s.expected_matches);
    for (const auto& r : samples)
      if (r.matches != r.expected_matches)
        why += "\n  " + where_(r) + " counted " + std::to_string(r.matches) + " in " +
               path_of_(r.file) + ", expected " + std::to_string(r.expected_matches);
  }
  if (s.bad_blocks > 0) {
    why += (why.empty() ? "" : "\n") + std::string("--verify: ") + std::to_string(s.bad_blocks) +
           " bad 4 KiB block(s) in " + phase.name;
    for (const auto& r : samples)
      if (r.bad_blocks > 0) {
        char b[160];
        std::snprintf(b, sizeof b, " at offset %llu: expected 0x%016llx, found 0x%016llx",
                      static_cast<unsigned long long>(r.mismatch_offset),
                      static_cast<unsigned long long>(r.mismatch_expected),
                      static_cast<unsigned long long>(r.mismatch_found));
        why += "\n  " + where_(r) + ": " + std::to_string(r.bad_blocks) + " bad block(s) in " +
               path_of_(r.file) + "; first mismatch" + b;
      }
  }
  return why;
}

}  // namespace iosweep
