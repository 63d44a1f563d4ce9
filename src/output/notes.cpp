// Provenance notes (see notes.hpp).
#include "output/notes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

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
// did not: every one is named, at most kDriveNotes, then how many more (when all of them saw
// too little, the `device` note already says so).
constexpr std::size_t kDriveNotes = 3;

std::string drive_notes(const PointResult& p) {
  std::vector<const DeviceRow*> low;
  std::size_t used = 0;
  for (const auto& d : p.devices) {
    if (std::isnan(d.drive_fraction)) continue;
    ++used;
    if (d.drive_fraction < kDeviceNote) low.push_back(&d);
  }
  if (low.empty() || low.size() == used) return {};
  std::string n;
  for (std::size_t i = 0; i < low.size() && i < kDriveNotes; ++i) {
    const std::string what =
        "drive " + std::string(low[i]->device) + " (node " + std::to_string(low[i]->node) + ")";
    n += (n.empty() ? "" : "; ") + percent_under(what.c_str(), low[i]->drive_fraction, kDeviceNote);
  }
  if (low.size() > kDriveNotes)
    n += "; " + std::to_string(low.size() - kDriveNotes) + " more drives under 90%";
  return n;
}

}  // namespace

std::string provenance_notes(const SummaryRow& s) {
  if (phase_desc(s.phase).metadata()) return metadata_notes(s);
  std::string n;
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

}  // namespace iosweep
