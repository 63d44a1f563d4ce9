// The metadata phases' folders and items of one run, as seen from one rank.
//
// Where: a rank's trees sit in the folder of --dir its position takes for its data file (the
// folders round-robin per node, then per drive: model/topology.hpp; mdtest -d a@b@c), the
// shared layout's one tree in the first folder. In each folder used, the lowest position using
// it makes the run's own folder, <dir>/iosweep.<run-id>.md (exclusively: an existing name is
// refused), and for each point and repetition a fresh set folder in it, p<point>r<rep>, shared
// by the point's ranks of that folder; the trees and items of the point live in the sets (names:
// core/md_shape.hpp) and are removed when the repetition's phases are done (end()), so every
// point and repetition starts from nothing. Across nodes the folders must be shared (the
// lookups touch another node's items).
//
// What exists is counted, never searched for: the folders of this rank's trees made so far (a
// prefix of its make order), its items created and removed (prefixes of its round-robin
// order), and every position's created count, shared after each change. A phase that needs what
// no earlier phase of the repetition made gets it untimed before its window (ensure_*), and a
// phase stopped by --stonewall leaves exactly the counts its window reached, which the phases
// after it touch.
//
// What the run made is recorded, untimed: the device and inode of every folder and item, taken
// right after the untimed call that made it, or right after the window that made it (walking by
// the names the window made, no link followed). Removal walks by those names from the set
// folder and removes only what still has its recorded identity; anything else (a file placed
// at an item's name, a file dropped into a tree or the run's folder, a folder swapped for a
// symbolic link) is left where it is and named: end() and finish() fail the run with what was
// left, remove_all() returns it. Folders are reached through phases/md_tree.hpp: never a
// symbolic link followed, never a folder the run did not make. With an engine that makes
// nothing (null) the counts advance and no tree or item is made or removed on disk.
//
// Collective steps run on every rank of the point and end in an agreement: each returns false
// on a rank whose step went well when another rank's failed (that rank throws; the point's gate
// then reports its reason), so no rank waits for one that stopped.
//
// Signals: remove_all() may run on the signal watcher's thread while the main thread is
// anywhere. It closes the set under its mutex; every path that creates (a set folder, an
// untimed item or folder, a window that creates) checks that first, so nothing is created
// after it. A window that creates is a pass (begin_pass .. end_pass): remove_all waits for it to
// end (the driver stops on the stop flag; at most kMdPassWaitS), then records and removes what
// it made.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/pulse.hpp"
#include "model/md_plan.hpp"
#include "os/file_ops.hpp"
#include "phases/md_tree.hpp"

namespace iosweep {

// How long remove_all() waits, on a signal, for a window that creates to stop, and for the
// point's other ranks to empty a set folder this rank made; each bound once.
inline constexpr double kMdPassWaitS = 5.0;
inline constexpr double kMdOthersWaitS = 5.0;

// The folders of --dir and the folder of every position (index = position).
struct MdPlaces {
  std::vector<std::string> dirs;
  std::vector<int> folder_of_position;
};

// "left what this run did not make or could not remove: A (why); B (why) and 3 more", or empty.
std::string left_text(const std::vector<std::string>& left);

class MdSet {
 public:
  MdSet(MdPlaces places, std::string run_id, int position, const MdSpec& spec, std::uint64_t seed);
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
  int position() const { return position_; }
  // The index into --dir of the folder holding `position`'s trees (0 in the shared layout).
  int folder_of(int position) const;
  // The run's own metadata folder in folder `f` of --dir.
  std::string root_of(int f) const;

  // Collective: this rank's trees (the shared tree: position 0's) complete; its items made
  // (when no phase made them yet) and every position's count known; its items gone.
  bool ensure_tree(MPI_Comm comm);
  bool ensure_items(MPI_Comm comm);
  bool ensure_no_items(MPI_Comm comm);

  // Collective, before a window: the folders its requests are relative to, opened and checked
  // (phases/md_tree.hpp) and held in `out`: the set folder alone (md-mkdir), the folders that
  // hold the items of `source` (md-create .. md-remove), or this rank's folders that have
  // children (md-rmdir). `reader`: the position whose source this rank is. Every rank resolves
  // each request by openat2 instead when one of them may not hold that many descriptors (then
  // `beneath` is true everywhere).
  enum class Hold : std::uint8_t { set, items, parents };
  bool hold(MPI_Comm comm, Hold what, int source, int reader, MdHold& out);

