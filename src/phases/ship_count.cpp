// Ship-count phase (see ship_count.hpp).
#include "phases/ship_count.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/clock.hpp"
#include "os/file_ops.hpp"
#include "phases/filter_count.hpp"
#include "phases/io_phase.hpp"

namespace iosweep {
namespace {

constexpr int kInboxSlots = 4;  // receives posted at a time, one record each
constexpr int kDoneTag = 0x7ffffffe;

}  // namespace

// What a collector does: receives posted before the window, counted as they complete.
class ShipCount::Collecting {
 public:
  Collecting(const PhaseContext& ctx, MPI_Comm comm, std::span<std::byte> inbox,
             std::uint64_t record, const std::vector<int>& sender_files, CountFn count)
      : ctx_(ctx),
        comm_(comm),
        record_(record),
        files_(sender_files),
        count_(count),
        senders_(static_cast<int>(
            std::count_if(sender_files.begin(), sender_files.end(), [](int f) { return f >= 0; }))),
        verifier_(ctx.data, 0, record),
        idx_(kInboxSlots),
        st_(kInboxSlots) {
    for (int i = 0; i < kInboxSlots; ++i) {
      slots_.push_back(inbox.data() + static_cast<std::size_t>(i) * record);
      requests_.push_back(MPI_REQUEST_NULL);
    }
  }
  void post_all() {
    for (int i = 0; i < kInboxSlots; ++i)
      post(i);
  }
  // Counts whatever has arrived, and posts the freed receives again.
  void pump() {
    int got = 0;
    MPI_Testsome(kInboxSlots, requests_.data(), &got, idx_.data(), st_.data());
    for (int i = 0; i < got && got != MPI_UNDEFINED; ++i)
      take(idx_[static_cast<std::size_t>(i)], st_[static_cast<std::size_t>(i)]);
  }
  // Receives until every sender has said it is done, then withdraws the receives left posted.
  void finish() {
    while (done_ < senders_) {
      int i = 0;
      MPI_Status st;
      MPI_Waitany(kInboxSlots, requests_.data(), &i, &st);
      if (i != MPI_UNDEFINED) take(i, st);
    }
    for (auto& r : requests_)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
  }
  std::uint64_t matches = 0, expected = 0, compute_ns = 0;
  Verifier& verifier() { return verifier_; }

 private:
  void post(int i) {
    MPI_Irecv(slots_[static_cast<std::size_t>(i)], static_cast<int>(record_), MPI_BYTE,
              MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &requests_[static_cast<std::size_t>(i)]);
  }
  void take(int i, const MPI_Status& st) {
    if (st.MPI_TAG == kDoneTag) {
      ++done_;
    } else {
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      const std::byte* p = slots_[static_cast<std::size_t>(i)];
      const std::uint64_t off = static_cast<std::uint64_t>(st.MPI_TAG) * record_;
      const auto len = static_cast<std::size_t>(bytes);
      const std::uint64_t c0 = now_ns();
      matches += count_(reinterpret_cast<const std::uint64_t*>(p), len / 8, ctx_.work.filter_key);
      compute_ns += now_ns() - c0;
      expected += expected_matches(ctx_.data, off, off + len);
      if (ctx_.work.verify) {
        verifier_.file =
            static_cast<std::uint64_t>(files_[static_cast<std::size_t>(st.MPI_SOURCE)]);
        verifier_.check(p, off, len);
      }
    }
    post(i);
  }

