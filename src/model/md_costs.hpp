// What one metadata operation moves over a node's wire when it reaches a server, request and
// reply together: what a row's wire bytes per operation are judged against (output/notes.cpp),
// so that a row a client's cache answered in part says `partly cached` and how much.
//
// The reference of a row is what is known of one of its operations reaching a server, the
// protocol's share plus the payload:
//   - the protocol: the cost of that operation on that client measured on the bed
//     (md_server_bytes below, by the mount type the results' mounts table records, as
//     `fuse.glusterfs`), else the floor every file system shares, kMdWireMinBytesPerOp: a
//     request and its reply each carry an Ethernet, IP and TCP header (54 bytes) before the
//     protocol's own and a name or handle;
//   - the payload: an md-read of N bytes that reached the server brought N bytes back, an
//     md-create of N bytes sent them.
// A measured cost is a little under the smallest bytes per operation seen with every operation
// reaching the server, so the reference stays a floor, and the fraction a row derives from it
// (1 - its wire bytes per operation / the reference) a lower bound of what the caches answered;
// tests/dfs measures the bed again and fails when the client now needs less.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/phase_desc.hpp"

namespace iosweep {

inline constexpr double kMdWireMinBytesPerOp = 128;

// The measured bytes of one `phase` operation that reaches a server of a client mounted as
// `fs_type`; 0 where not measured.
double md_server_bytes(std::string_view fs_type, PhaseId phase);

// The reference above: the protocol's share (measured, else the floor) plus `payload_bytes`.
double md_reference_bytes(std::string_view fs_type, PhaseId phase, std::uint64_t payload_bytes);

}  // namespace iosweep
