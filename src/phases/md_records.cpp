// What the metadata phases made, made untimed, recorded, and removed by identity (see
// md_set.hpp). Trees are visited one at a time (stream by stream) whatever their make order,
// so a walk reopens no folder it just left; a folder is reached only through MdWalk.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "core/errors.hpp"
#include "os/item_ops.hpp"
#include "phases/md_set.hpp"

namespace iosweep {
namespace {

constexpr std::size_t kLeftNamed = 6;  // what was left, named in a message at most

bool failed_in(const MdResult& r, std::uint64_t op) {
  return std::find(r.failed.begin(), r.failed.end(), op) != r.failed.end();
}

std::string left_because(const std::string& path, int err, const std::string& why) {
  return printable(path) + " (" + describe_errno(err) + (why.empty() ? "" : "; " + why) + ")";
}

// What a folder the run could not remove holds (ENOTEMPTY), for the message.
std::string what_it_holds(int parent, const std::string& name, int err) {
  if (err != ENOTEMPTY && err != EEXIST) return {};
  const int fd = fsops::open_child_folder(parent, name.c_str());
  if (fd < 0) return {};
  std::string holds = "holds what this run did not make: " + fsops::names_in(fd, 3);
  ::close(fd);
  return holds;
}

}  // namespace

std::string left_text(const std::vector<std::string>& left) {
  if (left.empty()) return {};
  std::string s = "left what this run did not make or could not remove: ";
  for (std::size_t i = 0; i < left.size() && i < kLeftNamed; ++i)
    s += (i == 0 ? "" : "; ") + left[i];
  if (left.size() > kLeftNamed) s += " and " + std::to_string(left.size() - kLeftNamed) + " more";
  return s;
}

void MdSet::make_folders(std::uint64_t from, std::uint64_t to) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  MdWalk walk(own_trees());
  std::string name;
  for (std::uint64_t s = 0; s < l.trees() && going(); ++s) {
    for (std::uint64_t j = 0; j < l.tree.folders() && going(); ++j) {
      const std::uint64_t op = l.op_of(s, j);
      if (op < from || op >= to) continue;
      const int parent = j == 0 ? set_fd_ : walk.at(s, l.tree.parent(j));
      name.clear();
      if (j == 0)
        l.append_top(position_, s, name);
      else
        l.tree.append_leaf(j, name);
      beat("mkdir", op);
      Lock lock = locked_open();
      const fsops::ItemResult r = fsops::make_folder(parent, name.c_str());
      if (r.result < 0)
        throw IoError::on_item("mkdir", walk.path(s, j), static_cast<int>(-r.result));
      const fsops::ItemIdentity id = fsops::identity_at(parent, name.c_str());
      if (!id.folder)
        throw IoError::on_item("mkdir", walk.path(s, j), id.err != 0 ? id.err : ENOTDIR,
                               "not a folder right after the run made it");
      folder_ids_[op] = {id.dev, id.ino};
    }
  }
}

void MdSet::make_items(std::uint64_t from, std::uint64_t to) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  const std::uint64_t n = plan_.items_of(position_);
  MdWalk walk(item_trees());
  std::string name;
  for (std::uint64_t s = 0; s < l.streams && going(); ++s) {
    const std::uint64_t ns = share_of(n, l.streams, s);
    for (std::uint64_t i = 0; i < ns && going(); ++i) {
      const std::uint64_t op = interleaved_op(n, l.streams, s, i);
      if (op < from || op >= to) continue;
      const std::uint64_t tree = l.shared ? 0 : s, j = l.folder_of(i, ns);
      const int dir = walk.at(tree, j);
      name.clear();
      l.append_item_name(position_, s, i, name);
      beat("create", op);
      Lock lock = locked_open();
      const fsops::ItemResult r =
          fsops::create_item(dir, name.c_str(), content_.data(), content_.size(), false);
      if (r.result < 0)
        throw IoError::on_item(r.step == fsops::ItemStep::first ? "create" : "write",
                               walk.path(tree, j) + "/" + name, static_cast<int>(-r.result));
      const fsops::ItemIdentity id = fsops::identity_at(dir, name.c_str());
      if (!id.regular)
        throw IoError::on_item("create", walk.path(tree, j) + "/" + name,
                               id.err != 0 ? id.err : EEXIST,
                               "not a regular file right after the run made it");
      item_ids_[op] = {id.dev, id.ino};
    }
  }
}

