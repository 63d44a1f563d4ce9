// Run-owned files (see file_set.hpp).
#include "phases/file_set.hpp"

namespace iosweep {

FileSet::FileSet(std::string dir, std::string run_id, std::string source_run, int position,
                 bool shared)
    : dir_(std::move(dir)),
      run_id_(std::move(run_id)),
      source_run_(std::move(source_run)),
      position_(position),
      shared_(shared) {}

std::string FileSet::path(int position) const {
  return dir_ + "/iosweep." + source_run_ + "." + (shared_ ? "shared" : std::to_string(position));
}

void FileSet::note_pending_create() {
  std::lock_guard lock(mu_);
  pending_ = true;
}

void FileSet::note_created(const fsops::FileIdentity& id) {
  std::lock_guard lock(mu_);
  created_ = id;
  pending_ = false;
}

bool FileSet::own_exists(int k) const {
  std::lock_guard lock(mu_);
  if (reusing()) return fsops::exists(path(position_));
  if (shared_) return written_for_ == k && fsops::exists(path(position_));
  return created_.valid && fsops::identity_of(path(position_)) == created_;
}

void FileSet::remove_own() {
  std::lock_guard lock(mu_);
  written_for_ = 0;
  if (!creator()) {  // a shared file is its creator's to remove
    valid_bytes_ = 0;
    return;
  }
  if (created_.valid) {
    fsops::remove_if_same(path(position_), created_);
  } else if (pending_ && !reusing()) {
    fsops::remove_if_same(path(position_), fsops::identity_of(path(position_)));
  }
  created_ = {};
  pending_ = false;
  valid_bytes_ = 0;
}

}  // namespace iosweep
