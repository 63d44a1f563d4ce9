// Waiting in the kernel. On a machine with more ranks than cores, a rank that waits by polling
// (MPI's own progress loop, or tests with short sleeps) takes CPU from ranks in a timed window:
// measured, 63 idle ranks of a 64-rank job cut a lone rank's 4 KiB O_DIRECT reads to 0.6x. So
// ranks that wait for a long time sleep on a futex in a page shared by the ranks of one machine
// (an MPI-3 shared window), and only one rank per machine follows the other machines through
// MPI, waiting gently. A sleeping rank still enters MPI now and then (at once, then at looks
// that grow from 50 us to a second): what its last collective left in its transport's send
// queue leaves only when it does, and a peer may be waiting for it (waiting.cpp).
//
//   Room  the ranks outside a point (idle) wait in it for the point's end; the machine's keeper
//         (its lowest active rank, or its lowest rank when none is active) opens it with the
//         verdict the point ended with.
//         Its page also holds, per rank of the machine, the signal that stopped the rank and
//         who sent it (plain stores by the rank's signal watcher, no MPI call), so rank 0 can
//         tell a rank of its machine that ended through iosweep's cleanup from one that was
//         lost, and a rank stopped by the signal that stops rank 0 from one stopped before.
//   Gate  an agreement (a max over ints) among the active ranks of a point: the ranks of one
//         machine meet in the shared page, the last to arrive wakes the machine's leader, the
//         leaders agree over MPI, and the leader wakes the others with the result.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace iosweep {

// Memory shared by the ranks of `comm` that run on one machine: `words` words, zeroed.
class SharedPage {
 public:
  explicit SharedPage(MPI_Comm machine, int words = 1024);  // collective over `machine`
  ~SharedPage();
  SharedPage(const SharedPage&) = delete;
  SharedPage& operator=(const SharedPage&) = delete;
  std::atomic<std::uint32_t>& word(int i) { return words_[i]; }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
  std::atomic<std::uint32_t>* words_ = nullptr;
};

// A signal a rank noted: its number (0: none) and its sender's pid (si_pid).
struct NotedSignal {
  int number = 0;
  std::int64_t sender_pid = 0;
};

class Room {
 public:
  explicit Room(MPI_Comm world);  // collective over `world`, once per run
  ~Room();
  Room(const Room&) = delete;
  Room& operator=(const Room&) = delete;

  MPI_Comm machine() const { return machine_; }
  // Collective over `world` at the start of a point: whether this rank keeps the room of its
  // machine for this point (opens it at the end, following the point's verdict through MPI).
  bool keeper_for(bool active);
  // An idle rank: sleeps until the keeper opens the room; returns the verdict.
  int wait();
  // The keeper: publishes the verdict and wakes the room.
  void open(int verdict);
  // From the signal watcher of this rank: the signal that stops it and its sender (plain
  // stores, the sender first: a reader that sees the number sees the sender).
  void note_signal(NotedSignal s);
  // The signal a rank of this machine noted before it ended; number 0 when none was noted or
  // the rank runs on another machine.
  NotedSignal signal_of(int world_rank) const;

 private:
  MPI_Comm machine_ = MPI_COMM_NULL;
  SharedPage* page_ = nullptr;
  int machine_rank_ = 0;
  std::vector<int> world_of_;  // world rank of every rank of the machine, by machine rank
  std::uint32_t seen_ = 0;     // generation this rank last saw
};

class Gate {
 public:
  explicit Gate(MPI_Comm active);  // collective over `active`, once per point
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  // Collective over the active ranks: the maximum of every rank's `value`.
  int max(int value);

 private:
  MPI_Comm local_ = MPI_COMM_NULL;    // the active ranks of this machine
  MPI_Comm leaders_ = MPI_COMM_NULL;  // local rank 0 of every machine
  SharedPage* page_ = nullptr;
  int local_size_ = 1, local_rank_ = 0;
};

}  // namespace iosweep
