// What each node's storage path counted around every phase: the block device holding --dir,
// the interfaces that carry its storage traffic to the servers (os/wire.hpp), and the NFS
// client's own byte counters where the kernel keeps them. Each node's lowest rank (its sampler)
// resolves all of it once per run (with the node's file system, from its mount table), samples
// the counters right before the phase's barrier and again after the last rank's close (both
// moments follow an agreement of the active ranks, so every rank of the node is outside its
// window), and the samplers' differences travel to rank 0 over a communicator of samplers only.
// Two nodes on one kernel with the same device, or in one network namespace, count it once
// (emulated nodes). Where a node has nothing to count, nothing is measured and the reason is
// kept.
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/schema.hpp"
#include "mpi/topology.hpp"
#include "os/block_device.hpp"
#include "os/mountinfo.hpp"
#include "os/wire.hpp"

namespace iosweep {

struct NodeIdentity;  // what each sampler finds at the start (node_counters.cpp)
struct NodeSample;    // what a sampler counted around one phase (node_counters.cpp)

class NodeCounters {
 public:
  // Collective over the world. `place` is this rank's placement.
  NodeCounters(const Workload& work, const LocalPlace& place);
  ~NodeCounters();
  NodeCounters(const NodeCounters&) = delete;
  NodeCounters& operator=(const NodeCounters&) = delete;

  // On rank 0: whether every node has a block device (a set of storage interfaces), and if
  // not, why (the first node's); every node's file system and interfaces.
  bool device_measured() const { return device_measured_; }
  const std::string& device_why_not() const { return device_why_not_; }
  bool wire_measured() const { return wire_measured_; }
  const std::string& wire_why_not() const { return wire_why_not_; }
  const std::vector<MountRow>& mounts() const { return mounts_; }

  // A file whose page-cache residency each sampler measures with the counters: the shared file
  // of a collective MPI-IO read, which the aggregators read for every rank, on whatever node
  // they run (nullptr: none).
  struct CacheProbe {
    std::string path;
    std::uint64_t bytes = 0;
  };
  void before(const CacheProbe* probe = nullptr);
  void after(const CacheProbe* probe = nullptr);
  // Collective over the active ranks of a point (the samplers of every node in use are among
  // them: a node's lowest rank is always its first to be active). On rank 0: one row per node
  // sampled, `counted` decided; point, phase and repetition left for the caller.
  struct Rows {
    std::vector<DeviceRow> devices;
    std::vector<WireRow> wire;
    // Per node sampled: the probe's resident bytes before and after (NaN without a probe).
    std::map<int, std::pair<double, double>> cached;
  };
  Rows collect(MPI_Comm active);

 private:
  struct Counts {
    DeviceCounters device;
    std::vector<WireCounters> wire;
    double client_read = 0, client_write = 0;  // NaN without client counters
    double cached_bytes = 0;                   // the probe's resident bytes; NaN without one
  };
  Counts sample(const CacheProbe* probe) const;
  NodeSample own_sample() const;
  void settle_on_rank0(const std::vector<NodeIdentity>& all);

  BlockDevice device_;
  MountEntry mount_;
  WireChoice wire_;
  bool nfs_ = false;  // the mount is NFS: its client keeps byte counts per mount
  bool sampling_ = false;
  MPI_Comm samplers_ = MPI_COMM_NULL;
  int node_ = 0;
  bool device_measured_ = false, wire_measured_ = false;
  std::string device_why_not_, wire_why_not_;
  std::vector<MountRow> mounts_;                // rank 0: one per node
  std::map<int, std::uint8_t> device_counted_;  // rank 0: per node
  std::map<int, std::uint8_t> wire_counted_;    // rank 0: per node
  Counts before_, after_;
};

}  // namespace iosweep
