// The run's metadata folders and items (see md_set.hpp).
#include "phases/md_set.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "model/limits.hpp"
#include "os/item_ops.hpp"

namespace iosweep {
namespace {

// A folder made exclusively: an existing name (another run's, another program's) is refused.
fsops::FileIdentity make_own_folder(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0)
    throw IoError::on_item(
        "mkdir", path, errno,
        errno == EEXIST ? "iosweep never takes over a folder it did not make" : "");
  return fsops::identity_of(path);
}

}  // namespace

MdSet::MdSet(std::string dir, const std::string& run_id, int position, const MdSpec& spec,
             std::uint64_t seed)
    : dir_(std::move(dir)),
      root_(dir_ + "/iosweep." + run_id + ".md"),
      position_(position),
      content_(spec.write_bytes) {
  // Incompressible bytes of the run's seed; every item gets the same ones.
  for (std::size_t i = 0; i < content_.size(); ++i)
    content_[i] = static_cast<std::byte>(mix64(seed ^ (i / 8)) >> (8 * (i % 8)));
}

MdSet::~MdSet() {
  if (set_fd_ >= 0) ::close(set_fd_);
}

bool MdSet::agreed(MPI_Comm comm, const std::function<void()>& step) {
  std::exception_ptr failed;
  try {
    // "mkdir in SET (operation 12 of this rank's)": the calls below say which.
    const Pulse::Describer d(pulse_, [this](const char* verb, std::uint64_t op) {
      std::string s = std::string(verb) + " in " + (set_path_.empty() ? root_ : set_path_);
      if (op != Pulse::kNowhere)
        s += " (untimed, operation " + std::to_string(op) + " of this rank's)";
      return s;
    });
    beat("prepare", Pulse::kNowhere);
    step();
  } catch (...) {
    failed = std::current_exception();
  }
  int bad = failed ? 1 : 0, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (failed) std::rethrow_exception(failed);
  return any == 0;
}

void MdSet::make_set_folder() {
  std::lock_guard lock(mu_);
  if (!root_made_) {
    root_id_ = make_own_folder(root_);
    root_made_ = true;
  }
  make_own_folder(set_path_);
}

// Every rank opens the set folder position 0 made (a folder, no link followed) and, where it
// sees the same file system instance as position 0 (the same device number: the same kernel's
// mount; another node's mount of a network file system numbers its devices its own way), checks
// that it is that very folder.
bool MdSet::open_set(MPI_Comm comm) {
  std::uint64_t id[2] = {0, 0};
  if (position_ == 0) {
    const fsops::FileIdentity mine = fsops::identity_of(set_path_);
    id[0] = mine.dev;
    id[1] = mine.ino;
  }
  MPI_Bcast(id, 2, MPI_UINT64_T, 0, comm);
  return agreed(comm, [&] {
    set_fd_ = fsops::open_folder(set_path_);
    struct stat st {};
    if (::fstat(set_fd_, &st) != 0 || (st.st_dev == id[0] && st.st_ino != id[1]))
      throw IoError::on_item("open", set_path_, EEXIST,
                             "not the folder position 0 made for this point");
  });
}

bool MdSet::begin(MPI_Comm comm, std::size_t point, int rep, const MdPoint& plan, bool real) {
  if (open_ && point_ == point && rep_ == rep) return true;
  if (set_fd_ >= 0) ::close(set_fd_);
  set_fd_ = -1;
  open_ = false;
  point_ = point;
  rep_ = rep;
  plan_ = plan;
  real_ = real;
  set_path_ = root_ + "/p" + std::to_string(point) + "r" + std::to_string(rep);
  folders_ = created_ = removed_ = 0;
  items_made_ = false;
  created_by_.assign(static_cast<std::size_t>(plan.ranks), 0);
  if (!agreed(comm, [&] {
        if (position_ == 0) make_set_folder();
      }))
    return false;
  open_ = true;  // from here on end() removes it
  return open_set(comm);
}

void MdSet::make_folders(std::uint64_t from, std::uint64_t to) {
  std::string name;
  for (std::uint64_t o = from; o < to && real_ && set_fd_ >= 0 && going(); ++o) {
    name.clear();
    plan_.layout.append_folder_op(position_, o, name);
    beat("mkdir", o);
    const fsops::ItemResult r = fsops::make_folder(set_fd_, name.c_str());
    if (r.result < 0) throw IoError::on_item("mkdir", full(name), static_cast<int>(-r.result));
  }
}

