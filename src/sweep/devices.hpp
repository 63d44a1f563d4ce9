// Block device counters around every phase: each node's lowest rank (its sampler) resolves the
// device holding --dir once per run, samples its counters right before the phase's barrier and
// again after the last rank's close (both moments follow a world-wide agreement, so every rank
// of the node is outside its window), and the samplers' differences travel to rank 0 over a
// communicator of samplers only. Two nodes on one kernel with the same device (emulated nodes)
// count once. Where a node has no block device, nothing is measured and the reason is kept.
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "core/block_device.hpp"
#include "model/schema.hpp"
#include "mpi/topology.hpp"

namespace iosweep {

class DeviceSampler {
 public:
  // Collective over the world. `place` is this rank's placement.
  DeviceSampler(const std::string& dir, const LocalPlace& place);
  ~DeviceSampler();
  DeviceSampler(const DeviceSampler&) = delete;
  DeviceSampler& operator=(const DeviceSampler&) = delete;

  // On rank 0: whether every node has a block device, and if not, why (the first node's).
  bool measured() const { return measured_; }
  const std::string& why_not() const { return why_not_; }

  void before() {
    if (sampling_) before_ = device_.sample();
  }
  void after() {
    if (sampling_) after_ = device_.sample();
  }
  // Collective over the active ranks of a point (`active`; the samplers of every node in use
  // are among them: a node's lowest rank is always its first to be active). On rank 0: one row
  // per node sampled, `counted` decided; point, phase and repetition left for the caller.
  std::vector<DeviceRow> collect(MPI_Comm active);

 private:
  BlockDevice device_;
  bool sampling_ = false;
  MPI_Comm samplers_ = MPI_COMM_NULL;
  int node_ = 0;
  bool measured_ = false;
  std::string why_not_;
  std::map<int, std::uint8_t> counted_;  // rank 0: per node
  DeviceCounters before_, after_;
};

}  // namespace iosweep
