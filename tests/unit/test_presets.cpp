// --config takes a path or a preset's name (app/presets.hpp): which file a name finds, in which
// order the folders are searched, and what the refusal names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/presets.hpp"
#include "core/errors.hpp"

namespace fs = std::filesystem;
using iosweep::find_preset;
using iosweep::UsageError;

namespace {

// A scratch folder with two preset folders in it, removed at the end.
class PresetDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("iosweep-presets-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "installed");
    fs::create_directories(root_ / "source");
    touch(root_ / "installed" / "both.toml");
    touch(root_ / "source" / "both.toml");
    touch(root_ / "source" / "only-source.toml");
    dirs_ = {(root_ / "installed").string(), (root_ / "source").string()};
  }
  void TearDown() override { fs::remove_all(root_); }
  static void touch(const fs::path& p) { std::ofstream(p) << "label = \"x\"\n"; }
  fs::path root_;
  std::vector<std::string> dirs_;
};

}  // namespace

TEST_F(PresetDirs, ANameFindsTheFirstFolderHoldingIt) {
  EXPECT_EQ(find_preset("both", dirs_), dirs_[0] + "/both.toml");
  EXPECT_EQ(find_preset("only-source", dirs_), dirs_[1] + "/only-source.toml");
}

TEST_F(PresetDirs, APathIsTakenAsItIs) {
  EXPECT_EQ(find_preset("./both", dirs_), "./both");
  EXPECT_EQ(find_preset("/no/such/preset.toml", dirs_), "/no/such/preset.toml");
  // A name ending in .toml is a file name: mine.toml is ./mine.toml, never a preset.
  EXPECT_EQ(find_preset("both.toml", dirs_), "both.toml");
}

// A file or folder in the working folder named like a preset never shadows it: a bare name
// looks only in the presets; ./NAME reads the file, and the refusal of an unknown name says so.
TEST_F(PresetDirs, AFileInTheWorkingFolderNeverShadowsAPreset) {
  const fs::path cwd = fs::current_path();
  fs::current_path(root_);
  touch(root_ / "both");
  fs::create_directories(root_ / "only-source");
  touch(root_ / "elsewhere");
  std::string found, folder, refused;
  try {
    found = find_preset("both", dirs_);
    folder = find_preset("only-source", dirs_);
    find_preset("elsewhere", dirs_);
  } catch (const UsageError& e) {
    refused = e.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(found, dirs_[0] + "/both.toml");
  EXPECT_EQ(folder, dirs_[1] + "/only-source.toml");
  EXPECT_NE(refused.find("'elsewhere' is not a preset name"), std::string::npos) << refused;
  EXPECT_NE(refused.find("./elsewhere"), std::string::npos) << refused;
}

TEST_F(PresetDirs, AnUnknownNameNamesWhereItLooked) {
  try {
    find_preset("no-such-preset", dirs_);
    FAIL() << "an unknown preset name was accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--config: 'no-such-preset'"), std::string::npos) << what;
    EXPECT_NE(what.find("no-such-preset.toml"), std::string::npos) << what;
    EXPECT_NE(what.find("installed"), std::string::npos) << what;
    EXPECT_NE(what.find("source"), std::string::npos) << what;
  }
  EXPECT_THROW(find_preset("", dirs_), UsageError);
}

TEST(Presets, AreLookedUpBesideAnInstalledBinaryAndInItsSourceTree) {
  const auto dirs = iosweep::preset_dirs("/opt/iosweep/bin");
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/opt/iosweep/bin/../share/iosweep/modes");
  EXPECT_EQ(dirs[1], "/opt/iosweep/bin/../modes");
  EXPECT_TRUE(iosweep::preset_dirs("").empty());
}
