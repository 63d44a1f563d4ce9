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

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
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
  //
  // Creation and the signal watcher's removal exclude each other: `make` (an exclusive create
  // outside any window) runs under the set's lock, and once the watcher has closed the set
  // (close_and_remove) no file is created any more (make is not called; a StoppedError says
  // why), so nothing the run creates can appear after its cleanup looked.
  fsops::FileIdentity create_own(const std::function<fsops::FileIdentity()>& make);
  // Around an exclusive create inside a timed window, where no lock may be taken: announced
  // before the window (refused once the set is closed), and ended after it with the file's
  // identity when the window opened (so created) it, or none when its open failed. The
  // watcher waits for the end of an announced create before it removes (bounded), and if the
  // run stops before the end, remove_own still removes the file when the open succeeded (its
  // name carries this run's id, and the create was exclusive, so a file there is this rank's).
  void note_pending_create();
  void note_created(const fsops::FileIdentity& id);
  void note_create_failed();
  // The own file (region) holds this run's data for a point of `k` active ranks (a shared
  // file's layout depends on k: it is remade when k changes).
  bool own_exists(int k) const;
  void note_written_for(int k) { written_for_ = k; }
  std::uint64_t valid_bytes() const { return valid_bytes_; }
  void set_valid_bytes(std::uint64_t b) { valid_bytes_ = b; }
  // Removes the own file if (and only if) this run created it. Safe from another thread.
  // Returns 0, or the errno of a removal that failed (the file is still there).
  int remove_own();

  // The signal watcher's cleanup: the set is closed for good (no file is created after it),
  // an announced in-window create is waited for at most `wait`, and the own file is removed
  // unless `keep`. What happened, for the one line the rank prints.
  struct Cleanup {
    std::string removed;  // the path removed, or empty
    std::string left;     // the path left (kept, or its removal failed), or empty
    int err = 0;          // the errno of a removal that failed
    bool waited_out = false;  // an in-window create did not end within `wait`
  };
  Cleanup close_and_remove(bool keep, std::chrono::milliseconds wait);

 private:
  std::vector<std::string> dirs_;
  std::vector<int> folder_of_position_;
  std::vector<dev_t> devices_;  // index = folder: its file system's device at the start
  std::string run_id_, source_run_;
  int position_;
  bool shared_;
  int written_for_ = 0;
  int remove_locked();

  mutable std::mutex mu_;
  std::condition_variable create_ended_;
  fsops::FileIdentity created_;
  bool pending_ = false;
  bool closed_ = false;  // the watcher's cleanup ran: no file is created any more
  std::uint64_t valid_bytes_ = 0;
};

}  // namespace iosweep
