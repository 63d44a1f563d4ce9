// Provenance notes (see notes.hpp).
#include "output/notes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
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
// A read during which the device wrote this share of what it read (the wire sent this share:
// a read's requests carry a few percent themselves) is marked.
constexpr double kDeviceWroteNote = 0.05;
constexpr double kWireSentNote = 0.10;
// A metadata row whose operations a cache answered (or held back) at least this share is
// `cached` (`unflushed`); from kMdPartlyShare on it is `partly cached N%`.
constexpr double kMdCachedShare = 0.95;
constexpr double kMdPartlyShare = 0.05;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "cached 97%": a fraction in whole percent, the nearest.
std::string percent(const char* what, double fraction) {
  char b[128];
  std::snprintf(b, sizeof b, "%s %.0f%%", what, std::round(100.0 * fraction));
  return b;
}

std::string mib(const char* what, double bytes) {
  char b[64];
  std::snprintf(b, sizeof b, "%s %.1f MiB", what, bytes / 1048576.0);
  return b;
}

std::string per_op(const char* what, double bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%s %.0f B/op", what, bytes);
  return b;
}

// A row's provenance notes in order, each saying whether it is part of the cache verdict.
struct Note {
  std::string text;
  bool verdict;
};
using Notes = std::vector<Note>;

// "wire 279 B/op (partly cached 81% of 1500 B/op)": the smallest node's bytes per operation and
// the share of the operations a cache answered (a lookup) or held back (a change) by the bytes
// one needs reaching a server (md_server_bytes_per_op). Rows of older files, which lack the
// reference, are judged by the floor alone. Part of the verdict once a cache answered some.
Note wire_note(const SummaryRow& s, bool lookup) {
  const char* kept = lookup ? "cached" : "unflushed";
  std::string n = per_op("wire", s.md_wire_bytes_per_op);
  double f = s.md_cached_fraction;
  if (std::isnan(f) || !(s.md_server_bytes_per_op > 0))
    f = s.md_wire_bytes_per_op < kMdWireMinBytesPerOp ? 1.0 : 0.0;
  if (f >= kMdCachedShare) return {n + " (" + kept + ")", true};
  if (f < kMdPartlyShare) return {n, false};
  char b[96];
  std::snprintf(b, sizeof b, " (partly %s %.0f%% of %.0f B/op)", kept,
                std::min(std::round(100.0 * f), 100.0 * kMdCachedShare - 1),
                s.md_server_bytes_per_op);
  return {n + b, true};
}

