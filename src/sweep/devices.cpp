// Device counters around every phase (see devices.hpp).
#include "sweep/devices.hpp"

#include <cstring>
#include <set>

namespace iosweep {
namespace {

struct Identity {
  std::uint64_t identity;
  std::int32_t node;
  std::int32_t valid;
  char why[256];
};

struct Sample {
  std::int32_t sampling;
  std::int32_t node;
  char name[64];
  std::uint64_t read_bytes, write_bytes, read_ops, write_ops;
};

// Every sampler's `T` on the samplers' rank 0 (empty elsewhere).
template <class T>
std::vector<T> gather_at_root(const T& mine, MPI_Comm comm) {
  int me = 0, n = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  std::vector<T> all(me == 0 ? static_cast<std::size_t>(n) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, comm);
  return all;
}

}  // namespace

DeviceSampler::DeviceSampler(const std::string& dir, const LocalPlace& place)
    : sampling_(place.self.local_index == 0), node_(place.self.node) {
  MPI_Comm_split(MPI_COMM_WORLD, sampling_ ? 0 : MPI_UNDEFINED, place.self.rank, &samplers_);
  if (!sampling_) return;
  device_ = BlockDevice::of(dir);
  Identity mine{device_.identity(), node_, device_.valid() ? 1 : 0, {}};
  std::strncpy(mine.why, device_.why().c_str(), sizeof mine.why - 1);
  const std::vector<Identity> all = gather_at_root(mine, samplers_);
  if (all.empty()) return;
  measured_ = true;
  std::set<std::uint64_t> seen;
  for (const auto& id : all) {
    if (!id.valid && measured_) {
      measured_ = false;
      why_not_ = "node " + std::to_string(id.node) + ": " + id.why;
    }
    counted_[id.node] = seen.insert(id.identity).second ? 1 : 0;
  }
}

DeviceSampler::~DeviceSampler() {
  if (samplers_ != MPI_COMM_NULL) MPI_Comm_free(&samplers_);
}

std::vector<DeviceRow> DeviceSampler::collect(MPI_Comm active) {
  std::vector<DeviceRow> rows;
  const DeviceCounters d = after_ - before_;
  Sample mine{sampling_ ? 1 : 0, node_, {}, d.read_bytes, d.write_bytes, d.read_ops, d.write_ops};
  std::strncpy(mine.name, device_.name().c_str(), sizeof mine.name - 1);
  const std::vector<Sample> all = gather_at_root(mine, active);
  if (all.empty() || !measured_) return rows;
  for (const auto& a : all) {
    if (!a.sampling) continue;
    DeviceRow r{};
    r.node = a.node;
    std::memcpy(r.device, a.name, sizeof r.device);
    r.counted = counted_[a.node];
    r.read_bytes = a.read_bytes;
    r.write_bytes = a.write_bytes;
    r.read_ops = a.read_ops;
    r.write_ops = a.write_ops;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace iosweep
