// The files of one run, as seen from one rank. File names carry the run id and the position
// (<folder>/iosweep.<run-id>.<position>, in the folder of the rank at that position: see
// model/topology.hpp), so a run never takes another run's or another program's file for its
// own. With --file-layout shared there is one file, <dir>/iosweep.<run-id>.shared (one folder),
// made and removed by position 0 (its creator); every rank's "own file" is its region of it. The
// rank records the identity (device, inode) of every file it creates and removes only files whose
// identity still matches; the same records let the signal watcher remove them when the run is
// interrupted. It also keeps the device of every folder as the run found it: a folder whose
// file system was unmounted (its files would land on whatever is under the mount point) or
// replaced is refused before a phase uses it.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "os/file_ops.hpp"

namespace iosweep {

class FileSet {
 public:
  // `source_run` is the run whose files are read (the run itself, or --reuse RUN);
  // `folder_of_position` the index into `dirs` of every position's folder.
  FileSet(std::vector<std::string> dirs, std::vector<int> folder_of_position, std::string run_id,
          std::string source_run, int position, bool shared = false);

  std::string path(int position) const;
  // Throws when the folder of the file at `position` is gone or on another device than at the
  // start of the run (unmounted, replaced): the run stops rather than measure another device.
  void check_folder(int position) const;
  // The folder of the file at `position`.
  const std::string& dir_of(int position) const;
  int own_position() const { return position_; }
  bool reusing() const { return source_run_ != run_id_; }
  bool shared() const { return shared_; }
  // The rank that makes, owns and removes the file: every rank its own; position 0 the shared.
  bool creator() const { return !shared_ || position_ == 0; }

  // The rank's own file: created by this run (identity recorded) and how much of it holds
  // valid data (a stonewalled sequential write leaves a prefix).
  // Before an exclusive create inside a timed window: if the run stops before note_created,
  // remove_own still removes the file (its name carries this run's id, and the create was
  // exclusive, so a file found there is this rank's own).
  void note_pending_create();
  void note_created(const fsops::FileIdentity& id);
  // The own file (region) holds this run's data for a point of `k` active ranks (a shared
  // file's layout depends on k: it is remade when k changes).
  bool own_exists(int k) const;
  void note_written_for(int k) { written_for_ = k; }
  std::uint64_t valid_bytes() const { return valid_bytes_; }
  void set_valid_bytes(std::uint64_t b) { valid_bytes_ = b; }
  // Removes the own file if (and only if) this run created it. Safe from another thread.
  // Returns 0, or the errno of a removal that failed (the file is still there).
  int remove_own();

 private:
  std::vector<std::string> dirs_;
  std::vector<int> folder_of_position_;
  std::vector<dev_t> devices_;  // index = folder: its file system's device at the start
  std::string run_id_, source_run_;
  int position_;
  bool shared_;
  int written_for_ = 0;
  mutable std::mutex mu_;
  fsops::FileIdentity created_;
  bool pending_ = false;
  std::uint64_t valid_bytes_ = 0;
};

}  // namespace iosweep
