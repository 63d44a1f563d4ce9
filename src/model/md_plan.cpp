// A point's metadata layout (see md_plan.hpp).
#include "model/md_plan.hpp"

#include "core/errors.hpp"
#include "model/limits.hpp"

namespace iosweep {

std::uint64_t MdPoint::items_of(int position) const {
  if (items_total == 0) return items_per_rank;
  return share_of(items_total, static_cast<std::uint64_t>(ranks),
                  static_cast<std::uint64_t>(position));
}

std::uint64_t MdPoint::items() const {
  return items_total != 0 ? items_total : items_per_rank * static_cast<std::uint64_t>(ranks);
}

std::uint64_t MdPoint::folders() const {
  return layout.shared ? layout.tree.folders()
                       : layout.folder_ops(0) * static_cast<std::uint64_t>(ranks);
}

std::string describe_md(const MdSpec& md) {
  std::string s = md.items_total != 0 ? std::to_string(md.items_total) + " items at every point"
                                      : std::to_string(md.items) + " items per rank";
  s += md.shared ? "; one shared tree" : "; a tree per stream";
  s += " of depth " + std::to_string(md.depth) + ", branch " +
       (md.branch != 0 ? std::to_string(md.branch) : std::string("auto")) + ", items in " +
       (md.leaf_only ? "the leaves" : "every folder");
  if (md.per_folder != 0) s += ", at most " + std::to_string(md.per_folder) + " per folder";
  s += "; " + std::to_string(md.write_bytes) + " bytes written, " + std::to_string(md.read_bytes) +
       " read per item" + (md.fsync ? ", fsynced" : "");
  return s;
}

std::string describe_md_places(const MdSpec& spec, const std::vector<std::string>& dirs) {
  const std::string first = dirs.empty() ? std::string(".") : dirs.front();
  if (spec.shared || dirs.size() <= 1)
    return std::string(spec.shared && dirs.size() > 1 ? "the one shared tree in the first folder, "
                                                      : "") +
           printable(first) + "/iosweep.<run-id>.md/, removed at the end";
  return "each rank's trees in its folder of --dir, as its data file (" +
         std::to_string(dirs.size()) +
         " folders: <folder>/iosweep.<run-id>.md/ in each folder used), removed at the end";
}

std::string plan_md_point(const MdSpec& spec, int k, unsigned depth, MdPoint& out) {
  out = {};
  out.ranks = k;
  out.items_per_rank = spec.items;
  out.items_total = spec.items_total;
  MdLayout& l = out.layout;
  l.shared = spec.shared;
  l.streams = depth == 0 ? 1 : depth;
  l.per_folder = spec.per_folder;
  l.tree.depth = spec.depth;
  l.tree.leaf_only = spec.leaf_only;
  const std::string at =
      " at " + std::to_string(k) + " rank(s) of depth " + std::to_string(l.streams);
  // The largest stream: the first position's first stream.
  const std::uint64_t n = share_of(out.items_of(0), l.streams, 0);
  l.tree.branch =
      spec.branch != 0 ? spec.branch : auto_branch(spec.depth, spec.leaf_only, spec.per_folder, n);
  if (l.tree.branch == 0)
    return "--md-items-per-folder: a stream's " + std::to_string(n) + " items at " +
           std::to_string(spec.per_folder) +
           " per folder need more than the one folder of "
           "--md-depth 0" +
           at + "; give --md-depth 1 or more";
  if (tree_count(l.tree.depth, l.tree.branch, true, kMaxMdFolders) >= kMaxMdFolders)
    return "--md-branch: a tree of --md-depth " + std::to_string(spec.depth) + " and branch " +
           std::to_string(l.tree.branch) + at + " has " + std::to_string(kMaxMdFolders) +
           " folders or more; iosweep makes fewer per stream";
  if (spec.per_folder != 0 && l.tree.holders() < (n + spec.per_folder - 1) / spec.per_folder)
    return "--md-items-per-folder: a stream's " + std::to_string(n) + " items at " +
           std::to_string(spec.per_folder) + " per folder need " +
           std::to_string((n + spec.per_folder - 1) / spec.per_folder) +
           " folders, but the tree of --md-depth " + std::to_string(spec.depth) +
           " and --md-branch " + std::to_string(l.tree.branch) + " has " +
           std::to_string(l.tree.holders()) + " that hold items" + at;
  return {};
}

}  // namespace iosweep
