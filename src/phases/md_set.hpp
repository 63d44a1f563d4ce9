// The metadata phases' folders and items of one run, as seen from one rank. Everything sits
// under the run's own folder, <dir>/iosweep.<run-id>.md, which position 0 makes (exclusively,
// its device and inode recorded) at the first metadata phase and removes at the end. Each point
// and repetition gets a fresh set folder in it, p<point>r<rep>, made by position 0 and shared by
// the point's ranks; the trees and items of that point live in the set (names: core/md_shape.hpp)
// and are removed when the repetition's phases are done (end()), so every point and repetition
// starts from nothing.
//
// What exists is counted, never searched for: the folders of this rank's trees made so far (a
// prefix of its make order), its items created and removed (prefixes of its round-robin
// order), and every position's created count, shared after each change. A phase that needs what
// no earlier phase of the repetition made gets it untimed before its window (ensure_*), and a
// phase stopped by --stonewall leaves exactly the counts its window reached, which the phases
// after it touch. Untimed work is done with the system calls (os/item_ops.hpp), never following
// a symbolic link and never taking an existing name; with an engine that makes nothing (null)
// the counts advance and nothing is made or removed on disk.
//
// Collective steps run on every rank of the point and end in an agreement: each returns false
// on a rank whose step went well when another rank's failed (that rank throws; the point's gate
// then reports its reason), so no rank waits for one that stopped.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/pulse.hpp"
#include "model/md_plan.hpp"
#include "os/file_ops.hpp"

namespace iosweep {

class MdSet {
 public:
  MdSet(std::string dir, const std::string& run_id, int position, const MdSpec& spec,
        std::uint64_t seed);
  ~MdSet();
  MdSet(const MdSet&) = delete;
  MdSet& operator=(const MdSet&) = delete;

  // Collective: the set of (point, repetition) with this plan, made when it is new; `real`: the
  // phases' engine makes what it is asked to (false for null).
  bool begin(MPI_Comm comm, std::size_t point, int rep, const MdPoint& plan, bool real);
  const MdPoint& plan() const { return plan_; }
  // Untimed work stops early once this is set (a signal: the run ends and removes everything).
  void stop_on(const std::atomic<bool>* stop) { stop_ = stop; }
  // The rank's pulse (core/pulse.hpp): every untimed call on an item or folder says so, from the
  // main thread (remove_all, which any thread may call, says nothing).
  void watch_with(Pulse* pulse) { pulse_ = pulse; }
  const std::string& path() const { return set_path_; }
  int position() const { return position_; }

  // Collective: this rank's trees (the shared tree: position 0's) complete; its items made
  // (when no phase made them yet) and every position's count known; its items gone.
  bool ensure_tree(MPI_Comm comm);
  bool ensure_items(MPI_Comm comm);
  bool ensure_no_items(MPI_Comm comm);

  // What a timed window reached: folders made (a prefix of the make order), folders removed (a
  // prefix of the removal order), items created, items removed.
  void note_made(std::uint64_t ops);
  void note_unmade(std::uint64_t ops);
  void note_created(std::uint64_t items);
  void note_removed(std::uint64_t items);
  std::uint64_t created_of(int position) const;
  std::uint64_t own_created() const { return created_; }

  // The bytes every item gets (--md-write-bytes of the data pattern's seed).
  std::byte* content() { return content_.data(); }

  // Collective, after a repetition's last metadata phase: the set's items, trees and folder
  // removed. False as the steps above.
  bool end(MPI_Comm comm);
  // Position 0, at the end of the run: the run's folder removed (empty by then).
  void finish();
  // Best effort, from any thread, after a failure or on a signal: position 0 removes everything
  // under the run's folder (only regular files and folders, none followed), then the folder.
  void remove_all();

 private:
  bool agreed(MPI_Comm comm, const std::function<void()>& step);
  bool going() const { return stop_ == nullptr || !stop_->load(std::memory_order_relaxed); }
  void make_set_folder();
  bool open_set(MPI_Comm comm);
  void make_folders(std::uint64_t from, std::uint64_t to);
  void remove_folders(std::uint64_t present);
  void make_items(std::uint64_t from, std::uint64_t to);
  void remove_items(std::uint64_t from, std::uint64_t to);
  void share_counts(MPI_Comm comm);
  void beat(const char* verb, std::uint64_t op) const {
    if (pulse_ != nullptr) pulse_->busy(verb, op, now_ns());
  }
  std::string full(const std::string& name) const { return set_path_ + "/" + name; }

  std::string dir_, root_;
  int position_;
  std::vector<std::byte> content_;
  const std::atomic<bool>* stop_ = nullptr;
  Pulse* pulse_ = nullptr;
  mutable std::mutex mu_;
  fsops::FileIdentity root_id_;  // position 0, once it made the run's folder
  bool root_made_ = false;

  // The current set.
  bool open_ = false;
  std::size_t point_ = 0;
  int rep_ = 0;
  MdPoint plan_;
  bool real_ = true;
  std::string set_path_;
  int set_fd_ = -1;
  std::uint64_t folders_ = 0;                // this rank's folder ops made (a prefix)
  std::uint64_t created_ = 0, removed_ = 0;  // this rank's items
  bool items_made_ = false;                  // created by a phase or untimed
  std::vector<std::uint64_t> created_by_;    // every position's created count
};

}  // namespace iosweep
