// Presets (--config FILE): TOML of long option names (core/toml.hpp), read by iosweep's own
// reader so that a preset and a recorded configuration are read alike. Only a regular file of
// at most 1 MiB is read (a device or a FIFO would never end), and a UTF-8 byte-order mark at
// its start is accepted, as editors on some systems write one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/toml.hpp"

namespace iosweep {

inline constexpr std::uintmax_t kPresetMaxBytes = 1u << 20;

// The items of the preset at `path`; throws UsageError ("--config: 'p.toml' ...").
std::vector<TomlItem> read_preset(const std::string& path);

}  // namespace iosweep
