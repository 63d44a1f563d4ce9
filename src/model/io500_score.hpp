// The IO500's figures, rules and score as the io500 application computes them (its src/main.c
// calc_score and phase checks, src/phase_ior.c, src/phase_find.c, src/phase_dbg.c at 02091cf).
//
// Rates: GiB/s (2^30 bytes per second) for the ior phases, kIOPS (1000 operations per second)
// for mdtest and find; each over the phase's whole time, the wear-out included (IOR's and
// mdtest's time of a stonewalled phase runs to its last rank's last operation). The figures at
// the stonewall (IOR's throughput-stonewall, mdtest's rate-stonewall) are the timed window's
// alone. The score: the geometric mean of the scored bandwidth phases (BW, GiB/s), that of the
// scored metadata phases (MD, kIOPS), each leaving out a phase whose score is 0 or less, and
// TOTAL = sqrt(BW x MD).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iosweep {

enum class Io500Group : std::uint8_t { none, md, bw };

// iosweep's own record of a phase, beyond the application's figures (result_phases.txt):
// where its time went and how long its operations took, from its row.
struct Io500Detail {
  double window_s = 0;       // the timed window: to the last rank's close (max over ranks)
  double first_done_s = 0;   // to the first rank's close
  bool stonewalled = false;  // a rank stopped issuing at the stonewall
  // The straggler tail: how long the window ran on after the stonewall (requests in flight at
  // the deadline, the close and its fsync), or after the first rank's close when no rank was
  // stonewalled (the wait for the slowest rank). Never the wear-out, which comes after it.
  double tail_s = 0;
  double wearout_s = 0;      // the untimed wear-out after the window (its slowest rank)
  double wearout_share = 0;  // of the phase's operations (metadata, find) or bytes (data)
  double lat_p50_ns = 0, lat_p99_ns = 0, lat_p999_ns = 0, lat_max_ns = 0;
  // Where the bytes came from: the row's provenance notes, and its cache verdict alone (the
  // marks that say a cache served or held back the phase: "cached 100%", "device 0 B/op
  // (cached)"; empty when the storage's counters saw the phase's work).
  std::string provenance, cache;
  std::string notes;  // the row's notes, everything it says (the HDF5 field: 255 bytes at most)
};

// One phase as it ran: the figures the result files print and the rules check.
struct Io500Phase {
  std::string name;  // "ior-easy-write"
  std::string exe;   // how it ran (result.txt's exe line)
  Io500Group group = Io500Group::none;
  bool write = false;                     // a write phase: its time is held against the stonewall
  bool dummy = false;                     // timestamp: no score
  double score = 0;                       // GiB/s or kIOPS
  double time_s = 0;                      // the phase's time (window and wear-out)
  double stonewall_rate = -1;             // at the stonewall (GiB/s or kIOPS); < 0: none
  std::uint64_t found = 0, examined = 0;  // find
  std::uint64_t errors = 0;               // verification failures (bad blocks or items)
  std::int64_t t_start_unix_s = 0, t_end_unix_s = 0;
  std::vector<std::string> invalid;  // the rules it broke, in the application's words
  int repetition = 1;                // of the suite (iosweep io500 --repetitions)
  Io500Detail detail;
};

// A step's IO500 phase and repetition: "ior-easy-write" (1), "r2/ior-easy-write" (2).
std::string io500_step_phase(const std::string& step_name);
int io500_step_repetition(const std::string& step_name);

// The group and kind of a phase by its name; false for a name that is not an IO500 phase.
bool io500_phase_kind(const std::string& name, Io500Group& group, bool& write, bool& dummy);

// The application's per-phase rules, appended to p.invalid: errors, a write phase shorter than
// the stonewall or than `min_write_s`, a score of 0, find finding nothing.
void io500_check_phase(Io500Phase& p, double stonewall_s, double min_write_s);

struct Io500Score {
  double bw = 0, md = 0, total = 0;
};
// calc_score over the phases (standard mode: every scored phase is in it).
Io500Score io500_score(const std::vector<Io500Phase>& phases);

// The median of `values` (one per repetition of the suite) and a bootstrap 95% interval of it:
// the 2.5th and 97.5th percentiles (linear between ranks) of the medians of 2000 resamples
// drawn with replacement, a fixed seed (the same values always give the same interval), as
// iosweep-compare and the benchmark scripts make theirs.
struct Io500Interval {
  double median = 0, low = 0, high = 0;
};
Io500Interval io500_interval(const std::vector<double>& values);

}  // namespace iosweep
