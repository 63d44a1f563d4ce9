// Preset files (see presets.hpp).
#include "app/presets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <string_view>

#include "core/errors.hpp"

namespace iosweep {
namespace {

std::string check_preset(const std::string& path) {
  if (path.empty()) return "--config: empty file name";
  const std::string shown = "'" + printable(path) + "'";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "--config: " + shown + " does not exist";
  if (!S_ISREG(st.st_mode)) return "--config: " + shown + " is not a regular file";
  if (static_cast<std::uintmax_t>(st.st_size) > kPresetMaxBytes)
    return "--config: " + shown + " holds " + std::to_string(st.st_size) +
           " bytes; a preset is at most 1 MiB";
  if (::access(path.c_str(), R_OK) != 0) return "--config: " + shown + " is not readable";
  return {};
}

class PresetFormat final : public CLI::ConfigTOML {
 public:
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::stringstream text;
    text << input.rdbuf();
    std::string s = text.str();
    if (std::string_view(s).starts_with("\xEF\xBB\xBF")) s.erase(0, 3);
    std::istringstream rest(s);
    return CLI::ConfigTOML::from_config(rest);
  }
};

}  // namespace

std::string check_preset_args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      if (auto why = check_preset(argv[i + 1]); !why.empty()) return why;
      ++i;
    } else if (a.starts_with("--config=")) {
      if (auto why = check_preset(std::string(a.substr(9))); !why.empty()) return why;
    }
  }
  return {};
}

std::shared_ptr<CLI::Config> preset_format() {
  return std::make_shared<PresetFormat>();
}

}  // namespace iosweep
