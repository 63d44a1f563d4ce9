// Device, wire and client counters around every phase (see node_counters.hpp).
#include "sweep/node_counters.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "os/client_stats.hpp"
#include "os/file_ops.hpp"
#include "os/item_ops.hpp"

namespace iosweep {

// What a sampler finds at the start of the run for one folder, fixed size for one gather. The
// network's identity and interfaces are the node's, repeated on each of its folders.
struct FolderIdentity {
  std::uint64_t device_identity;
  std::uint64_t network_identity;
  std::int32_t node;
  std::int32_t folder;
  std::int32_t device_valid;
  std::int32_t wire_valid;
  char device_name[64];
  char device_why[256];
  char wire_why[256];
  MountRow mount;
  double link_Bps;  // the device's link (NaN: unknown, and `link` says why)
  char link[256];
};

// What a sampler counted of one of its devices around a phase, or why it could not (then the
// counts are 0), fixed size for one gather.
struct DeviceSample {
  DeviceCounters counts;
  char note[256];
};

namespace {

// What one active rank sends after a phase: the wire's counters (or why they could not be
// taken), the probe's residency, and how many device counters follow (none but on a node's
// sampler).
struct Sample {
  std::int32_t sampling;
  std::int32_t node;
  std::int32_t devices;
  std::int32_t dropped;  // the kernel caches before the phase: 0 not asked, 1 dropped, 2 refused
  char interfaces[64];
  std::uint64_t rx_bytes, tx_bytes;
  double client_read, client_write;
  double cached_before, cached_after;
  char wire_note[256];
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <std::size_t N>
void copy_text(char (&to)[N], const std::string& from) {
  std::memset(to, 0, N);
  std::strncpy(to, from.c_str(), N - 1);
}

// Every sampler's `n` items of `T` on the samplers' rank 0 (empty elsewhere).
template <class T>
std::vector<T> gather_at_root(const T* mine, std::size_t n, MPI_Comm comm) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  std::vector<T> all(me == 0 ? static_cast<std::size_t>(size) * n : 0);
  const auto bytes = static_cast<int>(n * sizeof(T));
  MPI_Gather(mine, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, 0, comm);
  return all;
}

// NFS's bytes to and from the server for the mount at `mount_point`; NaN when unreadable.
std::pair<double, double> nfs_server_bytes(const std::string& mount_point) {
  const NfsClientStats s = read_nfs_mountstats(mount_point);
  if (!s.ok() || s.mounts.empty() || !s.mounts.back().has_bytes) return {kNaN, kNaN};
  return {static_cast<double>(s.mounts.back().server_read),
          static_cast<double>(s.mounts.back().server_write)};
}

std::string folder_list(const Workload& work, std::uint64_t mask) {
  std::string s;
  for (std::size_t f = 0; f < work.dirs.size(); ++f)
    if (mask & (1ull << f)) s += (s.empty() ? "" : ",") + work.dirs[f];
  return s;
}

}  // namespace

NodeCounters::NodeCounters(const Workload& work, const LocalPlace& place)
    : sampling_(place.self.local_index == 0), node_(place.self.node) {
  MPI_Comm_split(MPI_COMM_WORLD, sampling_ ? 0 : MPI_UNDEFINED, place.self.rank, &samplers_);
  if (!sampling_) return;
  first_dir_ = work.dirs.front();
  const std::vector<BlockDevice> of_folder = resolve(work);
  std::vector<FolderIdentity> mine(work.dirs.size());
  const std::uint64_t network = network_identity();
  for (std::size_t f = 0; f < work.dirs.size(); ++f) {
    const BlockDevice& device = of_folder[f];
    const MountEntry& m = mounts_here_[f];
    const WireChoice own = work.wire_off ? WireChoice{{}, "--wire-interface none"}
                                         : choose_wire(m, work.wire_interfaces);
    FolderIdentity& id = mine[f];
    id.device_identity = device.identity();
    id.network_identity = network;
    id.node = node_;
    id.folder = static_cast<std::int32_t>(f);
    id.device_valid = device.valid() ? 1 : 0;
    id.wire_valid = wire_.interfaces.empty() ? 0 : 1;
    copy_text(id.device_name, device.name());
    copy_text(id.device_why, device.why());
    id.link_Bps = device.link().Bps;
    copy_text(id.link, device.link().text);
    copy_text(id.wire_why, wire_.why);
    id.mount.node = node_;
    id.mount.folder = id.folder;
    copy_text(id.mount.dir, work.dirs[f]);
    copy_text(id.mount.fs_type, m.found ? m.fs_type : "unknown: " + m.why);
    copy_text(id.mount.source, m.source);
    copy_text(id.mount.mount_point, m.mount_point);
    copy_text(id.mount.options, m.options);
    copy_text(id.mount.wire, own.interfaces.empty() ? "none: " + own.why : own.joined());
  }
  const std::vector<FolderIdentity> all = gather_at_root(mine.data(), mine.size(), samplers_);
  if (!all.empty()) settle_on_rank0(all, work);
}

// On a sampler: every folder's device (grouped: one entry per device, in order of its first
// folder) and mount; the node's storage interfaces, the union of what each folder's mount
// calls for; the NFS mounts whose client counters are read. Returns every folder's device.
std::vector<BlockDevice> NodeCounters::resolve(const Workload& work) {
  std::vector<BlockDevice> of_folder;
  for (std::size_t f = 0; f < work.dirs.size(); ++f) {
    const std::string& dir = work.dirs[f];
    mounts_here_.push_back(mount_of(dir));
    const MountEntry& m = mounts_here_.back();
    if ((m.fs_type == "nfs" || m.fs_type == "nfs4") &&
        std::find(nfs_mounts_.begin(), nfs_mounts_.end(), m.mount_point) == nfs_mounts_.end())
      nfs_mounts_.push_back(m.mount_point);
    if (!work.wire_off) {
      const WireChoice c = choose_wire(m, work.wire_interfaces);
      for (const auto& i : c.interfaces)
        if (std::find(wire_.interfaces.begin(), wire_.interfaces.end(), i) ==
            wire_.interfaces.end())
          wire_.interfaces.push_back(i);
      if (wire_.why.empty()) wire_.why = c.why;
    }
    const BlockDevice& d = of_folder.emplace_back(BlockDevice::of(dir));
    if (!d.valid()) continue;
    auto same = std::find_if(devices_.begin(), devices_.end(), [&](const LocalDevice& x) {
      return x.device.identity() == d.identity();
    });
    if (same == devices_.end()) same = devices_.insert(devices_.end(), {d, 0});
    same->folders |= 1ull << f;
  }
  if (work.wire_off) wire_.why = "--wire-interface none";
  return of_folder;
}

// What is counted where: a device (a network namespace) once over the nodes that share it; a
// kind of counter is measured only when every folder (node) has one.
void NodeCounters::settle_on_rank0(const std::vector<FolderIdentity>& all, const Workload& work) {
  device_measured_ = wire_measured_ = true;
  std::set<std::uint64_t> networks;
  for (const auto& id : all) {
    if (!id.device_valid && device_measured_) {
      device_measured_ = false;
      device_why_not_ =
          "node " + std::to_string(id.node) +
          (work.dirs.size() > 1 ? ", folder " + work.dirs[static_cast<std::size_t>(id.folder)]
                                : std::string()) +
          ": " + id.device_why;
    }
    if (id.folder == 0) {
      if (!id.wire_valid && wire_measured_) {
        wire_measured_ = false;
        wire_why_not_ = "node " + std::to_string(id.node) + ": " + id.wire_why;
      }
      wire_counted_[id.node] = networks.insert(id.network_identity).second ? 1 : 0;
    }
    mounts_.push_back(id.mount);
  }
  settle_devices(all, work);
}

// Every node's devices in its sampler's order (grouped by identity in folder order, as
// resolve() groups them), each with its drive id (devices numbered by first appearance over
// nodes and folders) and counted on the first node that has it.
void NodeCounters::settle_devices(const std::vector<FolderIdentity>& all, const Workload& work) {
  std::map<std::uint64_t, std::int32_t> drive_of;
  std::map<std::uint64_t, std::size_t> index_here;  // identity -> index on the current node
  int node = -1;
  for (const auto& id : all) {
    if (id.node != node) {
      node = id.node;
      index_here.clear();
    }
    if (!id.device_valid) continue;
    auto& list = known_[id.node];
    auto [at, is_new] = index_here.emplace(id.device_identity, list.size());
    if (is_new) {
      KnownDevice k;
      k.name = id.device_name;
      k.link_Bps = id.link_Bps;
      k.link = id.link;
      const auto [d, first] =
          drive_of.emplace(id.device_identity, static_cast<std::int32_t>(drive_of.size()));
      k.drive = d->second;
      k.counted = first ? 1 : 0;
      list.push_back(std::move(k));
    }
    list[at->second].folder_mask |= 1ull << id.folder;
  }
  for (auto& [n, list] : known_)
    for (auto& k : list)
      k.folders = folder_list(work, k.folder_mask);
}

std::vector<RunDrive> NodeCounters::drives() const {
  std::vector<RunDrive> out;
  for (const auto& [node, list] : known_)
    for (const auto& k : list)
      out.push_back({.node = node,
                     .drive = k.drive,
                     .device = k.name,
                     .folders = k.folder_mask,
                     .link_Bps = k.link_Bps,
                     .link = k.link});
  return out;
}

NodeCounters::~NodeCounters() {
  if (samplers_ != MPI_COMM_NULL) MPI_Comm_free(&samplers_);
}

NodeCounters::Counts NodeCounters::sample(const CacheProbe* probe) const {
  Counts c;
  for (const auto& d : devices_)
    c.devices.push_back(d.device.sample());
  c.wire = sample_wire(wire_);
  if (nfs_mounts_.empty()) {
    c.client_read = c.client_write = kNaN;
  } else {
    for (const auto& m : nfs_mounts_) {
      const auto [rd, wr] = nfs_server_bytes(m);
      c.client_read += rd;
      c.client_write += wr;
    }
  }
  c.cached_bytes = kNaN;
  if (probe != nullptr) {
    const fsops::CacheState cs = fsops::cache_state(probe->path, probe->bytes);
    if (cs.known) c.cached_bytes = static_cast<double>(cs.cached_bytes);
  }
  return c;
}

void NodeCounters::before(int drop_level, const CacheProbe* probe) {
  dropped_ = 0;
  if (!sampling_) return;
  if (drop_level > 0) dropped_ = fsops::drop_kernel_caches(first_dir_, drop_level) == 0 ? 1 : 2;
  before_ = sample(probe);
}

void NodeCounters::after(const CacheProbe* probe) {
  if (sampling_) after_ = sample(probe);
}

// Every sampler's device differences on rank 0, in the order of the active ranks; `devices`
// (rank 0) says how many each active rank sends.
std::vector<DeviceSample> NodeCounters::gather_devices(MPI_Comm active,
                                                       const std::vector<int>& devices) const {
  std::vector<DeviceSample> mine;
  for (std::size_t d = 0; d < after_.devices.size() && sampling_; ++d) {
    const DeviceDelta delta =
        device_delta(before_.devices[d], after_.devices[d], devices_[d].device.name());
    DeviceSample& s = mine.emplace_back();
    s.counts = delta.counts;
    copy_text(s.note, delta.note);
  }
  std::vector<int> bytes(devices.size()), displs(devices.size());
  int total = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    bytes[i] = devices[i] * static_cast<int>(sizeof(DeviceSample));
    displs[i] = total;
    total += bytes[i];
  }
  std::vector<DeviceSample> all(static_cast<std::size_t>(total) / sizeof(DeviceSample));
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size() * sizeof(DeviceSample)), MPI_BYTE,
              all.data(), bytes.data(), displs.data(), MPI_BYTE, 0, active);
  return all;
}

