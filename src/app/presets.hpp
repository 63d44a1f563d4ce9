// Presets (--config FILE, CLI11's TOML of long option names): only a regular file of at most
// 1 MiB is read (a device or a FIFO would never end), and a UTF-8 byte-order mark at its start
// is accepted, as editors on some systems write one.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace iosweep {

inline constexpr std::uintmax_t kPresetMaxBytes = 1u << 20;

// Before parsing: every --config argument names a readable regular file of bounded size.
// "--config: problem", or empty.
std::string check_preset_args(int argc, char** argv);

// CLI11's TOML reader, which skips a byte-order mark.
std::shared_ptr<CLI::Config> preset_format();

}  // namespace iosweep