// The folders made so far, children before their parents; one already gone is passed over.
void MdSet::remove_folders(std::uint64_t present) {
  std::string name;
  for (std::uint64_t o = present; o > 0 && real_ && set_fd_ >= 0 && going(); --o) {
    name.clear();
    plan_.layout.append_folder_op(position_, o - 1, name);
    beat("rmdir", o - 1);
    const fsops::ItemResult r = fsops::remove_folder(set_fd_, name.c_str());
    if (r.result < 0 && r.result != -ENOENT)
      throw IoError::on_item("rmdir", full(name), static_cast<int>(-r.result));
  }
}

void MdSet::make_items(std::uint64_t from, std::uint64_t to) {
  const std::uint64_t n = plan_.items_of(position_);
  const std::size_t bytes = content_.size();
  std::string name;
  for (std::uint64_t o = from; o < to && real_ && set_fd_ >= 0 && going(); ++o) {
    name.clear();
    plan_.layout.append_item_op(position_, n, o, name);
    beat("create", o);
    const fsops::ItemResult r =
        fsops::create_item(set_fd_, name.c_str(), content_.data(), bytes, false);
    if (r.result < 0)
      throw IoError::on_item(r.step == fsops::ItemStep::first ? "create" : "write", full(name),
                             static_cast<int>(-r.result));
  }
}

void MdSet::remove_items(std::uint64_t from, std::uint64_t to) {
  const std::uint64_t n = plan_.items_of(position_);
  std::string name;
  for (std::uint64_t o = from; o < to && real_ && set_fd_ >= 0 && going(); ++o) {
    name.clear();
    plan_.layout.append_item_op(position_, n, o, name);
    beat("remove", o);
    const fsops::ItemResult r = fsops::remove_item(set_fd_, name.c_str());
    if (r.result < 0 && r.result != -ENOENT)
      throw IoError::on_item("remove", full(name), static_cast<int>(-r.result));
  }
}

void MdSet::share_counts(MPI_Comm comm) {
  MPI_Allgather(&created_, 1, MPI_UINT64_T, created_by_.data(), 1, MPI_UINT64_T, comm);
}

bool MdSet::ensure_tree(MPI_Comm comm) {
  const std::uint64_t total = plan_.layout.folder_ops(position_);
  return agreed(comm, [&] {
    if (folders_ >= total) return;
    make_folders(folders_, total);
    folders_ = total;
  });
}

bool MdSet::ensure_items(MPI_Comm comm) {
  if (!agreed(comm, [&] {
        if (items_made_) return;
        const std::uint64_t n = plan_.items_of(position_);
        make_items(0, n);
        created_ = n;
        items_made_ = true;
      }))
    return false;
  share_counts(comm);
  return true;
}

bool MdSet::ensure_no_items(MPI_Comm comm) {
  return agreed(comm, [&] {
    if (removed_ >= created_) return;
    remove_items(removed_, created_);
    removed_ = created_;
  });
}

void MdSet::note_made(std::uint64_t ops) {
  folders_ = ops;
}

void MdSet::note_unmade(std::uint64_t ops) {
  folders_ = plan_.layout.folder_ops(position_) - ops;
}

void MdSet::note_created(std::uint64_t items) {
  created_ = items;
  items_made_ = true;
}

void MdSet::note_removed(std::uint64_t items) {
  removed_ = items;
}

std::uint64_t MdSet::created_of(int position) const {
  return created_by_.at(static_cast<std::size_t>(position));
}

bool MdSet::end(MPI_Comm comm) {
  if (!open_) return true;
  if (!ensure_no_items(comm)) return false;
  if (!agreed(comm, [&] {
        remove_folders(folders_);
        folders_ = 0;
      }))
    return false;
  if (!agreed(comm, [&] {
        if (set_fd_ >= 0) ::close(set_fd_);
        set_fd_ = -1;
        if (position_ == 0 && ::rmdir(set_path_.c_str()) != 0 && errno != ENOENT)
          throw IoError::on_item("rmdir", set_path_, errno);
      }))
    return false;
  open_ = false;
  return true;
}

void MdSet::finish() {
  remove_all();
}

void MdSet::remove_all() {
  std::lock_guard lock(mu_);
  if (!root_made_) return;
  // Only the very folder this run made: opened without following a link, its identity checked.
  int fd = -1;
  try {
    fd = fsops::open_folder(root_);
  } catch (const IoError&) {
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_dev == root_id_.dev && st.st_ino == root_id_.ino) {
    fsops::remove_contents(fd, kMaxMdDepth + 4);
    ::close(fd);
    if (fsops::identity_of(root_) == root_id_ && ::rmdir(root_.c_str()) == 0) root_made_ = false;
    return;
  }
  ::close(fd);
}

}  // namespace iosweep
