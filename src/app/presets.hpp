// Presets (--config FILE): TOML of long option names (core/toml.hpp), read by iosweep's own
// reader so that a preset and a recorded configuration are read alike. Only a regular file of
// at most 1 MiB is read (a device or a FIFO would never end), and a UTF-8 byte-order mark at
// its start is accepted, as editors on some systems write one.
//
// A preset is named by its path (a `/` in it, or a name ending in .toml: modes/smoke.toml,
// ./mine, mine.toml), or by its name alone (`--config pixstor-random`): then it is NAME.toml in
// the presets that came with this binary, and only there (a file or folder of that name in the
// working folder never shadows an installed preset; `./NAME` reads it), found from the binary's
// own place so that any install prefix works: an installed binary's PREFIX/share/iosweep/modes
// (PREFIX/bin/iosweep), a build's source tree modes/ (SOURCE/build*/iosweep). The banner and
// --dry-run name the file a name found.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/toml.hpp"

namespace iosweep {

inline constexpr std::uintmax_t kPresetMaxBytes = 1u << 20;

// The folders a preset name is looked up in, for a binary in `exe_dir`, in order.
std::vector<std::string> preset_dirs(const std::string& exe_dir);
// Whether --config's argument is a path (a '/' in it, or ending in .toml), not a preset's name.
bool names_a_path(const std::string& arg);
// The file `arg` names: itself when it is a path, else NAME.toml in the first of `dirs` holding
// it; throws UsageError naming what was looked at.
std::string find_preset(const std::string& arg, const std::vector<std::string>& dirs);
// The items of the preset `arg` names (find_preset with this binary's preset_dirs), with its
// [[step]] headers, how it is named in messages ("--config: 'p.toml'") and the file read (in
// full for a name: the banner and --dry-run name it); throws UsageError ("--config: 'p.toml'
// ...").
struct PresetText {
  std::vector<TomlItem> items;
  std::vector<TomlHeader> headers;
  std::string whose;
  std::string path;
};
PresetText read_preset(const std::string& arg);

}  // namespace iosweep
