// How close a point came to the CPU and to the hardware, from what the reducer already has:
// the ranks' CPU time in their windows per operation and as a share of each window (busy, and
// queued for a CPU), each drive's own bytes against its PCIe link, and the per-drive figure
// against --rated-bw and --rated-iops. Pure arithmetic, unit-tested (tests/unit/test_headroom.cpp);
// the notes that read these figures are output/notes.cpp's.
#pragma once

#include "model/point.hpp"
#include "model/sample.hpp"
#include "sweep/reducer.hpp"

namespace iosweep {

// Below this window a rank's CPU share is not told: getrusage counts microseconds, and reading
// it and the run queues costs a few more, which the window does not contain (a timestamp
// phase's idle rank: 3 us of CPU in a 0.16 us window, "sys 990%").
inline constexpr double kMinCpuWindowS = 1e-3;

// A rank's CPU time over its window; NaN for a window shorter than kMinCpuWindowS.
double busy_of(const RankSample& r);
// A rank's time queued for a CPU over its window; NaN when unknown or the window too short.
double queued_of(const RankSample& r);

// cpu_user_ns_per_op, cpu_sys_ns_per_op, busy_fraction_mean/max, queued_fraction_mean (the
// summary's ops already summed).
void reduce_cpu(const PointInput& in, SummaryRow& s);
// Each counted drive's link_fraction and the summary's link_fraction_min/max (after the drive
// view: its rows' seconds and drive_Bps).
void reduce_links(const PointInput& in, PointResult& out);
// rated_bw_fraction and rated_iops_fraction (after the timing: bandwidth, iops, drives).
void reduce_rated(const PointInput& in, SummaryRow& s);

}  // namespace iosweep
