// Walking the metadata trees without following a link (see md_tree.hpp).
#include "phases/md_tree.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/errors.hpp"
#include "os/item_ops.hpp"

namespace iosweep {
namespace {

// What a refused open found, for the message.
std::string found(int err) {
  if (err == ELOOP) return "a symbolic link where the run made a folder (never followed)";
  if (err == ENOTDIR) return "not a folder where the run made one";
  return {};
}

int dup_of(int fd) {
  return ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

}  // namespace

std::string MdWalk::path(std::uint64_t stream, std::uint64_t j) const {
  std::string p = t_.set_path + "/";
  t_.layout->append_folder(t_.position, stream, j, p);
  return p;
}

// One folder below its parent's descriptor, checked against the identity the run recorded.
int MdWalk::open_one(int parent, std::uint64_t stream, std::uint64_t j, std::string& why) const {
  std::string name;
  if (j == 0)
    t_.layout->append_top(t_.position, stream, name);
  else
    t_.layout->tree.append_leaf(j, name);
  const int fd = fsops::open_child_folder(parent, name.c_str());
  if (fd < 0) {
    why = found(-fd);
    return fd;
  }
  if (t_.ids == nullptr) return fd;
  const std::uint64_t op = t_.layout->op_of(stream, j);
  const MdId want = op < t_.ids->size() ? (*t_.ids)[op] : MdId{};
  const fsops::ItemIdentity now = fsops::identity_of_fd(fd);
  if (!want.recorded()) {
    why = "a folder this run did not make (or did not record)";
  } else if (now.valid && now.dev == want.dev && now.ino != want.ino) {
    why = "not the folder this run made there (inode " + std::to_string(now.ino) + ", made " +
          std::to_string(want.ino) + ")";
  } else {
    return fd;
  }
  ::close(fd);
  return -EEXIST;
}

int MdWalk::try_at(std::uint64_t stream, std::uint64_t j, std::string& where, std::string& why) {
  std::uint64_t line[64];  // the folders from j up to the top
  unsigned n = 0;
  for (std::uint64_t x = j;; x = t_.layout->tree.parent(x)) {
    line[n++] = x;
    if (x == 0 || n == 64) break;
  }
  // Keep what the chain shares with the way to j, close the rest.
  std::size_t keep = 0;
  while (keep < chain_.size() && keep < n && chain_[keep].stream == stream &&
         chain_[keep].j == line[n - 1 - keep])
    ++keep;
  while (chain_.size() > keep) {
    ::close(chain_.back().fd);
    chain_.pop_back();
  }
  for (std::size_t level = keep; level < n; ++level) {
    const int parent = level == 0 ? t_.set_fd : chain_.back().fd;
    const std::uint64_t x = line[n - 1 - level];
    const int fd = open_one(parent, stream, x, why);
    if (fd < 0) {
      where = path(stream, x);
      return fd;
    }
    chain_.push_back({stream, x, fd});
  }
  return chain_.back().fd;
}

int MdWalk::at(std::uint64_t stream, std::uint64_t j) {
  std::string where, why;
  const int fd = try_at(stream, j, where, why);
  if (fd >= 0) return fd;
  throw IoError::on_item("open", where, -fd, why);
}

void MdWalk::forget() {
  for (const auto& o : chain_)
    ::close(o.fd);
  chain_.clear();
}

void MdHold::open_set(const MdTrees& trees) {
  release();
  const int fd = dup_of(trees.set_fd);
  if (fd < 0) throw IoError::on_item("open", trees.set_path, errno);
  folders_.push_back({fd, trees.set_path});
}

void MdHold::open(const MdTrees& trees, std::uint64_t first, std::uint64_t count,
                  std::uint64_t budget) {
  open_set(trees);
  first_ = first;
  count_ = count;
  const std::uint64_t trees_n = trees.layout->trees();
  if (count * trees_n + 1 > budget) {
    beneath_ = true;  // more folders than descriptors: each request resolves its folder
    return;
  }
  folders_.reserve(1 + count * trees_n);
  MdWalk walk(trees);
  for (std::uint64_t s = 0; s < trees_n; ++s) {
    for (std::uint64_t j = first; j < first + count; ++j) {
      const int fd = dup_of(walk.at(s, j));
      if (fd < 0) throw IoError::on_item("open", walk.path(s, j), errno);
      folders_.push_back({fd, walk.path(s, j)});
    }
  }
}

void MdHold::release() {
  for (const auto& f : folders_)
    if (f.fd >= 0) ::close(f.fd);
  folders_.clear();
  beneath_ = false;
  first_ = count_ = 0;
}

}  // namespace iosweep
