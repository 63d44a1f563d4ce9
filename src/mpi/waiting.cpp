// Waiting in the kernel (see waiting.hpp).
#include "mpi/waiting.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include "mpi/gentle.hpp"

namespace iosweep {
namespace {

// Futexes on shared memory (not FUTEX_PRIVATE_FLAG): the ranks of a machine are processes.
// Waits time out and look again, so nothing depends on a lost wake-up.
void futex_wait(std::atomic<std::uint32_t>& w, std::uint32_t expected, long timeout_ns) {
  const timespec t{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAIT, expected, &t, nullptr, 0);
}

// A rank that sleeps must still let MPI move its messages. A collective can return on a rank
// while part of what it sent is still queued in the rank's own transport: Open MPI's TCP
// transport writes a fragment the socket did not take at once only when the process next
// enters MPI. A peer still inside that collective waits for it, and a rank asleep here never
// sends it: after a 4-rank seq-write on two nodes, one node's ranks waited in MPI_Reduce (the
// time series' histograms, gather_series) while the other node's non-leader slept in the next
// Gate::max (reproduced on emulated nodes whose network is rate-limited: tests/cluster). So every
// wait here makes MPI progress (an MPI_Iprobe, which matches nothing that anyone sends on these
// communicators) at once and then at every look, the looks 50 us apart at first and twice as
// far apart each time, up to a second: about 15 in the first second, then one a second, so a
// queued fragment leaves within microseconds and a sleeping rank costs the cores nothing.
constexpr long kFirstLookNs = 50'000, kLastLookNs = 1'000'000'000;

void progress(MPI_Comm comm) {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
}

// Sleeps while `w` holds a value for which `waiting(value)` is true, making MPI progress on
// `comm` at every look; returns the value that ended the wait.
template <class Waiting>
std::uint32_t wait_progressing(std::atomic<std::uint32_t>& w, MPI_Comm comm, Waiting waiting) {
  long look_ns = kFirstLookNs;
  for (std::uint32_t now = w.load();; now = w.load()) {
    if (!waiting(now)) return now;
    progress(comm);
    if (!waiting(w.load())) continue;
    futex_wait(w, now, look_ns);
    look_ns = std::min(look_ns * 2, kLastLookNs);
  }
}

void futex_wake_all(std::atomic<std::uint32_t>& w) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
            0);
}

constexpr std::uint32_t bits(int v) {
  return std::bit_cast<std::uint32_t>(v);
}
constexpr int value_of(std::uint32_t b) {
  return std::bit_cast<int>(b);
}

// Room words, then per rank of the machine a signal slot, then per rank its sender's pid (pids
// fit in 32 bits: pid_max is at most 2^22).
constexpr int kRoomGeneration = 0, kRoomVerdict = 1, kRoomSignals = 64, kRoomSlots = 4096,
              kRoomSenders = kRoomSignals + kRoomSlots, kRoomWords = kRoomSenders + kRoomSlots;
// Gate words
constexpr int kGateGeneration = 0, kGateArrivals = 1, kGateValue = 2, kGateResult = 3;

}  // namespace

static_assert(sizeof(std::atomic<std::uint32_t>) == 4 &&
              std::atomic<std::uint32_t>::is_always_lock_free);

SharedPage::SharedPage(MPI_Comm machine, int words) {
  int rank = 0;
  MPI_Comm_rank(machine, &rank);
  void* base = nullptr;
  const auto bytes = static_cast<MPI_Aint>(words) * 4;
  MPI_Win_allocate_shared(rank == 0 ? bytes : 0, 1, MPI_INFO_NULL, machine, &base, &win_);
  MPI_Aint size = 0;
  int disp = 1;
  MPI_Win_shared_query(win_, 0, &size, &disp, &base);
  words_ = static_cast<std::atomic<std::uint32_t>*>(base);
  if (rank == 0) std::memset(base, 0, static_cast<std::size_t>(bytes));
  MPI_Barrier(machine);
}

SharedPage::~SharedPage() {
  if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
}

Room::Room(MPI_Comm world) {
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine_);
  page_ = new SharedPage(machine_, kRoomWords);
  MPI_Comm_rank(machine_, &machine_rank_);
  int n = 0;
  MPI_Comm_size(machine_, &n);
  std::vector<int> mine(static_cast<std::size_t>(n));
  world_of_.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    mine[static_cast<std::size_t>(i)] = i;
  MPI_Group machine_group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  MPI_Comm_group(machine_, &machine_group);
  MPI_Comm_group(world, &world_group);
  MPI_Group_translate_ranks(machine_group, n, mine.data(), world_group, world_of_.data());
  MPI_Group_free(&machine_group);
  MPI_Group_free(&world_group);
}

