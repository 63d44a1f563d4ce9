// What each node's storage path counted around every phase: every block device under the
// node's folders of --dir (a drive each: a folder on a partition counts for its disk, two
// folders on one device count it once), the interfaces that carry its storage traffic to the
// servers (os/wire.hpp), and the NFS client's own byte counters where the kernel keeps them.
// Each node's lowest rank (its sampler) resolves all of it once per run (with the file system of
// every folder, from its mount table), samples the counters right before the phase's barrier
// and again after the last rank's close (both moments follow an agreement of the active ranks,
// so every rank of the node is outside its window), and the samplers' differences travel to
// rank 0 over the active ranks' communicator. Two nodes on one kernel with the same device, or
// in one network namespace, count it once (emulated nodes). Where a node has nothing to count,
// nothing is measured and the reason is kept.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/config.hpp"
#include "model/schema.hpp"
#include "mpi/topology.hpp"
#include "os/block_device.hpp"
#include "os/mountinfo.hpp"
#include "os/wire.hpp"
#include "output/writer.hpp"

namespace iosweep {

struct FolderIdentity;  // what each sampler finds at the start, per folder (node_counters.cpp)
struct DeviceSample;    // what a sampler counted of one device around a phase (node_counters.cpp)

class NodeCounters {
 public:
  // Collective over the world. `place` is this rank's placement.
  NodeCounters(const Workload& work, const LocalPlace& place);
  ~NodeCounters();
  NodeCounters(const NodeCounters&) = delete;
  NodeCounters& operator=(const NodeCounters&) = delete;

  // On rank 0: whether every folder on every node has a block device (every node a set of
  // storage interfaces), and if not, why (the first one's); every folder's file system on every
  // node and its interfaces.
  bool device_measured() const { return device_measured_; }
  const std::string& device_why_not() const { return device_why_not_; }
  bool wire_measured() const { return wire_measured_; }
  const std::string& wire_why_not() const { return wire_why_not_; }
  const std::vector<MountRow>& mounts() const { return mounts_; }
  // On rank 0: every node's devices under its folders, in the device table's order.
  std::vector<RunDrive> drives() const;

  // A file whose page-cache residency each sampler measures with the counters: the shared file
  // of a collective MPI-IO read, which the aggregators read for every rank, on whatever node
  // they run (nullptr: none).
  struct CacheProbe {
    std::string path;
    std::uint64_t bytes = 0;
  };
  // Before a phase's barrier (every rank of the point prepared): each node's sampler first
  // drops the kernel caches `drop_level` names (0: none; 2: dentries and inodes; 3: and the
  // page cache), after syncing the file systems of --dir's folders, then samples the counters
  // (and the probe's residency).
  void before(int drop_level = 0, const CacheProbe* probe = nullptr);
  void after(const CacheProbe* probe = nullptr);
  // Collective over the active ranks of a point (the samplers of every node in use are among
  // them: a node's lowest rank is always its first to be active). On rank 0: one device row
  // per (node sampled, device), `counted` and `drive` decided, with the folders on it as a bit
  // mask (`device_folders`, index = row); one wire row per node sampled; point, phase and
  // repetition left for the caller. cache_drop: 0 not asked, 1 every node sampled dropped its
  // caches, 2 a node's kernel refused.
  struct Rows {
    std::vector<DeviceRow> devices;
    std::vector<std::uint64_t> device_folders;
    std::vector<WireRow> wire;
    // Per node sampled: the probe's resident bytes before and after (NaN without a probe).
    std::map<int, std::pair<double, double>> cached;
    std::uint8_t cache_drop = 0;
  };
  Rows collect(MPI_Comm active);

 private:
  // A device of this node: the folders on it, as a bit mask of --dir's indexes.
  struct LocalDevice {
    BlockDevice device;
    std::uint64_t folders = 0;
  };
  // A device of a node as rank 0 knows it, in the order of that node's sampler.
  struct KnownDevice {
    std::string name, folders, link;
    double link_Bps = 0;
    std::uint64_t folder_mask = 0;
    std::int32_t drive = 0;
    std::uint8_t counted = 0;
  };
  struct Counts {
    std::vector<DeviceCounters> devices;       // index = devices_
    std::vector<WireCounters> wire;            // index = wire_.interfaces
    double client_read = 0, client_write = 0;  // NaN without client counters
    double cached_bytes = 0;                   // the probe's resident bytes; NaN without one
  };
  std::vector<BlockDevice> resolve(const Workload& work);
  Counts sample(const CacheProbe* probe) const;
  void settle_on_rank0(const std::vector<FolderIdentity>& all, const Workload& work);
  void settle_devices(const std::vector<FolderIdentity>& all, const Workload& work);
  std::vector<DeviceSample> gather_devices(MPI_Comm active, const std::vector<int>& nodes) const;

  std::vector<LocalDevice> devices_;
  std::string first_dir_;                // what a cache drop syncs first
  int dropped_ = 0;                      // the last before(): 0 not asked, 1 dropped, 2 refused
  std::vector<MountEntry> mounts_here_;  // index = folder
  std::vector<std::string> nfs_mounts_;  // distinct NFS mount points among the folders'
  WireChoice wire_;
  bool sampling_ = false;
  MPI_Comm samplers_ = MPI_COMM_NULL;
  int node_ = 0;
  bool device_measured_ = false, wire_measured_ = false;
  std::string device_why_not_, wire_why_not_;
  std::vector<MountRow> mounts_;                   // rank 0: one per (node, folder)
  std::map<int, std::vector<KnownDevice>> known_;  // rank 0: per node, its devices
  std::map<int, std::uint8_t> wire_counted_;       // rank 0: per node
  Counts before_, after_;
};

}  // namespace iosweep
