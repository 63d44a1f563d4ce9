// The io500 application's configuration file, read as the application reads it (its
// src/ini-parse.c and each phase's option table): `[section]` headers, `key = value` lines,
// comments after '#' or ';'. Every section and key the application knows is taken; an unknown
// one, a value of the wrong kind, or a setting iosweep cannot honour is refused in one line
// naming the line, section and key (UsageError). What each setting becomes is in
// app/io500_steps.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iosweep {

struct Io500Ini {
  // [global]
  std::string datadir = "./datafiles";
  std::string resultdir = "./results";
  bool timestamp_datadir = true;
  bool timestamp_resultdir = true;
  std::string api = "POSIX";
  bool drop_caches = false;
  std::string drop_caches_cmd = "sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\"";
  std::string data_packet_type = "timestamp";
  std::uint64_t verbosity = 1;
  // [debug]
  std::uint64_t stonewall_s = 300;
  // [ior-easy]
  std::uint64_t easy_transfer_bytes = 2ull << 20;
  std::uint64_t easy_block_bytes = 9920000ull << 20;
  bool easy_file_per_proc = true;
  // [ior-hard]
  std::uint64_t hard_segments = 10000000;
  // [mdtest-easy], [mdtest-hard]
  std::uint64_t md_easy_items = 1000000;
  std::uint64_t md_hard_items = 1000000;
  // The `run` key of every section that has one (a phase left out with run = FALSE).
  std::map<std::string, bool> run;
  // Every value given, by "section.key", for config.ini.
  std::map<std::string, std::string> given;

  bool runs(const std::string& section) const {
    const auto it = run.find(section);
    return it == run.end() || it->second;
  }
};

// The minimum time of a write phase and the stonewall the rules ask for (IO500's minwrite).
inline constexpr std::uint64_t kIo500RuleStonewallS = 300;
// ior-hard's transfer and block, bytes (IOR -t 47008 -b 47008): a rank's region is
// segmentCount of them.
inline constexpr std::uint64_t kIo500HardBytes = 47008;
// `iosweep io500 --repetitions N`: the suite at most this many times in one launch.
inline constexpr std::uint64_t kMaxIo500Repetitions = 100;

// Parses the text of `whose` (the file's name, for messages). Throws UsageError.
Io500Ini parse_io500_ini(const std::string& text, const std::string& whose);

// The file's text (at most 1 MiB), or UsageError saying why not.
std::string read_io500_ini(const std::string& path);

// The effective configuration, every section with every key, as the application writes
// config.ini.
std::string io500_config_ini(const Io500Ini& ini);

}  // namespace iosweep
