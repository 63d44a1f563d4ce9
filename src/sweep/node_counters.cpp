// Device, wire and client counters around every phase (see node_counters.hpp).
#include "sweep/node_counters.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "os/client_stats.hpp"
#include "os/file_ops.hpp"

namespace iosweep {

// What a sampler finds at the start of the run, fixed size for one gather.
struct NodeIdentity {
  std::uint64_t device_identity;
  std::uint64_t network_identity;
  std::int32_t node;
  std::int32_t device_valid;
  std::int32_t wire_valid;
  char device_why[256];
  char wire_why[256];
  MountRow mount;
};

// What a sampler counted around one phase, fixed size for one gather.
struct NodeSample {
  std::int32_t sampling;
  std::int32_t node;
  char device[64];
  char interfaces[64];
  std::uint64_t read_bytes, write_bytes, read_ops, write_ops, rx_bytes, tx_bytes;
  double client_read, client_write;
  double cached_before, cached_after;
  char device_note[256];
  char wire_note[256];
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <std::size_t N>
void copy_text(char (&to)[N], const std::string& from) {
  std::memset(to, 0, N);
  std::strncpy(to, from.c_str(), N - 1);
}

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

// NFS's bytes to and from the server for the mount at `mount_point`; NaN when unreadable.
std::pair<double, double> nfs_server_bytes(const std::string& mount_point) {
  std::ifstream in("/proc/self/mountstats");
  std::ostringstream text;
  text << in.rdbuf();
  const NfsClientStats s = parse_nfs_mountstats(text.str(), mount_point);
  if (!s.ok() || s.mounts.empty() || !s.mounts.back().has_bytes) return {kNaN, kNaN};
  return {static_cast<double>(s.mounts.back().server_read),
          static_cast<double>(s.mounts.back().server_write)};
}

}  // namespace

NodeCounters::NodeCounters(const Workload& work, const LocalPlace& place)
    : sampling_(place.self.local_index == 0), node_(place.self.node) {
  MPI_Comm_split(MPI_COMM_WORLD, sampling_ ? 0 : MPI_UNDEFINED, place.self.rank, &samplers_);
  if (!sampling_) return;
  device_ = BlockDevice::of(work.dir);
  mount_ = mount_of(work.dir);
  nfs_ = mount_.fs_type == "nfs" || mount_.fs_type == "nfs4";
  if (!work.wire_off) wire_ = choose_wire(mount_, work.wire_interfaces);
  if (work.wire_off) wire_.why = "--wire-interface none";
  NodeIdentity mine{};
  mine.device_identity = device_.identity();
  mine.network_identity = network_identity();
  mine.node = node_;
  mine.device_valid = device_.valid() ? 1 : 0;
  mine.wire_valid = wire_.interfaces.empty() ? 0 : 1;
  copy_text(mine.device_why, device_.why());
  mine.mount.node = node_;
  copy_text(mine.mount.fs_type, mount_.found ? mount_.fs_type : "unknown: " + mount_.why);
  copy_text(mine.mount.source, mount_.source);
  copy_text(mine.mount.mount_point, mount_.mount_point);
  copy_text(mine.mount.options, mount_.options);
  copy_text(mine.wire_why, wire_.why);
  copy_text(mine.mount.wire, mine.wire_valid ? wire_.joined() : "none: " + wire_.why);
  const std::vector<NodeIdentity> all = gather_at_root(mine, samplers_);
  if (!all.empty()) settle_on_rank0(all);
}

// What is counted where: a device (a network namespace) once over the nodes that share it; a
// kind of counter is measured only when every node has one.
void NodeCounters::settle_on_rank0(const std::vector<NodeIdentity>& all) {
  device_measured_ = wire_measured_ = true;
  std::set<std::uint64_t> devices, networks;
  for (const auto& id : all) {
    if (!id.device_valid && device_measured_) {
      device_measured_ = false;
      device_why_not_ = "node " + std::to_string(id.node) + ": " + id.device_why;
    }
    if (!id.wire_valid && wire_measured_) {
      wire_measured_ = false;
      wire_why_not_ = "node " + std::to_string(id.node) + ": " + id.wire_why;
    }
    device_counted_[id.node] = devices.insert(id.device_identity).second ? 1 : 0;
    wire_counted_[id.node] = networks.insert(id.network_identity).second ? 1 : 0;
    mounts_.push_back(id.mount);
  }
}

NodeCounters::~NodeCounters() {
  if (samplers_ != MPI_COMM_NULL) MPI_Comm_free(&samplers_);
}

NodeCounters::Counts NodeCounters::sample(const CacheProbe* probe) const {
  Counts c;
  c.device = device_.sample();
  c.wire = sample_wire(wire_);
  std::tie(c.client_read, c.client_write) =
      nfs_ ? nfs_server_bytes(mount_.mount_point) : std::pair{kNaN, kNaN};
  c.cached_bytes = kNaN;
  if (probe != nullptr) {
    const fsops::CacheState cs = fsops::cache_state(probe->path, probe->bytes);
    if (cs.known) c.cached_bytes = static_cast<double>(cs.cached_bytes);
  }
  return c;
}

void NodeCounters::before(const CacheProbe* probe) {
  if (sampling_) before_ = sample(probe);
}

void NodeCounters::after(const CacheProbe* probe) {
  if (sampling_) after_ = sample(probe);
}

// This sampler's differences, or the reasons they could not be taken.
NodeSample NodeCounters::own_sample() const {
  const DeviceDelta d = device_delta(before_.device, after_.device, device_.name());
  const WireDelta w = wire_delta(wire_, before_.wire, after_.wire);
  NodeSample mine{sampling_ ? 1 : 0,
                  node_,
                  {},
                  {},
                  d.counts.read_bytes,
                  d.counts.write_bytes,
                  d.counts.read_ops,
                  d.counts.write_ops,
                  w.rx_bytes,
                  w.tx_bytes,
                  after_.client_read - before_.client_read,
                  after_.client_write - before_.client_write,
                  before_.cached_bytes,
                  after_.cached_bytes,
                  {},
                  {}};
  copy_text(mine.device, device_.name());
  copy_text(mine.interfaces, wire_.joined());
  copy_text(mine.device_note, d.note);
  copy_text(mine.wire_note, w.note);
  return mine;
}

NodeCounters::Rows NodeCounters::collect(MPI_Comm active) {
  Rows rows;
  const std::vector<NodeSample> all = gather_at_root(own_sample(), active);
  for (const auto& a : all) {
    if (!a.sampling) continue;
    rows.cached[a.node] = {a.cached_before, a.cached_after};
    // A row whose counters could not be measured is counted nowhere; its note says why.
    if (device_measured_) {
      DeviceRow r{};
      r.node = a.node;
      std::memcpy(r.device, a.device, sizeof r.device);
      std::memcpy(r.note, a.device_note, sizeof r.note);
      r.counted = r.note[0] == '\0' ? device_counted_[a.node] : 0;
      r.read_bytes = a.read_bytes;
      r.write_bytes = a.write_bytes;
      r.read_ops = a.read_ops;
      r.write_ops = a.write_ops;
      rows.devices.push_back(r);
    }
    if (wire_measured_) {
      WireRow r{};
      r.node = a.node;
      std::memcpy(r.interfaces, a.interfaces, sizeof r.interfaces);
      std::memcpy(r.note, a.wire_note, sizeof r.note);
      r.counted = r.note[0] == '\0' ? wire_counted_[a.node] : 0;
      r.rx_bytes = a.rx_bytes;
      r.tx_bytes = a.tx_bytes;
      r.client_read_bytes = a.client_read;
      r.client_write_bytes = a.client_write;
      rows.wire.push_back(r);
    }
  }
  return rows;
}

}  // namespace iosweep