  // A window (or the wear-out) that creates: false, and nothing may start, once the set is
  // closed; end_pass with what it reached, also when it failed.
  bool begin_pass(IoOp op, std::uint64_t first);
  void end_pass(const MdResult& reached);
  // Untimed, collective, after a pass: the identity of everything it made, walking by name.
  bool record_pass(MPI_Comm comm);
  // What a timed window removed: items (a prefix of the round-robin order), folders (a prefix
  // of the removal order).
  void note_removed(const MdResult& reached);
  void note_unmade(const MdResult& reached);
  std::uint64_t created_of(int position) const;
  std::uint64_t own_created() const { return created_; }

  // The bytes every item gets (--md-write-bytes of the data pattern's seed).
  std::byte* content() { return content_.data(); }

  // Collective, after a repetition's last metadata phase: the set's items, trees and folder
  // removed; what the run did not make is left and the step fails naming it.
  bool end(MPI_Comm comm);
  // The run's own folders removed (each by the rank that made it), at the end of the run;
  // empty, or what was left and where.
  std::string finish();
  // From any thread, after a failure or on a signal: what this rank made and recorded,
  // removed; the rest left. Empty, or what was left and where. Idempotent.
  std::string remove_all();

 private:
  struct Pass {
    bool active = false, pending = false;
    IoOp op = IoOp::create;
    std::uint64_t first = 0;
    MdResult reached;
  };
  using Lock = std::unique_lock<std::timed_mutex>;

  bool agreed(MPI_Comm comm, const std::function<void()>& step);
  bool going() const { return stop_ == nullptr || !stop_->load(std::memory_order_relaxed); }
  Lock locked_open();  // the lock, or a throw when the set is closed
  bool maker() const { return maker_of_[static_cast<std::size_t>(my_folder_)] == position_; }
  MdTrees own_trees() const;
  MdTrees item_trees() const;  // the trees this rank's items are in
  void make_sets();
  bool open_set(MPI_Comm comm);
  void share_tree_ids(MPI_Comm comm);
  void make_folders(std::uint64_t from, std::uint64_t to);
  void make_items(std::uint64_t from, std::uint64_t to);
  // Untimed work on this rank's trees and items. `held`: the caller (remove_all) holds the
  // lock throughout; else each call takes it and stops once the set is closed. What cannot be
  // made, recorded or removed as the run made it goes into `left`, named.
  void record_folders(Lock* held, const Pass& p, std::vector<std::string>& left);
  void record_items(Lock* held, const Pass& p, std::vector<std::string>& left);
  void remove_items(Lock* held, std::vector<std::string>& left);
  void remove_folders(Lock* held, std::vector<std::string>& left);
  void remove_set(Lock* held, bool wait, std::vector<std::string>& left);
  bool others_in_set() const;
  void share_counts(MPI_Comm comm);
  std::string set_path_of(int f) const;
  void beat(const char* verb, std::uint64_t op) const {
    if (pulse_ != nullptr) pulse_->busy(verb, op, now_ns());
  }

  MdPlaces places_;
  std::string run_id_;
  int position_;
  int my_folder_ = 0;
  std::vector<int> maker_of_;  // index = folder: the lowest position using it
  MdSpec spec_;
  std::vector<std::byte> content_;
  const std::atomic<bool>* stop_ = nullptr;
  Pulse* pulse_ = nullptr;

  mutable std::timed_mutex mu_;
  std::condition_variable_any cv_;
  bool closed_ = false;  // remove_all ran: nothing is created any more
  Pass pass_;
  fsops::FileIdentity root_id_;  // the maker, once it made the run's folder in its folder
  bool root_made_ = false;

  // The current set.
  bool open_ = false;
  std::size_t point_ = 0;
  int rep_ = 0;
  MdPoint plan_;
  bool real_ = true;
  int set_fd_ = -1;  // this rank's set folder
  bool set_made_ = false;
  std::vector<MdId> set_ids_;                // index = folder of --dir: its set, as made
  MdIds folder_ids_, item_ids_;              // this rank's folders and items, as made
  MdIds shared_ids_;                         // the shared layout: position 0's folders
  std::uint64_t folders_ = 0;                // this rank's folder ops made (a prefix)
  std::uint64_t created_ = 0, removed_ = 0;  // this rank's items
  bool items_made_ = false;                  // created by a phase or untimed
  std::vector<std::uint64_t> created_by_;    // every position's created count
};

}  // namespace iosweep
