// Provenance notes (see notes.hpp).
#include "output/notes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"

namespace iosweep {
namespace {

constexpr double kCachedNote = 0.05;     // a read that started this cached is marked
constexpr double kUnflushedNote = 0.05;  // a write that left this much dirty is marked
constexpr double kDeviceNote = 0.90;     // a phase whose device saw less than this is marked
constexpr double kWireNote = 0.90;       // a phase whose wire carried less than this is marked

// "cached 97%": a fraction in whole percent, the nearest.
std::string percent(const char* what, double fraction) {
  char b[128];
  std::snprintf(b, sizeof b, "%s %.0f%%", what, std::round(100.0 * fraction));
  return b;
}

std::string per_op(const char* what, double bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%s %.0f B/op", what, bytes);
  return b;
}

std::string metadata_notes(const SummaryRow& s) {
  const bool lookup = phase_desc(s.phase).lookup();
  std::string n;
  auto add = [&](const std::string& x) { n += (n.empty() ? "" : "; ") + x; };
  if (lookup) add(s.md_cache_drop == 1 ? "dropped" : s.md_cache_drop == 2 ? "not dropped" : "kept");
  if (!std::isnan(s.md_wire_bytes_per_op)) {
    const bool cached = s.md_wire_bytes_per_op < kMdWireMinBytesPerOp;
    add(per_op("wire", s.md_wire_bytes_per_op) + (cached ? " (cached)" : ""));
  }
  if (!std::isnan(s.md_device_bytes_per_op)) {
    const bool under = s.md_device_bytes_per_op < kMdDeviceMinBytesPerOp;
    add(per_op("device", s.md_device_bytes_per_op) +
        (under ? (lookup ? " (cached)" : " (unflushed)") : ""));
    // Not dropped, and the device saw enough: some answers may still have come from the caches.
    if (lookup && s.md_cache_drop != 1 && !under && std::isnan(s.md_wire_bytes_per_op))
      add("unverified");
  }
  if (std::isnan(s.md_device_bytes_per_op) && std::isnan(s.md_wire_bytes_per_op)) add("unverified");
  return n;
}

// A fraction marked for being under `threshold`, in whole percent at most the one below it:
// 89.7% shown as "90%" would contradict the rule that marked it.
std::string percent_under(const char* what, double fraction, double threshold) {
  return percent(what, std::min(fraction, (std::round(100.0 * threshold) - 1) / 100.0));
}

// The drives that saw under kDeviceNote of their ranks' bytes, when some of the point's drives
// did not (when all of them saw too little, the `device` note already says so): their counted
// device rows (the rows with a drive_fraction).
std::vector<std::size_t> lagging_drives(const PointResult& p) {
  std::vector<std::size_t> low;
  std::size_t used = 0;
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    const DeviceRow& d = p.devices[i];
    if (std::isnan(d.drive_fraction)) continue;
    ++used;
    if (d.drive_fraction < kDeviceNote) low.push_back(i);
  }
  if (low.size() == used) low.clear();
  return low;
}

// `drive nvme3n1 (node 2) 41%`: a lagging drive's note.
std::string lag_note(const DeviceRow& d) {
  const std::string what =
      "drive " + std::string(text_of(d.device)) + " (node " + std::to_string(d.node) + ")";
  return percent_under(what.c_str(), d.drive_fraction, kDeviceNote);
}

// The lagging drives' notes: every one is named, at most kDriveNotes, then how many more.
constexpr std::size_t kDriveNotes = 3;

std::string drive_notes(const PointResult& p) {
  const std::vector<std::size_t> low = lagging_drives(p);
  std::string n;
  for (std::size_t i = 0; i < low.size() && i < kDriveNotes; ++i)
    n += (n.empty() ? "" : "; ") + lag_note(p.devices[low[i]]);
  if (low.size() > kDriveNotes)
    n += "; " + std::to_string(low.size() - kDriveNotes) + " more drives under 90%";
  return n;
}

}  // namespace

std::string provenance_notes(const SummaryRow& s) {
  if (phase_desc(s.phase).metadata()) return metadata_notes(s);
  std::string n;
  if (s.bytes == 0) return n;  // no bytes, nothing to say where they came from
  auto add = [&](const std::string& x) { n += (n.empty() ? "" : "; ") + x; };
  if (!std::isnan(s.cached_fraction_mean) && s.cached_fraction_mean >= kCachedNote)
    add(percent("cached", s.cached_fraction_mean));
  if (!std::isnan(s.unflushed_fraction) && s.unflushed_fraction >= kUnflushedNote)
    add(percent("unflushed", s.unflushed_fraction));
  if (!std::isnan(s.device_fraction) && s.device_fraction < kDeviceNote)
    add(percent_under("device", s.device_fraction, kDeviceNote));
  if (!std::isnan(s.wire_fraction) && s.wire_fraction < kWireNote)
    add(percent_under("wire", s.wire_fraction, kWireNote));
  // Neither the device nor the wire counted this row's bytes: nothing says whether they reached
  // the storage, so a blank note can only mean checked and fine.
  if (std::isnan(s.device_fraction) && std::isnan(s.wire_fraction)) add("unverified");
  return n;
}

std::string provenance_notes(const PointResult& p) {
  std::string n = provenance_notes(p.summary);
  if (const std::string d = drive_notes(p); !d.empty()) n += (n.empty() ? "" : "; ") + d;
  return n;
}

namespace {

// A counting phase's count, and its efficiency or what it shipped.
std::string count_notes(const SummaryRow& s, const PhaseDesc& phase) {
  std::string n = "rows " + std::to_string(s.rows) + " matches " + std::to_string(s.matches) + "/" +
                  std::to_string(s.expected_matches) +
                  (!engine_desc(s.engine).moves_data ? " (not checked: no data moved)"
                   : s.rows == 0                     ? " (nothing scanned)"
                                                     : "");
  char b[96];
  if (!std::isnan(s.filter_efficiency)) {
    std::snprintf(b, sizeof b, "; eff %.2f", s.filter_efficiency);
    n += b;
  }
  if (!phase.ships()) return n;
  std::snprintf(
      b, sizeof b, "; shipped %s over MPI, %.0f%% across nodes", format_size(s.mpi_bytes).c_str(),
      s.mpi_bytes
          ? 100.0 * static_cast<double>(s.mpi_remote_bytes) / static_cast<double>(s.mpi_bytes)
          : 0.0);
  n += b;
  if (s.ranks > 1 && s.mpi_remote_bytes == 0) n += "; collectors on the same node";
  if (!std::isnan(s.filter_vs_ship)) {
    std::snprintf(b, sizeof b, "; filter/ship %.2f", s.filter_vs_ship);
    n += b;
  }
  return n;
}

}  // namespace

std::string row_notes(const PointResult& p) {
  const SummaryRow& s = p.summary;
  const PhaseDesc& phase = phase_desc(s.phase);
  std::string n;
  auto add = [&](const std::string& x) {
    if (!x.empty()) n += (n.empty() ? "" : "; ") + x;
  };
  if (phase.counts()) add(count_notes(s, phase));
  if (s.stonewalled) add("stonewalled");
  if (s.bad_blocks) add(std::to_string(s.bad_blocks) + " bad blocks");
  for (const auto& x : p.notes)
    add(x);
  add(provenance_notes(p));
  return n;
}

void store_notes(PointResult& p) {
  put_text(p.summary.notes, row_notes(p));
  for (auto& d : p.devices)
    put_text(d.lag_note, "");
  for (std::size_t i : lagging_drives(p))
    put_text(p.devices[i].lag_note, lag_note(p.devices[i]));
}

}  // namespace iosweep