  const PhaseContext& ctx_;
  MPI_Comm comm_;
  std::uint64_t record_;
  const std::vector<int>& files_;
  CountFn count_;
  int senders_;
  int done_ = 0;
  std::vector<std::byte*> slots_;
  std::vector<MPI_Request> requests_;
  Verifier verifier_;
  std::vector<int> idx_;  // MPI_Testsome's outputs, kept so the timed loop allocates nothing
  std::vector<MPI_Status> st_;
};

std::string ShipCount::validate(const Workload& work, const EngineOptions& io) const {
  return FilterCount(desc()).validate(work, io);
}

EngineNeed ShipCount::engine_need(const Workload& work, const EngineOptions& io,
                                  const RankStreams& per_rank) const {
  // The read path of filter-count, exactly.
  return FilterCount(desc()).engine_need(work, io, per_rank);
}

std::uint64_t ShipCount::buffer_bytes(const Workload& work, const SweepPoint& point,
                                      const PhasePlan& plan) const {
  return FilterCount(desc()).buffer_bytes(work, point, plan) + kInboxSlots * work.scan_record;
}

void ShipCount::prepare(PhaseContext& ctx) {
  const Workload& work = ctx.work;
  scan_ = plan_scan(ctx);
  buffers_ = AlignedBuffer(read_buffer_bytes(*ctx.engine, scan_.record, true), work.hugepages);
  buffers_.touch();
  inbox_ = AlignedBuffer(kInboxSlots * scan_.record, work.hugepages);
  inbox_.touch();
  const std::span<std::byte> bufs[] = {buffers_.span()};
  ctx.engine->register_buffers(bufs);
  count_ = filter_count_fn(resolve_filter_kernel(work.filter_kernel));

  // Who sends to whom: every rank learns the node of every position and works it out alike.
  const int k = ctx.k, me = ctx.self.position;
  std::vector<int> nodes(static_cast<std::size_t>(k));
  MPI_Allgather(&ctx.self.node, 1, MPI_INT, nodes.data(), 1, MPI_INT, ctx.active);
  bool all_remote = false;
  const int shift = work.collector == Collector::rank0 ? 0 : remote_shift(nodes, k, all_remote);
  auto collector_of = [&](int p) {
    return work.collector == Collector::rank0 ? 0 : (p + shift) % k;
  };
  collector_ = collector_of(me);
  collector_remote_ = nodes[static_cast<std::size_t>(collector_)] != ctx.self.node;
  sender_files_.assign(static_cast<std::size_t>(k), -1);
  for (int p = 0; p < k; ++p)
    if (collector_of(p) == me)
      sender_files_[static_cast<std::size_t>(p)] = (p + ctx.read_shift) % k;
  MPI_Comm_dup(ctx.active, &comm_);  // this phase's messages, apart from every other

  if (work.cache == CacheMode::drop && !ctx.io.direct) fsops::drop_cache(scan_.path);
  cached_fraction_ = cached_fraction(scan_.path, file_bytes_of(ctx, scan_.data_bytes));
  ctx.progress_total = scan_.data_bytes;
}

void ShipCount::run(PhaseContext& ctx, RankSample& s) {
  Collecting in(ctx, comm_, inbox_.span(), scan_.record, sender_files_, count_);
  const MPI_Comm comm = comm_;
  std::uint64_t sent = 0;
  const int to = collector_;
  // Everything the window needs is set up before its clock starts.
  DriverJob j = read_job(*ctx.engine, scan_.path, scan_.record, *scan_.order, buffers_.span(),
                         [&](const std::byte* p, std::uint64_t off, std::size_t len) {
                           MPI_Request req;
                           MPI_Isend(p, static_cast<int>(len), MPI_BYTE, to,
                                     static_cast<int>(off / scan_.record), comm, &req);
                           for (int flag = 0;;) {  // the buffer is the loop's: wait, receiving
                             MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                             if (flag) break;
                             in.pump();
                           }
                           sent += len;
                           in.pump();
                         });
  j.layout = layout_of(ctx, ctx.read_position);
  IoDriver driver(j);
  in.post_all();
  DriverResult r;
  std::uint64_t tail_ns = 0;
  try {
    r = timed_window(ctx, j, driver, {false, false}, false, ctx.read_position, s);
  } catch (...) {
    MPI_Send(nullptr, 0, MPI_BYTE, to, kDoneTag, comm);  // its collector must not wait
    in.finish();
    throw;
  }
  const std::uint64_t t_tail = now_ns();
  MPI_Send(nullptr, 0, MPI_BYTE, to, kDoneTag, comm);
  in.finish();
  tail_ns = now_ns() - t_tail;
  // The window closes when this rank has also collected what its senders shipped.
  s.io_s += ns_to_s(tail_ns);
  s.elapsed_s += ns_to_s(tail_ns);
  s.rows = r.bytes / 8;
  s.cached_fraction = cached_fraction_;
  s.matches = in.matches;
  s.expected_matches = in.expected;
  s.compute_s = ns_to_s(in.compute_ns);
  s.io_wait_s = s.io_s - s.compute_s;
  s.mpi_bytes = sent + sizeof s.matches;  // the records, then the count to rank 0
  s.mpi_remote_bytes = collector_remote_ ? sent : 0;
  in.verifier().fill(s);
  if (in.verifier().bad_blocks > 0) s.file = static_cast<std::int32_t>(in.verifier().file);
}

void ShipCount::cleanup(PhaseContext& ctx) {
  if (ctx.engine != nullptr) ctx.engine->unregister_buffers();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  buffers_ = AlignedBuffer();
  inbox_ = AlignedBuffer();
  scan_.order.reset();
}

void ShipCount::reduce(SummaryRow& s, const PointBook& book) {
  const SummaryRow* base = book.find(kFilterCount);
  s.filter_vs_ship = base != nullptr && s.bandwidth_Bps > 0
                         ? base->bandwidth_Bps / s.bandwidth_Bps
                         : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace iosweep
