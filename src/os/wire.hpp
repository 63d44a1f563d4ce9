// The byte counters of the interfaces that carry a node's storage traffic, so that a figure can
// say whether its bytes crossed the wire to the servers or came from a cache on the client.
//
//   network interfaces   /proc/self/net/dev (the calling process's own network namespace, which
//                        /sys/class/net is not: it shows the namespace /sys was mounted in)
//   InfiniBand ports     /sys/class/infiniband/DEV/ports/PORT/counters/port_rcv_data and
//                        port_xmit_data, in units of 4 bytes (Lustre over o2ib, GPFS verbs)
//
// Which interfaces: named (`eth0`, `ib:mlx5_0:1` for port 1 of mlx5_0), or chosen from the
// mount: the interface of this node's route to the server its source names (an IPv4 address
// or a host name: 198.18.0.1:/vol, server:/export, 10.0.0.1@tcp:/fs), every InfiniBand port for
// a Lustre network of o2ib. A file system with a block device of its own, or whose source names
// no server (GPFS names its device), has none chosen; the reason is kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "os/mountinfo.hpp"

namespace iosweep {

// One interface's counters at one moment; `found` false when it could not be read (gone).
// `index`: the kernel's interface index in this network namespace (0 for an InfiniBand port),
// which tells a deleted and recreated interface of the same name from the one sampled before.
struct WireCounters {
  std::uint64_t rx_bytes = 0, tx_bytes = 0;
  bool found = true;
  unsigned index = 0;
};

// What crossed the interfaces of a choice between two samples, or why that cannot be said
// (`note` not empty, the counts then 0): an interface gone at either sample (deleted, renamed,
// its namespace left), replaced by another of the same name, or a counter that went back (a
// port reset, a driver reloaded). Never a measured zero that was not measured.
struct WireDelta {
  std::uint64_t rx_bytes = 0, tx_bytes = 0;
  std::string note;
};

struct WireChoice {
  std::vector<std::string> interfaces;  // empty: nothing to sample (see why)
  std::string why;
  std::string joined() const;  // "eth0,ib:mlx5_0:1"
};

// The counters of network interface `name` in the text of /proc/self/net/dev; false when it
// is not there.
bool net_dev_counters(std::string_view net_dev, std::string_view name, WireCounters& out);
// The interface this node routes IPv4 address `addr` through (in_addr's s_addr, network byte
// order, which is how /proc/self/net/route prints its hex fields), from the text of that file:
// the longest matching prefix, then the lowest metric; "lo" for an address of this node itself
// (`local`), empty when there is no route.
std::string route_interface(std::string_view route_text, std::uint32_t addr, bool local);
// The host of the server a mount names, as its client wrote it in the mount table; empty, with
// `why`, when it names none. Sources, by the client that writes them:
//   NFS, GlusterFS          server:/export, server:/volume (fuse.glusterfs)
//   CephFS (kernel)         mon1:6789,mon2:6789:/path; or name@fsid.fs=/path with the monitors
//                           in the mon_addr= option (mon1:3300/mon2:3300)
//   Lustre                  10.0.0.1@tcp:/fs, mgs1@o2ib:mgs2@o2ib:/fs (the first NID)
//   MooseFS, LizardFS       master:9421[/subfolder] (type fuse.mfs)
//   sshfs                   [user@]host:[dir] (fuse.sshfs)
//   FUSE without a subtype  NAME#SOURCE (type fuse or fuseblk): libfuse's form where the kernel
//                           takes no subtype, and mfsmount's without a FUSE version check
//                           (mfs#198.18.0.1:9421); SOURCE is read as above
// A source that is a device (/dev/sda1, /dev/fuse), or a name without a server (ceph-fuse,
// beegfs_nodev, a GPFS device, s3fs) names none; an IPv6 server is named but not sampled.
std::string server_host_of(const MountEntry& mount, std::string& why);
// The IPv4 address of that server, resolved when it is a host name; false when there is none.
bool server_of(const MountEntry& mount, std::uint32_t& addr, std::string& why);

// The interfaces to sample for the file system of `mount`: `named` when given, else chosen.
WireChoice choose_wire(const MountEntry& mount, const std::vector<std::string>& named);
// Empty when every interface of `choice` can be read on this node, else which cannot.
std::string check_wire(const WireChoice& choice);
// The counters of every interface of `choice`, now, in its order.
std::vector<WireCounters> sample_wire(const WireChoice& choice);
WireDelta wire_delta(const WireChoice& choice, const std::vector<WireCounters>& before,
                     const std::vector<WireCounters>& after);
// An identity of this node's network namespace: equal for emulated nodes that share one.
std::uint64_t network_identity();

}  // namespace iosweep