// The folders a window made (the names its mkdirat took, the failed ones excepted): what is at
// each name now, a folder, is recorded as made.
void MdSet::record_folders(Lock* held, const Pass& p, std::vector<std::string>& left) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  MdWalk walk(own_trees());
  std::string name, where, why;
  for (std::uint64_t s = 0; s < l.trees(); ++s) {
    for (std::uint64_t j = 0; j < l.tree.folders(); ++j) {
      const std::uint64_t op = l.op_of(s, j);
      if (op < p.first || op >= p.reached.next || failed_in(p.reached, op)) continue;
      Lock mine;
      if (held == nullptr) mine = Lock(mu_);
      if (held == nullptr && closed_) return;  // remove_all records the rest
      if (held == nullptr) beat("stat", op);
      if (folder_ids_[op].recorded()) continue;
      const int parent = j == 0 ? set_fd_ : walk.try_at(s, l.tree.parent(j), where, why);
      if (parent < 0) {
        left.push_back(left_because(where, -parent, why));
        continue;
      }
      name.clear();
      if (j == 0)
        l.append_top(position_, s, name);
      else
        l.tree.append_leaf(j, name);
      const fsops::ItemIdentity id = fsops::identity_at(parent, name.c_str());
      if (id.folder)
        folder_ids_[op] = {id.dev, id.ino};
      else
        left.push_back(left_because(walk.path(s, j), id.err != 0 ? id.err : ENOTDIR,
                                    "not a folder right after md-mkdir made it"));
    }
  }
}

// The items a window (or the wear-out) created, the failed ones excepted.
void MdSet::record_items(Lock* held, const Pass& p, std::vector<std::string>& left) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  const std::uint64_t n = plan_.items_of(position_);
  MdWalk walk(item_trees());
  std::string name, where, why;
  for (std::uint64_t s = 0; s < l.streams; ++s) {
    const std::uint64_t ns = share_of(n, l.streams, s);
    for (std::uint64_t i = 0; i < ns; ++i) {
      const std::uint64_t op = interleaved_op(n, l.streams, s, i);
      if (op < p.first || op >= p.reached.next || failed_in(p.reached, op)) continue;
      Lock mine;
      if (held == nullptr) mine = Lock(mu_);
      if (held == nullptr && closed_) return;
      if (held == nullptr) beat("stat", op);
      if (item_ids_[op].recorded()) continue;
      const std::uint64_t tree = l.shared ? 0 : s, j = l.folder_of(i, ns);
      const int dir = walk.try_at(tree, j, where, why);
      if (dir < 0) {
        left.push_back(left_because(where, -dir, why));
        continue;
      }
      name.clear();
      l.append_item_name(position_, s, i, name);
      const fsops::ItemIdentity id = fsops::identity_at(dir, name.c_str());
      if (id.regular)
        item_ids_[op] = {id.dev, id.ino};
      else
        left.push_back(left_because(walk.path(tree, j) + "/" + name, id.err != 0 ? id.err : EEXIST,
                                    "not a regular file right after md-create made it"));
    }
  }
}

