// The io500 application's result files from an iosweep IO500 run: result_summary.txt (the
// `[RESULT]`, `[      ]` and `[SCORE ]` lines it prints) and result.txt (its INI-like record:
// [run], a section per phase with t_start, exe, the stonewall figure, score, t_delta, t_end,
// and [SCORE]), with config-orig.ini (the file as given) and config.ini (every key, effective)
// beside them in the result folder. Both result files are rewritten after every phase, so a
// run that stops keeps what it measured; the last write adds the score. The same lines go to
// stdout at the end, as the application prints them. With --repetitions N the two files hold
// the first repetition (the application's one run), and result_repetitions.txt each
// repetition's score and the medians with bootstrap 95% intervals. result_phases.txt is
// iosweep's own: each phase's window, straggler tail, wear-out, latency percentiles and notes
// (model/io500_score.hpp's Io500Detail). A ResultWriter on rank 0
// (output/writer.hpp).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "model/io500_score.hpp"
#include "output/writer.hpp"

namespace iosweep {

struct Io500Report {
  std::string resultdir;
  std::string config_orig;  // the INI file as given
  std::string config_ini;   // every section and key, effective
  int procs = 1;
  double stonewall_s = 300;
  double min_write_s = 300;  // the rules' minimum time of a write phase (IO500's minwrite)
  std::vector<std::string> run_invalid;  // rules the configuration breaks (stonewall-time)
  int repetitions = 1;                   // of the whole suite (--repetitions)
};

class Io500Writer final : public ResultWriter {
 public:
  Io500Writer(Io500Report report, std::FILE* out) : r_(std::move(report)), out_(out) {}
  void begin_run(const RunContext& ctx) override;
  void begin_step(const StepPlan& step, std::uint32_t index) override;
  void append_point(const PointResult& point, const LatencyHistogram& latency) override;
  void end_run(RunStatus status, const std::string& message) override;

 private:
  void write_files(bool final) const;
  std::string summary_text(bool final) const;
  std::string result_text(bool final) const;
  std::string repetitions_text() const;
  std::string phases_text() const;
  std::vector<Io500Phase> of_repetition(int r) const;
  bool valid(const std::vector<Io500Phase>& phases) const;

  Io500Report r_;
  std::FILE* out_;
  std::string run_id_, start_text_, step_;
  std::string exe_;  // how each phase ran, for result.txt's exe line
  std::vector<Io500Phase> phases_;
  std::vector<std::string> end_notes_;  // why the run ended early
};

// A phase's figures from its row (the IO500 definitions: model/io500_score.hpp); `name` is the
// step's, the IO500 phase's name; `stonewall_s` the run's stonewall (the tail is after it).
Io500Phase io500_phase_of(const std::string& name, const PointResult& p, double stonewall_s);

// Formats a UNIX time as the application's result.txt does ("2026-12-02 00:47:45", local).
std::string io500_time_text(std::int64_t unix_s);

}  // namespace iosweep
