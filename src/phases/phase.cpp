// The timed window every phase shares (see phase.hpp).
#include "phases/phase.hpp"

#include <algorithm>
#include <limits>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "os/file_ops.hpp"
#include "os/process.hpp"

namespace iosweep {

double cached_fraction(const std::string& path, std::uint64_t bytes) {
  const fsops::CacheState cs = fsops::cache_state(path, bytes);
  if (!cs.known || bytes == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(cs.cached_bytes) / static_cast<double>(bytes);
}

double unflushed_fraction(const std::string& path, std::uint64_t file_bytes,
                          std::uint64_t written) {
  const fsops::CacheState cs = fsops::cache_state(path, file_bytes);
  if (!cs.dirty_known || written == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::min(1.0, static_cast<double>(cs.dirty_bytes) / static_cast<double>(written));
}

// IOR without -F puts transfer j of segment i of rank r at j x t + (i x N + r) x b (N ranks,
// block b, transfer t): segmented is one segment of b = --file-size, strided segments of
// b = --seq-record; a rank's records in its order are IOR's in its order (i, then j).
Layout layout_for(const Workload& w, int k, int region) {
  if (!w.shared()) return {};
  const auto r = static_cast<std::uint64_t>(region), n = static_cast<std::uint64_t>(k);
  if (w.shared_pattern == SharedPattern::segmented) return {r * w.file_size, 0, 0};
  return {r * w.seq_record, w.seq_record, n * w.seq_record};
}

Layout layout_of(const PhaseContext& ctx, int region) {
  return layout_for(ctx.work, ctx.k, region);
}

std::uint64_t file_bytes_of(const PhaseContext& ctx, std::uint64_t region_bytes) {
  return ctx.work.shared() ? static_cast<std::uint64_t>(ctx.k) * ctx.work.file_size : region_bytes;
}

namespace {

// What is known of a file's unsynced bytes when a call on the whole file fails.
std::string known_writes(std::uint64_t written, bool synced, bool closing) {
  if (written == 0) return closing ? "nothing was written through this descriptor" : "";
  const std::string n = std::to_string(written);
  if (synced) return "0 bytes written since its last successful fsync (the " + n + " before it)";
  return n + " bytes written since its open, none of them synced" +
         (closing ? std::string(" by iosweep (no fsync in this phase)") : std::string());
}

}  // namespace

void sync_file(Engine& e, int file, const std::string& path, std::uint64_t written) {
  try {
    e.sync(file);
  } catch (const IoError& err) {
    throw IoError::of_file(err.op(), path, err.err(), known_writes(written, false, false));
  }
}

void close_file(Engine& e, int file, const std::string& path, std::uint64_t written, bool synced) {
  try {
    e.close(file);
  } catch (const IoError& err) {
    throw IoError::of_file(err.op(), path, err.err(), known_writes(written, synced, true));
  }
}

void arm_timed(DriverJob& job, PhaseContext& ctx, std::uint64_t t0_ns) {
  job.t0_ns = t0_ns;
  job.deadline_ns =
      ctx.work.stonewall_s > 0 ? t0_ns + static_cast<std::uint64_t>(ctx.work.stonewall_s * 1e9) : 0;
  job.latency = &ctx.latency;
  job.series = &ctx.series;
  job.progress_bytes = ctx.progress_bytes;
  job.stop = ctx.stop;
}

void record_cpu(const CpuSpent& spent, RankSample& s) {
  s.cpu_user_s = spent.user_s;
  s.cpu_sys_s = spent.sys_s;
  s.cpu_s = spent.user_s + spent.sys_s;
  s.cpu_queued_s = spent.queued_s;
}

DriverResult timed_window(PhaseContext& ctx, DriverJob& job, IoDriver& driver, OpenMode mode,
                          bool sync, int file_position, RankSample& s) {
  Engine& e = *job.engine;
  CpuClock cpu;
  cpu.start();
  s.t_start_unix_ns = unix_now_ns();
  // The steps on the whole file tell the pulse too (the driver described them: its job's path).
  Pulse* pulse = job.pulse;
  const std::uint64_t t0 = now_ns();
  if (pulse != nullptr) pulse->busy("open", Pulse::kNowhere, t0);
  const int h = e.open(job.path, mode);
  const std::uint64_t t1 = now_ns();
  job.file = h;
  arm_timed(job, ctx, t0);
  const DriverResult r = driver.run();
  const std::uint64_t t2 = now_ns();
  const std::uint64_t written = mode.write ? r.bytes : 0;
  if (sync && pulse != nullptr) pulse->busy("fsync", Pulse::kNowhere, t2);
  if (sync) sync_file(e, h, job.path, written);
  const std::uint64_t t3 = sync ? now_ns() : t2;
  if (pulse != nullptr) pulse->busy("close", Pulse::kNowhere, t3);
  close_file(e, h, job.path, written, sync);
  const std::uint64_t t4 = now_ns();
  if (pulse != nullptr) pulse->idle();
  const CpuSpent spent = cpu.stop();
  s.file = file_position;
  s.bytes = r.bytes;
  s.ops = r.ops;
  s.open_s = ns_to_s(t1 - t0);
  s.io_s = ns_to_s(t2 - t1);
  s.sync_s = ns_to_s(t3 - t2);
  s.close_s = ns_to_s(t4 - t3);
  s.elapsed_s = ns_to_s(t4 - t0);
  s.stonewalled = r.stonewalled ? 1 : 0;
  s.latency_max_ns = ctx.latency.max_ns();
  // What the rank used: CPU of all its threads during the window (the progress thread's
  // included on rank 0), read just outside its timestamps, and its memory with the window's
  // buffers held.
  record_cpu(spent, s);
  s.rss_peak_bytes = self_usage().rss_peak_bytes;
  s.private_bytes = private_bytes();
  return r;
}

}  // namespace iosweep
