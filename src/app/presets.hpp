// Presets (--config FILE): TOML of long option names (core/toml.hpp), read by iosweep's own
// reader so that a preset and a recorded configuration are read alike. Only a regular file of
// at most 1 MiB is read (a device or a FIFO would never end), and a UTF-8 byte-order mark at
// its start is accepted, as editors on some systems write one.
//
// A preset is named by its path, or by its name alone (`--config pixstor-random`, no `/`, and
// no such file in the working folder): then it is NAME.toml in the presets that came with this
// binary, found from the binary's own place so that any install prefix works: an installed
// binary's PREFIX/share/iosweep/modes (PREFIX/bin/iosweep), a build's source tree modes/
// (SOURCE/build*/iosweep).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/toml.hpp"

namespace iosweep {

inline constexpr std::uintmax_t kPresetMaxBytes = 1u << 20;

// The folders a preset name is looked up in, for a binary in `exe_dir`, in order.
std::vector<std::string> preset_dirs(const std::string& exe_dir);
// The file `arg` names: itself when it is a path or an existing file, else NAME.toml in the
// first of `dirs` holding it; throws UsageError naming what was looked at.
std::string find_preset(const std::string& arg, const std::vector<std::string>& dirs);
// The items of the preset `arg` names (find_preset with this binary's preset_dirs), with its
// [[step]] headers, and how it is named in messages ("--config: 'p.toml'"); throws UsageError
// ("--config: 'p.toml' ...").
struct PresetText {
  std::vector<TomlItem> items;
  std::vector<TomlHeader> headers;
  std::string whose;
};
PresetText read_preset(const std::string& arg);

}  // namespace iosweep