NodeCounters::Rows NodeCounters::collect(MPI_Comm active) {
  Rows rows;
  const WireDelta w = wire_delta(wire_, before_.wire, after_.wire);
  Sample mine{sampling_ ? 1 : 0,
              node_,
              sampling_ ? static_cast<std::int32_t>(devices_.size()) : 0,
              dropped_,
              {},
              w.rx_bytes,
              w.tx_bytes,
              after_.client_read - before_.client_read,
              after_.client_write - before_.client_write,
              before_.cached_bytes,
              after_.cached_bytes,
              {}};
  copy_text(mine.interfaces, wire_.joined());
  copy_text(mine.wire_note, w.note);
  const std::vector<Sample> all = gather_at_root(&mine, 1, active);
  std::vector<int> devices(all.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    devices[i] = all[i].devices;
  const std::vector<DeviceSample> counts = gather_devices(active, devices);
  std::size_t next = 0;
  for (const auto& a : all) {
    const std::size_t first = next;
    next += static_cast<std::size_t>(a.devices);
    if (!a.sampling) continue;
    rows.cached[a.node] = {a.cached_before, a.cached_after};
    // Every node dropped its caches (1), or one refused (2), or none was asked (0).
    if (a.dropped == 2 || rows.cache_drop == 2)
      rows.cache_drop = 2;
    else if (a.dropped == 1)
      rows.cache_drop = 1;
    const auto& known = known_[a.node];
    const std::size_t n = std::min(known.size(), static_cast<std::size_t>(a.devices));
    for (std::size_t d = 0; device_measured_ && d < n; ++d) {
      const DeviceCounters& c = counts[first + d].counts;
      DeviceRow r{};
      r.node = a.node;
      copy_text(r.device, known[d].name);
      copy_text(r.folders, known[d].folders);
      // A row whose counters could not be measured is counted nowhere; its note says why.
      std::memcpy(r.note, counts[first + d].note, sizeof r.note);
      r.counted = r.note[0] == '\0' ? known[d].counted : 0;
      r.drive = known[d].drive;
      r.read_bytes = c.read_bytes;
      r.write_bytes = c.write_bytes;
      r.read_ops = c.read_ops;
      r.write_ops = c.write_ops;
      r.link_Bps = known[d].link_Bps;
      r.link_fraction = kNaN;
      copy_text(r.link, known[d].link);
      rows.devices.push_back(r);
      rows.device_folders.push_back(known[d].folder_mask);
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
