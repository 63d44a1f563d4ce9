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

}  // namespace iosweep
