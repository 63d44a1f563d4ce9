// The run's metadata folders and items: sets, collective steps, passes (see md_set.hpp). What
// the run made is recorded and removed in md_records.cpp.
#include "phases/md_set.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <exception>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"
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

// Identities as pairs of 64-bit words, in pieces MPI's int counts can hold.
constexpr std::size_t kIdsPerMessage = std::size_t{1} << 28;

void bcast_ids(MdIds& ids, int root, MPI_Comm comm) {
  for (std::size_t at = 0; at < ids.size(); at += kIdsPerMessage) {
    const std::size_t n = std::min(kIdsPerMessage, ids.size() - at);
    MPI_Bcast(&ids[at], static_cast<int>(2 * n), MPI_UINT64_T, root, comm);
  }
}

void swap_ids(const MdIds& mine, int to, MdIds& theirs, int from, MPI_Comm comm) {
  for (std::size_t at = 0; at < std::max(mine.size(), theirs.size()); at += kIdsPerMessage) {
    const std::size_t out = at < mine.size() ? std::min(kIdsPerMessage, mine.size() - at) : 0;
    const std::size_t in = at < theirs.size() ? std::min(kIdsPerMessage, theirs.size() - at) : 0;
    MPI_Sendrecv(out ? &mine[at] : nullptr, static_cast<int>(2 * out), MPI_UINT64_T, to, 7,
                 in ? &theirs[at] : nullptr, static_cast<int>(2 * in), MPI_UINT64_T, from, 7, comm,
                 MPI_STATUS_IGNORE);
  }
}

}  // namespace

MdSet::MdSet(MdPlaces places, std::string run_id, int position, const MdSpec& spec,
             std::uint64_t seed)
    : places_(std::move(places)),
      run_id_(std::move(run_id)),
      position_(position),
      spec_(spec),
      content_(spec.write_bytes) {
  // Incompressible bytes of the run's seed; every item gets the same ones.
  for (std::size_t i = 0; i < content_.size(); ++i)
    content_[i] = static_cast<std::byte>(mix64(seed ^ (i / 8)) >> (8 * (i % 8)));
  if (places_.dirs.empty()) places_.dirs.emplace_back(".");
  my_folder_ = folder_of(position_);
  maker_of_.assign(places_.dirs.size(), -1);
  for (int p = static_cast<int>(places_.folder_of_position.size()) - 1; p >= 0; --p)
    maker_of_[static_cast<std::size_t>(folder_of(p))] = p;
  if (maker_of_[0] < 0) maker_of_[0] = 0;
}

MdSet::~MdSet() {
  if (set_fd_ >= 0) ::close(set_fd_);
}

int MdSet::folder_of(int position) const {
  const auto& f = places_.folder_of_position;
  if (spec_.shared || position < 0 || static_cast<std::size_t>(position) >= f.size()) return 0;
  const int folder = f[static_cast<std::size_t>(position)];
  return folder >= 0 && static_cast<std::size_t>(folder) < places_.dirs.size() ? folder : 0;
}

std::string MdSet::root_of(int f) const {
  return places_.dirs[static_cast<std::size_t>(f)] + "/iosweep." + run_id_ + ".md";
}

std::string MdSet::set_path_of(int f) const {
  return root_of(f) + "/p" + std::to_string(point_) + "r" + std::to_string(rep_);
}

