// The folders of one position's metadata trees in a set folder, reached without following a
// link: every folder is opened by walking down from the set folder's descriptor, one component
// at a time (openat with O_DIRECTORY | O_NOFOLLOW), and checked against the device and inode
// recorded when the run made it; a symbolic link, anything but a folder, or another folder at a
// name the run made stops the walk with an IoError naming the folder. No path of more than one
// component is ever handed to the kernel, so no component of an item's path can be followed.
//
// MdWalk keeps open the chain of folders it last reached (the untimed work: making, recording,
// removing, one tree at a time); MdHold opens, before a timed window, every folder the window's
// requests are relative to and holds their descriptors until after it, so that each request is
// one call on one component in a held folder, exactly the calls of mdtest's operation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/md_shape.hpp"
#include "phases/md_driver.hpp"

namespace iosweep {

// A folder or item the run made: device and inode as the rank that made it saw them; inode 0:
// not made (or not recorded).
struct MdId {
  std::uint64_t dev = 0, ino = 0;
  bool recorded() const { return ino != 0; }
};
// Index: a folder op (make order) or an item op (round-robin order) of one position.
using MdIds = std::vector<MdId>;

// Where a position's trees are: the set folder (descriptor, not owned, and path), the layout,
// the position, and its folders' identities (indexed by folder op; checked where this kernel
// sees the device the maker saw).
struct MdTrees {
  int set_fd = -1;
  std::string set_path;
  const MdLayout* layout = nullptr;
  int position = 0;
  const MdIds* ids = nullptr;
};

class MdWalk {
 public:
  explicit MdWalk(MdTrees trees) : t_(std::move(trees)) {}
  ~MdWalk() { forget(); }
  MdWalk(const MdWalk&) = delete;
  MdWalk& operator=(const MdWalk&) = delete;

  // The descriptor of folder j of `stream`'s tree (valid until the next call or forget()),
  // reached from the set folder, each folder on the way checked. Throws IoError.
  int at(std::uint64_t stream, std::uint64_t j);
  // As at(), but -errno instead of a throw, with the folder that refused (`where`) and what was
  // found there (`why`, or empty).
  int try_at(std::uint64_t stream, std::uint64_t j, std::string& where, std::string& why);
  // Closes the chain (before a folder on it is removed).
  void forget();
  std::string path(std::uint64_t stream, std::uint64_t j) const;

 private:
  struct Open {
    std::uint64_t stream, j;
    int fd;
  };
  int open_one(int parent, std::uint64_t stream, std::uint64_t j, std::string& why) const;

  MdTrees t_;
  std::vector<Open> chain_;  // from the top down
};

// The folders a window needs, opened untimed and held through it.
class MdHold {
 public:
  MdHold() = default;
  ~MdHold() { release(); }
  MdHold(const MdHold&) = delete;
  MdHold& operator=(const MdHold&) = delete;

  // Folders [first, first + count) of every tree of the position (by breadth-first index),
  // after the set folder itself (entry 0); fewer descriptors than `budget` allows, else only the
  // set folder with `beneath` set (names are then paths below it). Throws IoError.
  void open(const MdTrees& trees, std::uint64_t first, std::uint64_t count, std::uint64_t budget);
  // Only the set folder (md-mkdir: its names are paths made in the same window).
  void open_set(const MdTrees& trees);
  void release();

  const std::vector<MdFolder>& folders() const { return folders_; }
  bool beneath() const { return beneath_; }
  // The entry of folder j of `stream`'s tree (0: the set folder, also with `beneath` and when
  // only the set folder is held).
  std::uint32_t index(std::uint64_t stream, std::uint64_t j) const {
    if (beneath_ || count_ == 0 || j < first_) return 0;
    return static_cast<std::uint32_t>(1 + stream * count_ + (j - first_));
  }

 private:
  std::vector<MdFolder> folders_;
  bool beneath_ = false;
  std::uint64_t first_ = 0, count_ = 0;
};

// Descriptors a rank keeps for itself beyond those it holds for a window (MPI, HDF5, its engine).
inline constexpr std::uint64_t kMdReservedDescriptors = 128;

}  // namespace iosweep
