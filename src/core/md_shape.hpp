// The arithmetic of the metadata phases' folders and items, pure: how a folder tree is numbered
// and named, which folder holds which item, how a rank's items split over its streams and in
// which order they are visited, and which folder must exist (or be gone) before another is made
// (or removed). mdtest's shapes in iosweep's terms: a tree of `depth` levels below its top
// folder with `branch` children per folder (mdtest -z, -b), items only in its leaves (-L) or in
// every folder, at most `per_folder` items of one stream per folder (-I), and a tree per stream
// (-u, a stream being one request a rank keeps in flight) or one tree for all (no -u).
//
// Names, relative to the point's set folder (phases/md_set.hpp): a stream's tree is
// `t<position>.<stream>` (the shared tree: `shared`), folder j below its top `d<c>/.../d<c>`
// (c: the child's index under its parent), item i of a stream `f.<position>.<stream>.<i>`.
//
// Order: a rank's n items split over its d streams (stream s takes n / d, the first n mod d one
// more) and are visited round-robin over the streams: stream 0's first item, stream 1's first,
// ..., stream 0's second, ... (a stream that is done is skipped), so that d requests in flight
// are one per stream, each in its own folder where the tree is private. Any prefix of that order
// is a prefix of every stream's items: a phase stopped early has touched, per stream, its first
// items, and the phases after it know exactly which from one count per rank. Folders are made
// in the same round-robin over the streams' trees, each tree breadth-first (a parent before its
// children), and removed in exactly the reverse order (children before their parent).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace iosweep {

// How n things split into `parts` parts: part p gets n / parts, the first n mod parts one more.
std::uint64_t share_of(std::uint64_t n, std::uint64_t parts, std::uint64_t p);

// One folder tree: a top folder (0), `depth` levels below it, `branch` children per folder;
// folders numbered breadth-first (1 .. branch are the top's children, and so on).
struct MdTree {
  unsigned depth = 0;
  std::uint64_t branch = 1;
  bool leaf_only = true;  // items only in the leaves (mdtest -L); else in every folder

  std::uint64_t folders() const;  // 1 + branch + ... + branch^depth
  std::uint64_t leaves() const;   // branch^depth
  // The folders that hold items, and the first of them (they are the last ones).
  std::uint64_t holders() const { return leaf_only ? leaves() : folders(); }
  std::uint64_t first_holder() const { return folders() - holders(); }
  std::uint64_t parent(std::uint64_t j) const { return (j - 1) / branch; }  // j > 0
  // Folder j's children are [first_child(j), first_child(j) + branch), when it has any.
  std::uint64_t first_child(std::uint64_t j) const { return j * branch + 1; }
  bool is_leaf(std::uint64_t j) const { return first_child(j) >= folders(); }
  // Appends folder j's path below the top ("d1/d0"; nothing for the top itself).
  void append_path(std::uint64_t j, std::string& out) const;
  // Appends folder j's own name in its parent ("d0"), j > 0.
  void append_leaf(std::uint64_t j, std::string& out) const;
};

// branch^0 + ... + branch^depth (with_top) or branch^depth, saturating at `cap` (the result is
// `cap` whenever the true count is at least `cap`).
std::uint64_t tree_count(unsigned depth, std::uint64_t branch, bool all_levels, std::uint64_t cap);

// The smallest branch whose holders take `items` at `per_folder` each (mdtest's -b for a -I);
// 1 when per_folder is 0 (items spread over what there is); 0 when no branch does (depth 0 and
// more items than one folder holds).
std::uint64_t auto_branch(unsigned depth, bool leaf_only, std::uint64_t per_folder,
                          std::uint64_t items);

// The round-robin order over d streams of n things split by share_of: position o of the order
// is (stream, index within the stream).
std::pair<std::uint64_t, std::uint64_t> interleaved(std::uint64_t n, std::uint64_t d,
                                                    std::uint64_t o);
// Its inverse: the position in that order of item i of stream s.
std::uint64_t interleaved_op(std::uint64_t n, std::uint64_t d, std::uint64_t s, std::uint64_t i);

// The folders and items of one point, as every rank of it sees them.
struct MdLayout {
  MdTree tree;
  bool shared = false;           // one tree for every rank, made by position 0
  std::uint64_t streams = 1;     // per rank: its requests in flight
  std::uint64_t per_folder = 0;  // a stream's items per holder folder; 0: spread evenly

  // The folder (breadth-first index) of item i of a stream that has n items.
  std::uint64_t folder_of(std::uint64_t i, std::uint64_t n) const;
  // The folders `position` makes: one tree per stream, or the shared tree (position 0 only).
  std::uint64_t folder_ops(int position) const;
  // Folder op o of `position`, in make order: (stream, folder).
  std::pair<std::uint64_t, std::uint64_t> folder_op(std::uint64_t o) const;
  // How many of the first ops must have completed before op o may start: in make order (its
  // parent made), and in removal order, the reverse of make order (its children removed).
  std::uint64_t make_needs(std::uint64_t o) const;
  std::uint64_t remove_needs(int position, std::uint64_t o) const;

  // Folder op of (stream, folder j): the inverse of folder_op.
  std::uint64_t op_of(std::uint64_t stream, std::uint64_t j) const {
    return shared ? j : j * streams + stream;
  }
  // The trees `position` makes or touches: one per stream, or the shared one.
  std::uint64_t trees() const { return shared ? 1 : streams; }

  // Names relative to the point's set folder (appended to `out`).
  void append_folder(int position, std::uint64_t stream, std::uint64_t j, std::string& out) const;
  // One component: a tree's top folder in the set folder ("t3.1", "shared"), and an item's own
  // name in its folder ("f.3.1.17").
  void append_top(int position, std::uint64_t stream, std::string& out) const;
  void append_item_name(int position, std::uint64_t stream, std::uint64_t i,
                        std::string& out) const;
  void append_item(int position, std::uint64_t stream, std::uint64_t i, std::uint64_t n,
                   std::string& out) const;
  // Item o (in the rank's round-robin order) of a position that has n items.
  void append_item_op(int position, std::uint64_t n, std::uint64_t o, std::string& out) const;
  // Folder op o of `position`, in make order.
  void append_folder_op(int position, std::uint64_t o, std::string& out) const;
};

}  // namespace iosweep