void Room::note_signal(NotedSignal s) {
  if (machine_rank_ >= kRoomSlots) return;
  page_->word(kRoomSenders + machine_rank_).store(static_cast<std::uint32_t>(s.sender_pid));
  page_->word(kRoomSignals + machine_rank_).store(bits(s.number));
}

NotedSignal Room::signal_of(int world_rank) const {
  for (std::size_t i = 0; i < world_of_.size() && i < static_cast<std::size_t>(kRoomSlots); ++i)
    if (world_of_[i] == world_rank) {
      const int slot = static_cast<int>(i);
      const int number = value_of(page_->word(kRoomSignals + slot).load());
      return {number, page_->word(kRoomSenders + slot).load()};
    }
  return {};
}

Room::~Room() {
  delete page_;
  if (machine_ != MPI_COMM_NULL) MPI_Comm_free(&machine_);
}

bool Room::keeper_for(bool active) {
  int world_rank = 0, machine_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_rank(machine_, &machine_rank);
  const int mine = active ? world_rank : INT_MAX;
  int lowest_active = INT_MAX;
  MPI_Allreduce(&mine, &lowest_active, 1, MPI_INT, MPI_MIN, machine_);
  // Every rank has passed the opening of the previous point's room by now.
  seen_ = page_->word(kRoomGeneration).load();
  return lowest_active == INT_MAX ? machine_rank == 0 : lowest_active == world_rank;
}

int Room::wait() {
  auto& gen = page_->word(kRoomGeneration);
  seen_ = wait_progressing(gen, machine_, [this](std::uint32_t g) { return g == seen_; });
  return value_of(page_->word(kRoomVerdict).load());
}

void Room::open(int verdict) {
  page_->word(kRoomVerdict).store(bits(verdict));
  seen_ = page_->word(kRoomGeneration).fetch_add(1) + 1;
  futex_wake_all(page_->word(kRoomGeneration));
}

Gate::Gate(MPI_Comm active) {
  int rank = 0;
  MPI_Comm_rank(active, &rank);
  MPI_Comm_split_type(active, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local_);
  MPI_Comm_rank(local_, &local_rank_);
  MPI_Comm_size(local_, &local_size_);
  MPI_Comm_split(active, local_rank_ == 0 ? 0 : MPI_UNDEFINED, rank, &leaders_);
  page_ = new SharedPage(local_);
  if (local_rank_ == 0) page_->word(kGateValue).store(bits(INT_MIN));
  MPI_Barrier(local_);
}

Gate::~Gate() {
  delete page_;
  if (leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
  if (local_ != MPI_COMM_NULL) MPI_Comm_free(&local_);
}

int Gate::max(int value) {
  auto& gen = page_->word(kGateGeneration);
  auto& arrivals = page_->word(kGateArrivals);
  auto& acc = page_->word(kGateValue);
  const std::uint32_t g = gen.load();
  std::uint32_t cur = acc.load();
  while (value_of(cur) < value && !acc.compare_exchange_weak(cur, bits(value))) {
  }
  const std::uint32_t n = arrivals.fetch_add(1) + 1;
  if (local_rank_ != 0) {
    if (n == static_cast<std::uint32_t>(local_size_)) futex_wake_all(arrivals);
    wait_progressing(gen, local_, [g](std::uint32_t now) { return now == g; });
    return value_of(page_->word(kGateResult).load());
  }
  // The machine's leader: waits in the kernel for the others of its machine, then follows the
  // other machines through MPI.
  const auto all = static_cast<std::uint32_t>(local_size_);
  wait_progressing(arrivals, local_, [all](std::uint32_t now) { return now < all; });
  const int local = value_of(acc.exchange(bits(INT_MIN)));
  arrivals.store(0);
  int result = local;
  int leaders = 1;
  MPI_Comm_size(leaders_, &leaders);
  if (leaders > 1) gentle_allreduce_int(&local, &result, 1, MPI_MAX, leaders_);
  page_->word(kGateResult).store(bits(result));
  gen.fetch_add(1);
  futex_wake_all(gen);
  return result;
}

}  // namespace iosweep
