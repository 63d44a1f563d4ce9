// The writers' fan-out (see writer.hpp): what it passes on, and the final math it makes once.
#include "output/writer.hpp"

#include "model/phase_desc.hpp"

namespace iosweep {

void WriterList::begin_run(const RunContext& ctx) {
  last_filter_.reset();
  last_ship_.reset();
  final_math_ = {};
  if (ctx.cfg != nullptr) {
    final_math_.by_streams = !ctx.cfg->sweep.streams.empty();
    final_math_.rated_bw_Bps = ctx.cfg->report.rated_bw_Bps;
    final_math_.rated_bw2_Bps = ctx.cfg->report.rated_bw2_Bps;
    final_math_.rated_iops = ctx.cfg->report.rated_iops;
  }
  final_math_.device_note = ctx.device_note;
  step_inputs_ = final_math_;
  for (auto& w : writers_)
    w->begin_run(ctx);
}

// A step's own settings for the final math of its points (a run without steps has one step).
void WriterList::begin_step(const StepPlan& step, std::uint32_t index) {
  step_inputs_.by_streams = !step.cfg.sweep.streams.empty();
  step_inputs_.rated_bw_Bps = step.cfg.report.rated_bw_Bps;
  step_inputs_.rated_bw2_Bps = step.cfg.report.rated_bw2_Bps;
  step_inputs_.rated_iops = step.cfg.report.rated_iops;
  step_inputs_.step = index;
  for (auto& w : writers_)
    w->begin_step(step, index);
}

// The final math is the run's last filter-count point's (in a run of steps, of the last step
// that counted), with its step's settings.
void WriterList::append_point(const PointResult& p, const LatencyHistogram& l) {
  const PhaseDesc& phase = phase_desc(p.summary.phase);
  if (phase.counts()) {
    if (!phase.ships() && (!last_filter_ || last_filter_->summary.step != p.summary.step)) {
      last_ship_.reset();
      const std::string note = final_math_.device_note;
      final_math_ = step_inputs_;
      final_math_.device_note = note;
    }
    (phase.ships() ? last_ship_ : last_filter_) = p;
  }
  for (auto& w : writers_)
    w->append_point(p, l);
}

// A complete run's final math goes to every writer before any ends the run: the console prints
// it after its Peak & Sustained table, the results file stores it.
void WriterList::end_run(RunStatus s, const std::string& m) {
  if (s == RunStatus::complete && last_filter_)
    append_final_math(
        make_final_math(*last_filter_, last_ship_ ? &*last_ship_ : nullptr, final_math_));
  for (auto& w : writers_)
    w->end_run(s, m);
}

}  // namespace iosweep
