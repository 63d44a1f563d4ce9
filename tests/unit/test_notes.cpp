// The provenance notes of a summary row against the rules README.md and results/README.md state:
// `cached N%` from 5% of a read resident, `unflushed N%` from 5% of a write dirty, `device N%`
// and `wire N%` under 90% counted, `unverified` when neither counted, blank only when checked.
#include <gtest/gtest.h>

#include <limits>

#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"
#include "output/notes.hpp"

using namespace iosweep;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A row with the four figures the notes read; NaN where not measured.
SummaryRow row(double cached, double unflushed, double device, double wire) {
  SummaryRow s{};
  s.bytes = 1 << 20;
  s.cached_fraction_mean = cached;
  s.unflushed_fraction = unflushed;
  s.device_fraction = device;
  s.wire_fraction = wire;
  return s;
}

// A read or a write whose bytes the block device counted in full.
SummaryRow on_disk(double cached, double unflushed) {
  return row(cached, unflushed, 1.0, kNaN);
}

}  // namespace

TEST(Notes, BlankOnlyWhenTheBytesWereCountedAndNothingApplies) {
  EXPECT_EQ(provenance_notes(on_disk(kNaN, kNaN)), "");
  EXPECT_EQ(provenance_notes(row(0.0, kNaN, kNaN, 0.97)), "");             // a network file system
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, kNaN, kNaN)), "unverified");  // tmpfs
  // A measured but small figure is no reason for a note; an unmeasured one leaves none either.
  EXPECT_EQ(provenance_notes(row(0.01, kNaN, kNaN, kNaN)), "unverified");
  // A row that moved nothing has no bytes to trace (its own note says nothing moved).
  SummaryRow none = row(kNaN, kNaN, kNaN, kNaN);
  none.bytes = 0;
  EXPECT_EQ(provenance_notes(none), "");
}

TEST(Notes, CachedAndUnflushedFromFivePercent) {
  EXPECT_EQ(provenance_notes(on_disk(0.05, kNaN)), "cached 5%");
  EXPECT_EQ(provenance_notes(on_disk(0.0499, kNaN)), "");
  EXPECT_EQ(provenance_notes(on_disk(0.97, kNaN)), "cached 97%");
  EXPECT_EQ(provenance_notes(on_disk(kNaN, 0.05)), "unflushed 5%");
  EXPECT_EQ(provenance_notes(on_disk(kNaN, 0.0499)), "");
  EXPECT_EQ(provenance_notes(on_disk(kNaN, 1.0)), "unflushed 100%");
}

TEST(Notes, DeviceAndWireUnderNinetyPercent) {
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.12, kNaN)), "device 12%");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.90, kNaN)), "");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.0, kNaN)), "device 0%");  // all still cached
  // Other traffic on the device in the same window: more than the phase's bytes, not marked.
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 1.3, kNaN)), "");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, kNaN, 0.02)), "wire 2%");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, kNaN, 0.90)), "");
  // Counted by one of them is counted: no `unverified` beside a device or a wire figure.
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.5, kNaN)), "device 50%");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, kNaN, 0.5)), "wire 50%");
}

TEST(Notes, AFigureMarkedUnderItsThresholdNeverPrintsTheThreshold) {
  // 89.7% is under 90%: printed as 90% the note would contradict the rule it applies.
  for (const double f : {0.897, 0.8951, 0.89999}) {
    EXPECT_EQ(provenance_notes(row(kNaN, kNaN, f, kNaN)), "device 89%") << f;
    EXPECT_EQ(provenance_notes(row(kNaN, kNaN, kNaN, f)), "wire 89%") << f;
  }
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.894, kNaN)), "device 89%");
  EXPECT_EQ(provenance_notes(row(kNaN, kNaN, 0.884, kNaN)), "device 88%");  // nearest otherwise
  // Likewise a figure marked for being at least 5% never prints less.
  EXPECT_EQ(provenance_notes(on_disk(0.0500001, kNaN)), "cached 5%");
}

TEST(Notes, SeveralNotesInTheOrderTheConsoleShowsThem) {
  // A read on a network file system served by the client's cache (the DFS test's pattern
  // `cached 100%; wire N%`).
  EXPECT_EQ(provenance_notes(row(1.0, kNaN, kNaN, 0.01)), "cached 100%; wire 1%");
  // A write left dirty, which the device has not seen yet.
  EXPECT_EQ(provenance_notes(row(kNaN, 1.0, 0.0, kNaN)), "unflushed 100%; device 0%");
  // A cached read that nothing counted: both said.
  EXPECT_EQ(provenance_notes(row(0.97, kNaN, kNaN, kNaN)), "cached 97%; unverified");
  EXPECT_EQ(provenance_notes(row(kNaN, 0.5, 0.3, 0.2)), "unflushed 50%; device 30%; wire 20%");
}

// A read during whose window the storage wrote: earlier writes flushed (nothing syncs before a
// read with --cache keep), or another writer. The row says how much, from 5% of its bytes on
// the device, 10% on the wire (a read's requests carry a few percent themselves).
TEST(Notes, AReadDuringWhichTheStorageWroteSaysHowMuch) {
  SummaryRow s = on_disk(0.0, kNaN);
  s.phase = kRandRead;
  s.bytes = 64ull << 20;
  s.device_write_bytes = 12.5 * (1 << 20);
  s.wire_tx_bytes = kNaN;
  EXPECT_EQ(provenance_notes(s), "device wrote 12.5 MiB");
  s.device_write_bytes = 3.0 * (1 << 20);  // under 5%: the journal, atime
  EXPECT_EQ(provenance_notes(s), "");
  s.device_write_bytes = kNaN;
  s.device_fraction = kNaN;
  s.wire_fraction = 1.0;
  s.wire_tx_bytes = 7.0 * (1 << 20);
  EXPECT_EQ(provenance_notes(s), "wire sent 7.0 MiB");
  s.wire_tx_bytes = 3.0 * (1 << 20);  // the read's own requests
  EXPECT_EQ(provenance_notes(s), "");
  s.phase = kRandWrite;  // a write's device writes are its own
  s.wire_tx_bytes = 64.0 * (1 << 20);
  EXPECT_EQ(provenance_notes(s), "");
}

