// One run as a results file records it, read back: its configuration, command line, size and
// placement. What `iosweep show` prints and `iosweep run --rerun` starts from. The file is only
// read: opened read-only under the shared lock a run's check takes (output/hdf5_file.hpp), so a
// run appending to it at the same time is waited for and never disturbed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/schema.hpp"

namespace iosweep {

struct RunRecord {
  std::string run_id;
  std::string config_toml;  // the `config` attribute: the effective configuration as TOML
  std::string argv, label, rerun_of;
  std::string status;  // running, complete, aborted or interrupted
  std::uint64_t t_start_unix_ns = 0;
  int world_size = 0;
  int n_nodes = 0;
  std::vector<std::string> hosts;  // index = node id
  std::vector<RankMapRow> rank_map;
  std::vector<MountRow> mounts;  // the file system under --dir on each node (newer runs)
};

// Reads run `run_id` of the results file `path`, or its latest run (the last row of /run_index)
// when `run_id` is empty. Empty on success; otherwise one line saying why not ("'r.h5' does not
// exist", "... has no run X"), without the option's name.
std::string read_run_record(const std::string& path, const std::string& run_id, RunRecord& out);

}  // namespace iosweep
