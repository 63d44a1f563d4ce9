// Preset files (see presets.hpp).
#include "app/presets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string_view>

#include "core/errors.hpp"
#include "os/process.hpp"

namespace iosweep {

std::vector<std::string> preset_dirs(const std::string& exe_dir) {
  if (exe_dir.empty()) return {};
  return {exe_dir + "/../share/iosweep/modes", exe_dir + "/../modes"};
}

bool names_a_path(const std::string& arg) {
  return arg.find('/') != std::string::npos || arg.ends_with(".toml") || arg == "." || arg == "..";
}

std::string find_preset(const std::string& arg, const std::vector<std::string>& dirs) {
  if (arg.empty()) throw UsageError("--config: empty file name");
  if (names_a_path(arg)) return arg;
  const std::string file = arg + ".toml";
  struct stat st {};
  std::string looked;
  for (const auto& dir : dirs) {
    std::string candidate = dir + "/" + file;
    if (::stat(candidate.c_str(), &st) == 0) return candidate;
    std::error_code ec;
    const auto shown = std::filesystem::canonical(dir, ec);  // only folders that exist
    if (!ec) looked += (looked.empty() ? "" : ", ") + printable(shown.string());
  }
  // A file of that name in the working folder is never read for a bare name: say how to.
  const std::string here = ::lstat(arg.c_str(), &st) == 0
                               ? "; a file '" + printable(arg) +
                                     "' in the working folder is read only as a path: ./" +
                                     printable(arg)
                               : std::string();
  throw UsageError("--config: '" + printable(arg) + "' is not a preset name (" +
                   (looked.empty() ? std::string("no preset folder beside this binary")
                                   : "no " + printable(file) + " in " + looked) +
                   ")" + here);
}

PresetText read_preset(const std::string& arg) {
  const std::string path = find_preset(arg, preset_dirs(self_exe_dir()));
  const std::string shown = "--config: '" + printable(path) + "'";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError(shown + " does not exist");
  if (!S_ISREG(st.st_mode)) throw UsageError(shown + " is not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > kPresetMaxBytes)
    throw UsageError(shown + " holds " + std::to_string(st.st_size) +
                     " bytes; a preset is at most 1 MiB");
  std::ifstream in(path, std::ios::binary);
  if (::access(path.c_str(), R_OK) != 0 || !in) throw UsageError(shown + " is not readable");
  // At most one byte more than a preset may hold, whatever the file does meanwhile.
  std::string s(kPresetMaxBytes + 1, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  if (s.size() > kPresetMaxBytes) throw UsageError(shown + " holds more than 1 MiB");
  if (std::string_view(s).starts_with("\xEF\xBB\xBF")) s.erase(0, 3);
  PresetText out;
  out.whose = shown;
  if (auto why = parse_toml(s, out.items, &out.headers); !why.empty())
    throw UsageError(shown + ": " + why);
  out.path = path;
  if (!names_a_path(arg)) {  // the banner and --dry-run say which file a name found
    std::error_code ec;
    const auto full = std::filesystem::canonical(path, ec);
    if (!ec) out.path = full.string();
  }
  return out;
}

}  // namespace iosweep
