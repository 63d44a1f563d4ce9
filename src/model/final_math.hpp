// The compute-adjacent "final math" of a run's largest filter-count point, as plain data: the
// data, runtime, aggregate, per node, per rank and per drive figures, every drive's own counters
// over the window, the count's verdict, the percent of the drives' rated bandwidth, and the
// same scan shipped to collectors when ship-count ran at that point. Made once, at the end of
// the run (output/writer.hpp's WriterList), from the reduced points; the console prints it
// (output/final_math.cpp), the results file stores it (the final_math and final_math_drives
// tables) and iosweep-report shows what was stored: nothing of it is worked out again.
#pragma once

#include <string>
#include <vector>

#include "model/point.hpp"
#include "model/schema.hpp"

namespace iosweep {

struct FinalMath {
  FinalMathRow row{};
  std::vector<NodeRow> nodes;  // the point's node lines: its nodes rows
  std::vector<FinalMathDriveRow> drives;
};

// What the final math needs besides the points.
struct FinalMathInputs {
  std::uint32_t step = 0;
  bool by_streams = false;  // the step swept --streams
  double rated_bw_Bps = 0;  // --rated-bw; 0: not given
  double rated_bw2_Bps = 0;
  double rated_iops = 0;    // --rated-iops; 0: not given
  std::string device_note;  // why the device counters were not measured; empty when they were
};

// `filter` is filter-count's last point; `ship` ship-count's last point, or nullptr (used only
// when it ran at the same ranks and repetition).
FinalMath make_final_math(const PointResult& filter, const PointResult* ship,
                          const FinalMathInputs& in);

}  // namespace iosweep
