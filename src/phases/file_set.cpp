// Run-owned files (see file_set.hpp).
#include "phases/file_set.hpp"

#include <sys/sysmacros.h>

#include <stdexcept>

#include "core/errors.hpp"

namespace iosweep {

FileSet::FileSet(std::vector<std::string> dirs, std::vector<int> folder_of_position,
                 std::string run_id, std::string source_run, int position, bool shared)
    : dirs_(std::move(dirs)),
      folder_of_position_(std::move(folder_of_position)),
      run_id_(std::move(run_id)),
      source_run_(std::move(source_run)),
      position_(position),
      shared_(shared) {
  for (const auto& d : dirs_) {
    dev_t dev = 0;
    fsops::device_of(d, dev);
    devices_.push_back(dev);
  }
}

const std::string& FileSet::dir_of(int position) const {
  const auto p = static_cast<std::size_t>(position);
  if (shared_ || p >= folder_of_position_.size()) return dirs_.front();
  return dirs_[static_cast<std::size_t>(folder_of_position_[p])];
}

std::string FileSet::path(int position) const {
  return dir_of(position) + "/iosweep." + source_run_ + "." +
         (shared_ ? "shared" : std::to_string(position));
}

void FileSet::check_folder(int position) const {
  const std::string& dir = dir_of(position);
  const auto f = static_cast<std::size_t>(&dir - dirs_.data());
  dev_t now = 0;
  if (const int err = fsops::device_of(dir, now); err != 0)
    throw IoError("stat", dir, 0, err, "the folder is gone (unmounted, or its drive removed)");
  if (now == devices_[f]) return;
  auto text = [](dev_t d) { return std::to_string(major(d)) + ":" + std::to_string(minor(d)); };
  throw std::runtime_error("folder '" + printable(dir) +
                           "' is no longer on the file system it was on when the run started "
                           "(device " +
                           text(devices_[f]) + ", now " + text(now) +
                           "): unmounted or replaced; its files would land on another device");
}

namespace {

[[noreturn]] void refuse_after_cleanup(const std::string& path) {
  throw RunFailure("'" + printable(path) +
                   "' not created: the run is stopping and its files were already removed");
}

}  // namespace

fsops::FileIdentity FileSet::create_own(const std::function<fsops::FileIdentity()>& make) {
  std::lock_guard lock(mu_);
  if (closed_) refuse_after_cleanup(path(position_));
  created_ = make();
  pending_ = false;
  return created_;
}

void FileSet::note_pending_create() {
  std::lock_guard lock(mu_);
  if (closed_) refuse_after_cleanup(path(position_));
  pending_ = true;
}

void FileSet::note_created(const fsops::FileIdentity& id) {
  {
    std::lock_guard lock(mu_);
    created_ = id;
    pending_ = false;
  }
  create_ended_.notify_all();
}

void FileSet::note_create_failed() {
  {
    std::lock_guard lock(mu_);
    pending_ = false;
  }
  create_ended_.notify_all();
}

bool FileSet::own_exists(int k) const {
  std::lock_guard lock(mu_);
  if (reusing()) return fsops::exists(path(position_));
  if (shared_) return written_for_ == k && fsops::exists(path(position_));
  return created_.valid && fsops::identity_of(path(position_)) == created_;
}

int FileSet::remove_own() {
  std::lock_guard lock(mu_);
  return remove_locked();
}

FileSet::Cleanup FileSet::close_and_remove(bool keep, std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  closed_ = true;
  Cleanup c;
  const std::string own = path(position_);
  if (!creator() || (!created_.valid && !pending_)) return c;
  if (keep) {
    c.left = own;
    return c;
  }
  // A create announced inside a window: whatever is at the name now is this rank's (removed at
  // once, before a launcher's SIGKILL can come); the window's open may still be on its way, so
  // the end of the create is awaited (bounded) and a file it made then is removed too.
  const bool announced = pending_;
  c.err = remove_locked();
  if (announced && c.err == 0) {
    pending_ = true;
    c.waited_out = !create_ended_.wait_for(lock, wait, [this] { return !pending_; });
    if (created_.valid || c.waited_out) c.err = remove_locked();
  }
  (c.err == 0 && !c.waited_out ? c.removed : c.left) = own;
  return c;
}

int FileSet::remove_locked() {
  written_for_ = 0;
  if (!creator()) {  // a shared file is its creator's to remove
    valid_bytes_ = 0;
    return 0;
  }
  int err = 0;
  if (created_.valid) {
    fsops::remove_if_same(path(position_), created_, &err);
  } else if (pending_ && !reusing()) {
    fsops::remove_if_same(path(position_), fsops::identity_of(path(position_)), &err);
  }
  created_ = {};
  pending_ = false;
  valid_bytes_ = 0;
  return err;
}

}  // namespace iosweep