// Every recorded item still there as the run made it, removed; the rest named in `left`.
void MdSet::remove_items(Lock* held, std::vector<std::string>& left) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  const std::uint64_t n = plan_.items_of(position_);
  MdWalk walk(item_trees());
  std::string name, where, why, unreachable;
  for (std::uint64_t s = 0; s < l.streams; ++s) {
    const std::uint64_t ns = share_of(n, l.streams, s);
    for (std::uint64_t i = 0; i < ns; ++i) {
      const std::uint64_t op = interleaved_op(n, l.streams, s, i);
      Lock mine;
      if (held == nullptr) mine = Lock(mu_);
      if (held == nullptr && closed_) return;
      if (held == nullptr) beat("remove", op);
      const MdId rec = item_ids_[op];
      if (!rec.recorded()) continue;
      const std::uint64_t tree = l.shared ? 0 : s, j = l.folder_of(i, ns);
      const int dir = walk.try_at(tree, j, where, why);
      if (dir < 0) {
        if (where != unreachable) left.push_back(left_because(where, -dir, why));
        unreachable = where;  // its items are left with it: named once
        continue;
      }
      name.clear();
      l.append_item_name(position_, s, i, name);
      const fsops::ItemIdentity now = fsops::identity_at(dir, name.c_str());
      const std::string path = walk.path(tree, j) + "/" + name;
      const bool gone = !now.valid && now.err == ENOENT;
      const bool ours = now.same(rec.dev, rec.ino) && now.regular;
      const fsops::ItemResult r =
          ours ? fsops::remove_item(dir, name.c_str()) : fsops::ItemResult{};
      if (gone || (ours && r.result == 0))
        item_ids_[op] = {};  // removed, or gone already
      else if (!ours)
        left.push_back(left_because(path, EEXIST, "not the item this run made there"));
      else
        left.push_back(left_because(path, static_cast<int>(-r.result), ""));
    }
  }
}

// Every recorded folder still there as the run made it, removed (children before their
// parent); a folder that holds what the run did not make is left with it, named.
void MdSet::remove_folders(Lock* held, std::vector<std::string>& left) {
  if (!real_ || set_fd_ < 0) return;
  const MdLayout& l = plan_.layout;
  MdWalk walk(own_trees());
  std::string name, where, why;
  for (std::uint64_t s = 0; s < l.trees(); ++s) {
    for (std::uint64_t j = l.tree.folders(); j-- > 0;) {
      const std::uint64_t op = l.op_of(s, j);
      if (op >= folder_ids_.size()) continue;
      Lock mine;
      if (held == nullptr) mine = Lock(mu_);
      if (held == nullptr && closed_) return;
      if (held == nullptr) beat("rmdir", op);
      const MdId rec = folder_ids_[op];
      if (!rec.recorded()) continue;
      const int parent = j == 0 ? set_fd_ : walk.try_at(s, l.tree.parent(j), where, why);
      if (parent < 0) continue;  // its items were named unreachable, or it is gone
      name.clear();
      if (j == 0)
        l.append_top(position_, s, name);
      else
        l.tree.append_leaf(j, name);
      const fsops::ItemIdentity now = fsops::identity_at(parent, name.c_str());
      const std::string path = walk.path(s, j);
      const bool gone = !now.valid && now.err == ENOENT;
      const bool ours = now.same(rec.dev, rec.ino) && now.folder;
      const fsops::ItemResult r =
          ours ? fsops::remove_folder(parent, name.c_str()) : fsops::ItemResult{};
      if (gone || (ours && r.result == 0)) {
        folder_ids_[op] = {};  // removed, or gone already
      } else if (!ours) {
        left.push_back(left_because(path, now.valid ? EEXIST : now.err,
                                    now.valid && !now.folder
                                        ? "a symbolic link or file where the run made a folder"
                                        : "not the folder this run made there"));
      } else {
        left.push_back(left_because(path, static_cast<int>(-r.result),
                                    what_it_holds(parent, name, static_cast<int>(-r.result))));
      }
    }
  }
}

// Another rank of the point still has a tree in this rank's set folder (it is removing it).
bool MdSet::others_in_set() const {
  const MdLayout& l = plan_.layout;
  std::string name;
  for (int p = 0; p < plan_.ranks; ++p) {
    if (p == position_ || folder_of(p) != my_folder_ || l.folder_ops(p) == 0) continue;
    for (std::uint64_t s = 0; s < l.trees(); ++s) {
      name.clear();
      l.append_top(p, s, name);
      if (fsops::identity_at(set_fd_, name.c_str()).valid) return true;
    }
  }
  // The shared tree is position 0's; the others' items in it keep it from going.
  return l.shared && position_ == 0 && l.folder_ops(0) > 0 &&
         fsops::identity_at(set_fd_, "shared").valid;
}

