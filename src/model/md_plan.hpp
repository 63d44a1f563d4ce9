// The metadata phases' layout at one point of the sweep, from the --md-* options: each rank's
// items (--md-items, or its share of --md-items-total), its streams (the requests it keeps in
// flight), the tree's branch (given, or the smallest that gives every item a folder at
// --md-items-per-folder), and the refusals of a point whose items do not fit its tree. Pure
// arithmetic over core/md_shape.hpp; the checks before a run, the dry-run plan and the phases
// all plan a point through it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/md_shape.hpp"
#include "model/config.hpp"

namespace iosweep {

struct MdPoint {
  MdLayout layout;
  int ranks = 1;
  std::uint64_t items_per_rank = 0;  // --md-items
  std::uint64_t items_total = 0;     // --md-items-total (0: --md-items per rank)

  // The items position p makes at this point, and every rank's together.
  std::uint64_t items_of(int position) const;
  std::uint64_t items() const;
  // The folders every rank makes together (each stream's tree, or the shared one).
  std::uint64_t folders() const;
};

// One line of what the metadata phases make: "1024 items per rank; a tree per stream, ...".
std::string describe_md(const MdSpec& spec);
// Where they make it, for --dry-run: each rank's trees in its own folder of --dir (as its data
// file), or the shared layout's one tree in the first folder; always under the run's own folder
// there, which is removed (unless it holds what the run did not make).
std::string describe_md_places(const MdSpec& spec, const std::vector<std::string>& dirs);

// Plans the point of `k` ranks keeping `depth` requests in flight each; empty, or
// "--option: problem" naming the point when its items do not fit.
std::string plan_md_point(const MdSpec& spec, int k, unsigned depth, MdPoint& out);

}  // namespace iosweep