Notes metadata_notes(const SummaryRow& s) {
  const bool lookup = phase_desc(s.phase).lookup();
  Notes n;
  if (lookup)
    n.push_back({s.md_cache_drop == 1   ? "dropped"
                 : s.md_cache_drop == 2 ? "not dropped"
                                        : "kept",
                 false});
  if (!std::isnan(s.md_wire_bytes_per_op)) n.push_back(wire_note(s, lookup));
  if (!std::isnan(s.md_device_bytes_per_op)) {
    const bool under = s.md_device_bytes_per_op < kMdDeviceMinBytesPerOp;
    n.push_back({per_op("device", s.md_device_bytes_per_op) +
                     (under ? (lookup ? " (cached)" : " (unflushed)") : ""),
                 under});
    // Not dropped, and the device saw enough: some answers may still have come from the caches.
    if (lookup && s.md_cache_drop != 1 && !under && std::isnan(s.md_wire_bytes_per_op))
      n.push_back({"unverified", true});
  }
  if (std::isnan(s.md_device_bytes_per_op) && std::isnan(s.md_wire_bytes_per_op))
    n.push_back({"unverified", true});
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

namespace {

Notes data_notes(const SummaryRow& s) {
  Notes n;
  if (s.bytes == 0) return n;  // no bytes, nothing to say where they came from
  if (!std::isnan(s.cached_fraction_mean) && s.cached_fraction_mean >= kCachedNote)
    n.push_back({percent("cached", s.cached_fraction_mean), true});
  if (!std::isnan(s.unflushed_fraction) && s.unflushed_fraction >= kUnflushedNote)
    n.push_back({percent("unflushed", s.unflushed_fraction), true});
  if (!std::isnan(s.device_fraction) && s.device_fraction < kDeviceNote)
    n.push_back({percent_under("device", s.device_fraction, kDeviceNote), true});
  if (!std::isnan(s.wire_fraction) && s.wire_fraction < kWireNote)
    n.push_back({percent_under("wire", s.wire_fraction, kWireNote), true});
  // Writes during a read's window: earlier writes flushed (nothing syncs before a read with
  // --cache keep), or another writer on the same storage. Information, not a cache verdict.
  if (!phase_desc(s.phase).writes()) {
    if (!std::isnan(s.device_write_bytes) &&
        s.device_write_bytes >= kDeviceWroteNote * static_cast<double>(s.bytes))
      n.push_back({mib("device wrote", s.device_write_bytes), false});
    else if (!std::isnan(s.wire_tx_bytes) &&
             s.wire_tx_bytes >= kWireSentNote * static_cast<double>(s.bytes))
      n.push_back({mib("wire sent", s.wire_tx_bytes), false});
  }
  // Neither the device nor the wire counted this row's bytes: nothing says whether they reached
  // the storage, so a blank note can only mean checked and fine.
  if (std::isnan(s.device_fraction) && std::isnan(s.wire_fraction))
    n.push_back({"unverified", true});
  return n;
}

// An engine that moves no data (null) made nothing and moved nothing: whatever the devices and
// the wire counted in its window was someone else's, so that is all its row says.
Notes notes_of(const SummaryRow& s) {
  if (!engine_desc(s.engine).moves_data)
    return {{"no I/O (engine " + std::string(engine_desc(s.engine).name) + ")", true}};
  return phase_desc(s.phase).metadata() ? metadata_notes(s) : data_notes(s);
}

std::string joined(const Notes& notes, bool verdicts_only, const char* between) {
  std::string n;
  for (const Note& x : notes)
    if (!verdicts_only || x.verdict) n += (n.empty() ? "" : between) + x.text;
  return n;
}

}  // namespace

std::string provenance_notes(const SummaryRow& s) {
  return joined(notes_of(s), false, "; ");
}

std::string cache_verdict(const SummaryRow& s) {
  return joined(notes_of(s), true, ", ");
}

namespace {

// One mark of a verdict: its text around its first number (one that starts the text or
// follows a space), and that number: "unflushed 100%" is {"unflushed ", "%", 100}.
struct Mark {
  std::string before, after;
  bool numeric = false;
  long long lo = 0, hi = 0;
};

Mark mark_of(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0 || (i > 0 && text[i - 1] != ' '))
      continue;
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) != 0)
      ++j;
    const long long v = std::stoll(text.substr(i, j - i));
    return {text.substr(0, i), text.substr(j), true, v, v};
  }
  return {text, "", false, 0, 0};
}

}  // namespace