// The maker: its set folder, once the ranks of the point removed what they made in it; with
// `wait`, it waits for them (a few seconds at most) and removes its own folders again.
void MdSet::remove_set(Lock* held, bool wait, std::vector<std::string>& left) {
  Lock mine;
  if (held == nullptr) {
    mine = Lock(mu_);
    if (closed_) return;
    held = &mine;
  }
  if (!set_made_) return;
  const std::string path = set_path_of(my_folder_);
  const MdId want = set_ids_[static_cast<std::size_t>(my_folder_)];
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kMdOthersWaitS);
  for (;;) {
    const fsops::FileIdentity now = fsops::identity_of(path);
    if (!now.valid) break;  // gone
    if (now.dev != want.dev || now.ino != want.ino) {
      left.push_back(left_because(path, EEXIST, "not the folder this run made there"));
      break;
    }
    if (::rmdir(path.c_str()) == 0) break;
    const int err = errno;
    if (wait && err == ENOTEMPTY && others_in_set() &&
        std::chrono::steady_clock::now() < deadline) {
      held->unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      held->lock();
      std::vector<std::string> again;  // this rank's own folders, once their items are gone
      remove_folders(held, again);
      continue;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    std::string holds;
    if (fd >= 0) {
      holds = "holds what this run did not make or could not remove: " + fsops::names_in(fd, 4);
      ::close(fd);
    }
    left.push_back(left_because(path, err, holds));
    break;
  }
  set_made_ = false;
}

void MdSet::note_removed(const MdResult& reached) {
  Lock lock(mu_);
  for (std::uint64_t op = 0; op < reached.next && op < item_ids_.size(); ++op)
    if (!failed_in(reached, op)) item_ids_[op] = {};
  removed_ = reached.next;
}

// md-rmdir removes in the reverse of the make order: its request o is folder op total-1-o.
void MdSet::note_unmade(const MdResult& reached) {
  Lock lock(mu_);
  const std::uint64_t total = plan_.layout.folder_ops(position_);
  for (std::uint64_t o = 0; o < reached.next && o < total; ++o)
    if (!failed_in(reached, o)) folder_ids_[total - 1 - o] = {};
  folders_ = total - reached.next;
}

namespace {

// The run's own folder in a folder of --dir, removed when it is still the one made; else left.
void remove_root(const std::string& root, const fsops::FileIdentity& made,
                 std::vector<std::string>& left) {
  const fsops::FileIdentity now = fsops::identity_of(root);
  if (!now.valid) return;
  if (!(now == made)) {
    left.push_back(left_because(root, EEXIST, "not the folder this run made there"));
    return;
  }
  if (::rmdir(root.c_str()) == 0) return;
  const int err = errno;
  std::string holds;
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    holds = "holds what this run did not make: " + fsops::names_in(fd, 4);
    ::close(fd);
  }
  left.push_back(left_because(root, err, holds));
}

}  // namespace

std::string MdSet::finish() {
  Lock lock(mu_);
  closed_ = true;
  std::vector<std::string> left;
  if (root_made_) remove_root(root_of(my_folder_), root_id_, left);
  root_made_ = false;
  return left_text(left);
}

std::string MdSet::remove_all() {
  Lock lock(mu_, std::defer_lock);
  const auto bound = std::chrono::duration<double>(kMdPassWaitS);
  if (!lock.try_lock_for(bound))
    return "left " + printable(root_of(my_folder_)) +
           " as it was: the main thread kept its metadata set busy for more than " +
           std::to_string(static_cast<int>(kMdPassWaitS)) + " s";
  closed_ = true;
  std::vector<std::string> left;
  if (pass_.active && !cv_.wait_for(lock, bound, [&] { return !pass_.active; }))
    left.push_back(printable(set_path_of(my_folder_)) + " (a window was still making items " +
                   std::to_string(static_cast<int>(kMdPassWaitS)) +
                   " s after the stop; what it made is not recorded)");
  if (pass_.pending) {
    std::vector<std::string> problems;
    if (pass_.op == IoOp::mkdir)
      record_folders(&lock, pass_, problems);
    else
      record_items(&lock, pass_, problems);
    pass_.pending = false;
  }
  if (set_fd_ >= 0) {
    remove_items(&lock, left);
    remove_folders(&lock, left);
    remove_set(&lock, true, left);
  }
  if (root_made_) remove_root(root_of(my_folder_), root_id_, left);
  root_made_ = false;
  return left_text(left);
}

}  // namespace iosweep
