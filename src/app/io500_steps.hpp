// The IO500 as a stepped run (app/steps.hpp): one step per phase of the io500 application, in
// its order, with its shapes, as a preset of long option names that the ordinary run path then
// checks, plans and runs. Steps of one IO500 test share a dataset: ior-easy's write, read and
// rnd4K read work on the same files, mdtest-easy's write, stat and delete on the same items.
#pragma once

#include <string>
#include <vector>

#include "app/io500_ini.hpp"

namespace iosweep {

// The folders of one IO500 run, as the application names them.
struct Io500Dirs {
  std::string datadir;    // [global] datadir, with its timestamp folder when asked
  std::string resultdir;  // [global] resultdir, likewise
  std::string timestamp_file() const { return resultdir + "/timestampfile"; }
  // The test folders the application makes below datadir, in the order it makes them.
  std::vector<std::string> test_dirs() const {
    return {datadir + "/ior-easy", datadir + "/mdtest-easy", datadir + "/ior-hard",
            datadir + "/mdtest-hard"};
  }
};

// The phases in the application's order (standard mode), and whether each is scored.
struct Io500PhaseName {
  const char* name;
  const char* test;  // the [section] of its shape (ior-easy, ...), or "" for timestamp and find
};
const std::vector<Io500PhaseName>& io500_phase_names();

// The preset text: top-level keys, then a [[step]] named after each phase the INI runs; with
// `repetitions` above 1 the whole suite again and again, each step's name prefixed "rN/" and
// each repetition with datasets of its own.
std::string io500_preset(const Io500Ini& ini, const Io500Dirs& dirs, int world_size,
                         int repetitions = 1);

}  // namespace iosweep