// The cache verdict the Peak & Sustained table carries: the notes that say a figure may not be
// the storage's, nothing else (a metadata row's cache drop and checked bytes per operation are
// information, not a verdict).
TEST(Notes, TheCacheVerdictIsThePartOfTheNotesThatMarksAFigure) {
  EXPECT_EQ(cache_verdict(on_disk(kNaN, kNaN)), "");
  EXPECT_EQ(cache_verdict(row(kNaN, 1.0, 0.0, kNaN)), "unflushed 100%, device 0%");
  EXPECT_EQ(cache_verdict(row(0.97, kNaN, kNaN, kNaN)), "cached 97%, unverified");
  SummaryRow s{};
  s.phase = kMdStat;
  s.md_wire_bytes_per_op = kNaN;
  s.md_cache_drop = 1;
  s.md_device_bytes_per_op = 4096;
  EXPECT_EQ(cache_verdict(s), "");  // dropped, and the device answered: the storage's
  s.md_cache_drop = 0;
  s.md_device_bytes_per_op = 3;
  EXPECT_EQ(cache_verdict(s), "device 3 B/op (cached)");
  s.md_device_bytes_per_op = 600;
  EXPECT_EQ(cache_verdict(s), "unverified");
  s.phase = kMdCreate;
  s.md_device_bytes_per_op = 0;
  EXPECT_EQ(cache_verdict(s), "device 0 B/op (unflushed)");
}

// An engine that moves no data made nothing: whatever the devices and the wire counted in its
// window was another process's, so its rows, data and metadata, say that and nothing else.
TEST(Notes, AnEngineThatMovesNoDataSaysNoIo) {
  SummaryRow s = row(kNaN, 0.5, 0.0, kNaN);
  s.engine = kNullEngine;
  EXPECT_EQ(provenance_notes(s), "no I/O (engine null)");
  s.phase = kMdCreate;
  s.md_device_bytes_per_op = 63488;  // someone else's journal, in the window
  s.md_wire_bytes_per_op = kNaN;
  EXPECT_EQ(provenance_notes(s), "no I/O (engine null)");
  EXPECT_EQ(cache_verdict(s), "no I/O (engine null)");
  s.phase = kMdStat;
  EXPECT_EQ(provenance_notes(s), "no I/O (engine null)");
}

// A point's verdict merges its repetitions': marks by kind, each number the range they span.
TEST(Notes, APointsVerdictMergesItsRepetitionsMarksByKind) {
  EXPECT_EQ(
      merged_verdict({"unflushed 100%", "unflushed 100%, device 0%", "unflushed 98%, device 5%"}),
      "unflushed 98-100%, device 0-5%");
  EXPECT_EQ(merged_verdict({"", ""}), "");
  EXPECT_EQ(merged_verdict({"", "cached 97%"}), "cached 97%");
  EXPECT_EQ(merged_verdict({"no I/O (engine null)", "no I/O (engine null)"}),
            "no I/O (engine null)");
  EXPECT_EQ(
      merged_verdict({"device 0 B/op (unflushed)", "device 3 B/op (unflushed)", "unverified"}),
      "device 0-3 B/op (unflushed), unverified");
  // A cached lookup and a cached wire are two kinds, kept apart.
  EXPECT_EQ(merged_verdict({"wire 4 B/op (cached)", "device 2 B/op (cached)"}),
            "wire 4 B/op (cached), device 2 B/op (cached)");
}

// Notes longer than the stored field keep their provenance whole at the end (the cache verdict a
// reader takes back from it), the text before it cut and marked; short notes are stored as
// they are. A read whose notes ran past 255 bytes lost its "cached 100%" before.
TEST(Notes, AStoredNoteTooLongKeepsItsProvenanceWhole) {
  const std::string tail = "cached 100%; device 0%";
  const std::string head(300, 'x');
  const std::string fitted = fit_notes(head + "; " + tail, tail, 255);
  EXPECT_EQ(fitted.size(), 255u);
  EXPECT_TRUE(fitted.ends_with("...; " + tail)) << fitted;
  EXPECT_EQ(fit_notes("stonewalled; " + tail, tail, 255), "stonewalled; " + tail);
  // A head of two-byte characters is cut between them, never inside one.
  std::string wide;
  for (int i = 0; i < 200; ++i)
    wide += "\xc3\xa9";
  const std::string cut = fit_notes(wide + "; " + tail, tail, 255);
  EXPECT_LE(cut.size(), 255u);
  EXPECT_TRUE(cut.ends_with("...; " + tail));
  EXPECT_EQ(cut.find("...") % 2, 0u);
  // Without a provenance at its end, the text is cut at the field's size.
  EXPECT_EQ(fit_notes(head, "", 255), head.substr(0, 255));
  // And a stored row's verdict reads back whole from such notes.
  PointResult p;
  p.summary = on_disk(1.0, kNaN);
  p.summary.phase = kSeqRead;
  p.notes = {std::string(300, 'n')};
  store_notes(p);
  const std::string stored(text_of(p.summary.notes));
  EXPECT_TRUE(stored.ends_with(provenance_notes(p))) << stored;
  EXPECT_NE(stored.find("cached 100%"), std::string::npos);
}