std::string merged_verdict(const std::vector<std::string>& verdicts) {
  std::vector<Mark> kinds;
  for (const std::string& v : verdicts)
    for (std::size_t at = 0; at < v.size();) {
      const std::size_t end = std::min(v.find(", ", at), v.size());
      const Mark m = mark_of(v.substr(at, end - at));
      at = end + 2;
      auto same = std::find_if(kinds.begin(), kinds.end(), [&](const Mark& k) {
        return k.before == m.before && k.after == m.after && k.numeric == m.numeric;
      });
      if (same == kinds.end()) {
        kinds.push_back(m);
      } else {
        same->lo = std::min(same->lo, m.lo);
        same->hi = std::max(same->hi, m.hi);
      }
    }
  std::string out;
  for (const Mark& k : kinds) {
    std::string value;
    if (k.numeric) value = std::to_string(k.lo) + (k.lo == k.hi ? "" : "-" + std::to_string(k.hi));
    out += (out.empty() ? "" : ", ") + k.before + value + k.after;
  }
  return out;
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

// "CPU-bound: usr 40%, sys 57%, queued 1% of the window (>= 90%)": on a CPU (user, system) or
// queued for one.
std::string cpu_note(const SummaryRow& s) {
  const double busy = s.busy_fraction_mean;
  const double queued = std::isnan(s.queued_fraction_mean) ? 0.0 : s.queued_fraction_mean;
  if (std::isnan(busy) || busy + queued < kCpuBoundFraction) return {};
  const double cpu_ns = s.cpu_user_ns_per_op + s.cpu_sys_ns_per_op;
  // Each share from its own time: busy - user can round below zero when sys is 0 ("-0%").
  const double user = cpu_ns > 0 ? busy * s.cpu_user_ns_per_op / cpu_ns : kNaN;
  const double sys = cpu_ns > 0 ? busy * s.cpu_sys_ns_per_op / cpu_ns : kNaN;
  char b[128];
  if (std::isnan(user))
    std::snprintf(b, sizeof b, "CPU-bound: busy %.0f%%, queued %.0f%% of the window (>= %.0f%%)",
                  100 * busy, 100 * queued, 100 * kCpuBoundFraction);
  else
    std::snprintf(b, sizeof b,
                  "CPU-bound: usr %.0f%%, sys %.0f%%, queued %.0f%% of the window (>= %.0f%%)",
                  100 * user, 100 * sys, 100 * queued, 100 * kCpuBoundFraction);
  return b;
}

// "PCIe 4.0 x4" of a link text "PCIe 4.0 x4 (16.0 GT/s PCIe, 4 lanes: ...)".
std::string link_name(const char* text) {
  const std::string t(text, strnlen(text, 256));
  return t.substr(0, t.find(" ("));
}

// The drives' links: the known ones' percent, and the first unknown one in words.
std::string link_notes(const PointResult& p) {
  if (phase_desc(p.summary.phase).metadata() || !engine_desc(p.summary.engine).moves_data)
    return {};
  std::vector<const DeviceRow*> known, unknown;
  for (const auto& d : p.devices) {
    if (!d.counted || std::isnan(d.drive_Bps)) continue;
    if (!std::isnan(d.link_fraction))
      known.push_back(&d);
    else if (d.link[0] != '\0')
      unknown.push_back(&d);
  }
  std::string n;
  char b[96];
  const SummaryRow& s = p.summary;
  if (known.size() == 1)
    std::snprintf(b, sizeof b, "link %.0f%% of %s", 100 * s.link_fraction_max,
                  link_name(known.front()->link).c_str());
  else if (!known.empty())
    std::snprintf(b, sizeof b, "link %.0f-%.0f%% of %zu drives", 100 * s.link_fraction_min,
                  100 * s.link_fraction_max, known.size());
  if (!known.empty()) n = b;
  if (unknown.empty()) return n;
  n += (n.empty() ? "" : "; ") + std::string("link unknown: ") +
       std::string(unknown.front()->link,
                   strnlen(unknown.front()->link, sizeof unknown.front()->link));
  if (unknown.size() > 1)
    n += "; " + std::to_string(unknown.size() - 1) + " more drives' links unknown";
  return n;
}

// "rated 41% of 3.200 GB/s, 12% of 1.5M IOPS per drive".
std::string rated_note(const SummaryRow& s, const char* unit) {
  std::string n;
  char b[96];
  if (!std::isnan(s.rated_bw_fraction)) {
    std::snprintf(b, sizeof b, "%.0f%% of rated bandwidth", 100 * s.rated_bw_fraction);
    n = b;
  }
  if (!std::isnan(s.rated_iops_fraction)) {
    std::snprintf(b, sizeof b, "%.0f%% of rated IOPS", 100 * s.rated_iops_fraction);
    n += (n.empty() ? "" : ", ") + std::string(b);
  }
  return n.empty() ? n : n + " " + unit;
}

}  // namespace

std::string headroom_notes(const PointResult& p) {
  const SummaryRow& s = p.summary;
  std::string n;
  auto add = [&](const std::string& x) {
    if (!x.empty()) n += (n.empty() ? "" : "; ") + x;
  };
  if (s.ops > 0) add(cpu_note(s));
  add(link_notes(p));
  add(rated_note(s, s.drives > 0 ? "per drive" : "per rank's device"));
  return n;
}

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
  add(headroom_notes(p));
  add(provenance_notes(p));  // last, as the notes always ended: where the bytes came from
  return n;
}

std::string fit_notes(const std::string& full, const std::string& tail, std::size_t cap) {
  if (full.size() <= cap) return full;
  constexpr std::string_view kCut = "...; ";
  if (tail.empty() || tail.size() + kCut.size() > cap || !full.ends_with(tail))
    return full.substr(0, cap);
  std::size_t keep = cap - tail.size() - kCut.size();
  while (keep > 0 && (static_cast<unsigned char>(full[keep]) & 0xC0) == 0x80)
    --keep;  // not in the middle of a UTF-8 character
  return full.substr(0, keep) + std::string(kCut) + tail;
}

void store_notes(PointResult& p) {
  put_text(p.summary.notes,
           fit_notes(row_notes(p), provenance_notes(p), sizeof p.summary.notes - 1));
  for (auto& d : p.devices)
    put_text(d.lag_note, "");
  for (std::size_t i : lagging_drives(p))
    put_text(p.devices[i].lag_note, lag_note(p.devices[i]));
}

}  // namespace iosweep
