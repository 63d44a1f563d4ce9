// Measured costs of metadata operations that reach a server (see md_costs.hpp).
#include "model/md_costs.hpp"

namespace iosweep {
namespace {

struct MdCost {
  std::string_view fs_type;
  PhaseId phase;
  double bytes;  // a node's wire bytes per operation, every one reaching a server: a floor
};

// GlusterFS 10.3 through its FUSE client, the bed of scripts/dfs-bed (docs/dfs.md, "Metadata
// on the bed"): 4 ranks on 2 nodes and 2 ranks on one node, 256 items per rank, flat trees and
// trees of depth 2 and branch 4, --cache drop and keep, stat-prefetch (md-cache) off and on, 0
// bytes per item. Every operation reached a brick in those rows (a stat of another node's item,
// a change), and each value is a little under the smallest seen: md-cache saves a create its
// lookup (3.5 KB without it, 2.6 KB with it) and a remove two (2.7 KB, 1.8 KB, 0.65 KB on one
// node with md-cache-timeout 60); a stat or a 0-byte read is 1.1-1.4 KB, a mkdir 8.1-9.2 KB, an
// rmdir 5.5-7.9 KB (the volume's two bricks both hold every folder).
constexpr MdCost kCosts[] = {
    {.fs_type = "fuse.glusterfs", .phase = kMdMkdir, .bytes = 7500},
    {.fs_type = "fuse.glusterfs", .phase = kMdCreate, .bytes = 2400},
    {.fs_type = "fuse.glusterfs", .phase = kMdStat, .bytes = 1000},
    {.fs_type = "fuse.glusterfs", .phase = kMdRead, .bytes = 1000},
    {.fs_type = "fuse.glusterfs", .phase = kMdRemove, .bytes = 600},
    {.fs_type = "fuse.glusterfs", .phase = kMdRmdir, .bytes = 5000},
};

}  // namespace

double md_server_bytes(std::string_view fs_type, PhaseId phase) {
  for (const auto& c : kCosts)
    if (c.fs_type == fs_type && c.phase == phase) return c.bytes;
  return 0;
}

double md_reference_bytes(std::string_view fs_type, PhaseId phase, std::uint64_t payload_bytes) {
  const double measured = md_server_bytes(fs_type, phase);
  return (measured > 0 ? measured : kMdWireMinBytesPerOp) + static_cast<double>(payload_bytes);
}

}  // namespace iosweep
