// The provenance notes of a summary row, as the console's `notes` column and the line under an
// IOzone block print them: `cached 97%` when a reading phase started with at least 5% of its
// bytes in the page cache, `unflushed 100%` when a writing phase left at least 5% of what it
// wrote dirty, `device 12%` when the block devices saw under 90% of the phase's bytes, `drive
// nvme3n1 (node 2) 41%` for each drive that saw under 90% of what its own ranks claimed while
// the point's other drives did not (a drive lagging behind the rest), `wire 2%` when the
// storage interfaces carried under 90% of them (a read served by a client cache), and
// `unverified` when neither a device nor an interface counted the phase's bytes. Empty only
// when the bytes were checked and nothing applies; the figures are in the results file.
#pragma once

#include <string>

#include "model/point.hpp"
#include "model/schema.hpp"

namespace iosweep {

// The notes of the summary alone (no drive notes).
std::string provenance_notes(const SummaryRow& s);
// The notes of a reduced point, its drives' among them.
std::string provenance_notes(const PointResult& p);

// Everything a row's notes column says, in this order: a counting phase's rows and matches (and
// its efficiency, or what it shipped), stonewalled, bad blocks, what the reduction noted (a
// counter that could not be measured and why, a depth the phase could not keep, files that held
// less than a whole file, nothing moved, a short window), then the provenance notes. The console
// prints it; the results file stores it (summary `notes`, cut at 255 bytes).
std::string row_notes(const PointResult& p);
// Sets the summary's `notes` to row_notes(p), cut at a character boundary to fit.
void store_notes(PointResult& p);

}  // namespace iosweep