bool MdSet::agreed(MPI_Comm comm, const std::function<void()>& step) {
  std::exception_ptr failed;
  try {
    // "mkdir in SET (operation 12 of this rank's)": the calls below say which.
    const Pulse::Describer d(pulse_, [this](const char* verb, std::uint64_t op) {
      std::string s = std::string(verb) + " in " + set_path_of(my_folder_);
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

MdSet::Lock MdSet::locked_open() {
  Lock lock(mu_);
  if (closed_)
    throw RunFailure("stopping: the run is removing its metadata folders, nothing more is made");
  return lock;
}

MdTrees MdSet::own_trees() const {
  return {set_fd_, set_path_of(my_folder_), &plan_.layout, position_, &folder_ids_};
}

MdTrees MdSet::item_trees() const {
  MdTrees t = own_trees();
  if (plan_.layout.shared) t.ids = position_ == 0 ? &folder_ids_ : &shared_ids_;
  return t;
}

// The maker of this rank's folder: the run's folder there (once) and the set folder in it.
void MdSet::make_sets() {
  Lock lock = locked_open();
  if (!root_made_) {
    root_id_ = make_own_folder(root_of(my_folder_));
    root_made_ = true;
  }
  const fsops::FileIdentity id = make_own_folder(set_path_of(my_folder_));
  set_made_ = true;
  set_ids_[static_cast<std::size_t>(my_folder_)] = {id.dev, id.ino};
}

// Every rank opens the set folder of its folder (a folder, no link followed) and, where it
// sees the same file system instance as the set's maker (the same device number: the same
// kernel's mount; another node's mount of a network file system numbers its devices its own
// way), checks that it is that very folder.
bool MdSet::open_set(MPI_Comm comm) {
  std::vector<std::uint64_t> ids(2 * set_ids_.size(), 0);
  for (std::size_t f = 0; f < set_ids_.size(); ++f) {
    ids[2 * f] = set_ids_[f].dev;
    ids[2 * f + 1] = set_ids_[f].ino;
  }
  MPI_Allreduce(MPI_IN_PLACE, ids.data(), static_cast<int>(ids.size()), MPI_UINT64_T, MPI_MAX,
                comm);
  for (std::size_t f = 0; f < set_ids_.size(); ++f)
    set_ids_[f] = {ids[2 * f], ids[2 * f + 1]};
  return agreed(comm, [&] {
    const std::string path = set_path_of(my_folder_);
    const int fd = fsops::open_folder(path);
    const fsops::ItemIdentity now = fsops::identity_of_fd(fd);
    const MdId want = set_ids_[static_cast<std::size_t>(my_folder_)];
    if (now.dev == want.dev && now.ino != want.ino) {
      ::close(fd);
      throw IoError::on_item("open", path, EEXIST,
                             "not the folder position " +
                                 std::to_string(maker_of_[static_cast<std::size_t>(my_folder_)]) +
                                 " made for this point");
    }
    Lock lock = locked_open();
    set_fd_ = fd;
  });
}

bool MdSet::begin(MPI_Comm comm, std::size_t point, int rep, const MdPoint& plan, bool real) {
  if (open_ && point_ == point && rep_ == rep) return true;
  {
    Lock lock = locked_open();
    if (set_fd_ >= 0) ::close(set_fd_);
    set_fd_ = -1;
    open_ = set_made_ = false;
    point_ = point;
    rep_ = rep;
    plan_ = plan;
    real_ = real;
    folders_ = created_ = removed_ = 0;
    items_made_ = false;
    created_by_.assign(static_cast<std::size_t>(plan.ranks), 0);
    folder_ids_.assign(plan.layout.folder_ops(position_), MdId{});
    item_ids_.assign(plan.items_of(position_), MdId{});
    shared_ids_.clear();
    set_ids_.assign(places_.dirs.size(), MdId{});
    pass_ = {};
  }
  if (!agreed(comm, [&] {
        if (maker()) make_sets();
      }))
    return false;
  open_ = true;  // from here on end() removes it
  return open_set(comm);
}

// The shared layout: position 0's folders, as it made them, to every rank (whose items are in
// them).
void MdSet::share_tree_ids(MPI_Comm comm) {
  if (!plan_.layout.shared) return;
  MdIds ids = folder_ids_;
  ids.resize(plan_.layout.folder_ops(0));
  bcast_ids(ids, 0, comm);
  Lock lock(mu_);
  if (position_ != 0) shared_ids_ = std::move(ids);
}

void MdSet::share_counts(MPI_Comm comm) {
  MPI_Allgather(&created_, 1, MPI_UINT64_T, created_by_.data(), 1, MPI_UINT64_T, comm);
}

bool MdSet::ensure_tree(MPI_Comm comm) {
  const std::uint64_t total = plan_.layout.folder_ops(position_);
  if (!agreed(comm, [&] {
        if (folders_ >= total) return;
        make_folders(folders_, total);
        folders_ = total;
      }))
    return false;
  share_tree_ids(comm);
  return true;
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
    std::vector<std::string> left;
    remove_items(nullptr, left);
    if (!left.empty()) throw RunFailure(left_text(left));
    removed_ = created_;
  });
}

bool MdSet::hold(MPI_Comm comm, Hold what, int source, int reader, MdHold& out) {
  out.release();
  const MdLayout& l = plan_.layout;
  const bool other = what == Hold::items && !l.shared && source != position_;
  MdIds theirs;
  if (other) {  // every rank sends its folders' identities to the rank that reads its items
    theirs.resize(l.folder_ops(source));
    swap_ids(folder_ids_, reader, theirs, source, comm);
  }
  const MdTree& t = l.tree;
  const std::uint64_t first = what == Hold::items ? t.first_holder() : 0;
  const std::uint64_t count = what == Hold::items ? t.holders() : t.folders() - t.leaves();
  const bool trees = real_ && what != Hold::set && (what == Hold::items || folders_ > 0);
  // Everyone resolves by openat2 when one rank may not hold a descriptor per folder.
  int need = trees && count * l.trees() + 1 + kMdReservedDescriptors > fsops::descriptors_left();
  MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_INT, MPI_MAX, comm);
  return agreed(comm, [&] {
    MdTrees where = what == Hold::items ? item_trees() : own_trees();
    int opened = -1;
    if (other) {
      where.position = source;
      where.ids = &theirs;
      const int f = folder_of(source);
      if (f != my_folder_) {  // another folder's set: opened and checked as open_set does
        where.set_path = set_path_of(f);
        where.set_fd = opened = fsops::open_folder(where.set_path);
        const fsops::ItemIdentity now = fsops::identity_of_fd(opened);
        const MdId want = set_ids_[static_cast<std::size_t>(f)];
        if (now.dev == want.dev && now.ino != want.ino) {
          ::close(opened);
          throw IoError::on_item("open", where.set_path, EEXIST, "not the set this run made");
        }
      }
    }
    try {
      if (trees)
        out.open(where, first, count, need != 0 ? 0 : ~std::uint64_t{0});
      else
        out.open_set(where);
    } catch (...) {
      if (opened >= 0) ::close(opened);
      throw;
    }
    if (opened >= 0) ::close(opened);
  });
}

bool MdSet::begin_pass(IoOp op, std::uint64_t first) {
  Lock lock(mu_);
  if (closed_) return false;
  pass_ = {.active = true, .pending = false, .op = op, .first = first, .reached = {}};
  return true;
}

void MdSet::end_pass(const MdResult& reached) {
  {
    Lock lock(mu_);
    pass_.active = false;
    pass_.pending = true;
    pass_.reached = reached;
    if (pass_.op == IoOp::mkdir) {
      folders_ = reached.next;
    } else {
      created_ = reached.next;
      items_made_ = true;
    }
  }
  cv_.notify_all();
}

bool MdSet::record_pass(MPI_Comm comm) {
  bool folders = false;
  if (!agreed(comm, [&] {
        std::vector<std::string> problems;
        Pass p;
        {
          Lock lock(mu_);
          p = pass_;
        }
        folders = p.op == IoOp::mkdir;
        if (!p.pending) return;
        if (folders)
          record_folders(nullptr, p, problems);
        else
          record_items(nullptr, p, problems);
        if (!problems.empty()) throw RunFailure(left_text(problems));
        // Closed meanwhile (a signal): remove_all records what is left of the pass itself.
        Lock lock(mu_);
        if (!closed_) pass_.pending = false;
      }))
    return false;
  if (folders) share_tree_ids(comm);
  return true;
}

std::uint64_t MdSet::created_of(int position) const {
  return created_by_.at(static_cast<std::size_t>(position));
}

bool MdSet::end(MPI_Comm comm) {
  if (!open_) return true;
  std::vector<std::string> left;
  auto step = [&](const std::function<void()>& body) {
    return agreed(comm, [&] {
      body();
      if (!left.empty()) throw RunFailure(left_text(left));
    });
  };
  if (!step([&] {
        remove_items(nullptr, left);
        removed_ = created_;
      }))
    return false;
  if (!step([&] {
        remove_folders(nullptr, left);
        folders_ = 0;
      }))
    return false;
  if (!step([&] { remove_set(nullptr, false, left); })) return false;
  open_ = false;
  return true;
}

}  // namespace iosweep
