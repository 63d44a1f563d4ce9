// The provenance notes of a summary row, as the console's `notes` column and the line under an
// IOzone block print them: `cached 97%` when a reading phase started with at least 5% of its
// bytes in the page cache, `unflushed 100%` when a writing phase left at least 5% of what it
// wrote dirty, `device 12%` when the block devices saw under 90% of the phase's bytes, `drive
// nvme3n1 (node 2) 41%` for each drive that saw under 90% of what its own ranks claimed while
// the point's other drives did not (a drive lagging behind the rest), `wire 2%` when the
// storage interfaces carried under 90% of them (a read served by a client cache), and
// `unverified` when neither a device nor an interface counted the phase's bytes. Empty only
// when the bytes were checked and nothing applies; the figures are in the results file.
//
// A read row during whose window the device wrote (or the wire sent) at least 5% (10%) of the
// bytes it read says `device wrote N MiB` (`wire sent N MiB`): earlier writes were flushed inside
// its window (with --cache keep nothing syncs before a read), or another writer shared the
// storage; either way the read's figure shares the device with them.
//
// A metadata row is never blank: it says what the storage counted per operation and what that
// means. `wire N B/op` is the smallest of the nodes' wire bytes per operation, judged against
// what one operation needs when it reaches a server (md_server_bytes_per_op, model/md_costs.hpp:
// measured per operation kind on the bed for GlusterFS, else 128 bytes, plus the item's bytes
// for md-read and md-create): the share the caches answered (md_cached_fraction) is said as
// `cached` (a lookup) or `unflushed` (a change) from 95% on, and as `partly cached N%` or
// `partly unflushed N%` from 5%; `device N B/op` is the block device's bytes per operation
// (reads for md-stat and md-read, reads and writes for the others), `cached` for a lookup and
// `unflushed` for a change below kMdDeviceMinBytesPerOp (no cold inode is smaller on disk);
// md-stat and md-read say whether the caches were `dropped` first, `kept`, or `not dropped` (the
// kernel refused), and `unverified` when they were not dropped and the device saw enough: the
// caches may have answered some of them, and a total cannot say how many. `unverified` alone:
// nothing counted (tmpfs).
//
// An engine that moves no data (null) makes no file and moves no byte: its rows, data and
// metadata alike, say `no I/O (engine null)` and nothing else (what the devices and the wire
// counted in its windows was someone else's traffic).
//
// The cache verdict of a row is the part of its notes that says its figure may not be the
// storage's: `cached N%`, `unflushed N%`, `device N%`, `wire N%`, `unverified`, a metadata
// row's `(cached)`, `(unflushed)` or `(partly ...)` wire or device figure, `no I/O`, joined by ",
// "; the Peak & Sustained table carries it beside each figure, merged over the rows of a point
// (iosweep-report reads it back from the stored notes).
#pragma once

#include <string>
#include <vector>

#include "model/md_costs.hpp"
#include "model/point.hpp"
#include "model/schema.hpp"

namespace iosweep {

// Bytes per operation below which an operation did not reach the disk (see above): the smallest
// on-disk inode of the common local file systems (ext2-4's 128-byte inodes; ext4 makes 256, XFS
// 512). The wire's floor is kMdWireMinBytesPerOp (model/md_costs.hpp).
inline constexpr double kMdDeviceMinBytesPerOp = 128;

// A row is `CPU-bound` when its ranks spent, on the mean, at least this share of their windows
// on a CPU or runnable and waiting for one (busy_fraction_mean + queued_fraction_mean): then
// at most a tenth of the window was left for waiting on the storage, so the figure measures the
// CPU path (iosweep's own, the kernel's, or a CPU shared with other work) more than the
// storage. Counting the time queued for a CPU keeps the verdict where ranks outnumber the
// cores or other programs take them (busy alone falls there while the CPU is still the
// limit). Below 1 for noise: the reading brackets the window by microseconds, and a rank on a
// busy node loses slices to the kernel's own threads. The row then says how the time split:
// user (iosweep), system (the kernel's path) and queued.
inline constexpr double kCpuBoundFraction = 0.9;

// The notes of the summary alone (no drive notes).
std::string provenance_notes(const SummaryRow& s);
// The cache verdict of the summary: the notes above that say where the figure came from when
// it may not be the storage (see above); empty when the bytes were checked and nothing applies.
std::string cache_verdict(const SummaryRow& s);
// The verdict of several rows (a point's repetitions): their marks by kind, in the order they
// first appear, each number the range the rows span ("unflushed 100%" and "unflushed 100%,
// device 0%" and "unflushed 98%, device 5%" give "unflushed 98-100%, device 0-5%"). A mark's
// kind is its text without its first number (one at its start or after a space).
std::string merged_verdict(const std::vector<std::string>& verdicts);
// The notes of a reduced point, its drives' among them.
std::string provenance_notes(const PointResult& p);

// How close the row came to the CPU and to the hardware: `CPU-bound: usr U%, sys S%, queued Q%
// of the window (>= 90%)` (above); `link 41% of
// PCIe 4.0 x4` (a drive's device bytes against its PCIe link; `link 38-45% of 4 drives` for
// several), or `link unknown: loop0 is a loop device: ...` in words for a drive whose limit is
// not known (the first, then how many more); `41% of rated bandwidth, 12% of rated IOPS per
// drive` with --rated-bw or --rated-iops. Empty when none applies.
std::string headroom_notes(const PointResult& p);

// Everything a row's notes column says, in this order: a counting phase's rows and matches (and
// its efficiency, or what it shipped), stonewalled, bad blocks, what the reduction noted (a
// counter that could not be measured and why, a depth the phase could not keep, files that held
// less than a whole file, nothing moved, a short window), the headroom notes, then the
// provenance notes (a lagging drive's last, as before them). The console
// prints it; the results file stores it (summary `notes`, fitted to 255 bytes by fit_notes).
std::string row_notes(const PointResult& p);
// `full` as a field of `cap` bytes holds it: a longer text is cut before its `tail` (the
// provenance, last in row_notes), which stays whole, the cut marked "...; ": the cache verdict
// a reader takes back from the stored notes is never lost to the cut. A tail that does not fit
// with the mark, or is not the text's end, cuts the text at `cap`.
std::string fit_notes(const std::string& full, const std::string& tail, std::size_t cap);
// Sets the summary's `notes` to row_notes(p), fitted (fit_notes, its provenance whole), and the
// `lag_note` of every device row: a lagging drive's note (`drive nvme3n1 (node 2) 41%`) on its
// counted row, empty on every other row. The results file stores both: a reader shows them and
// never decides which drive lagged again.
void store_notes(PointResult& p);

}  // namespace iosweep
