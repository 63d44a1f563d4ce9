// docs/architecture.md's worked examples are true to the code: every fenced block marked
// "```cpp FILE" appears in FILE as written (line by line, indentation aside), so the rows it
// shows are rows of the compiled tables; and every include of src/ follows its layer table.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// The text's lines without their indentation, joined by newlines.
std::string normalized(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);)
    out += trim(line) + "\n";
  return out;
}

struct Example {
  std::string file, code;
  int line;
};

std::vector<Example> examples(const std::string& markdown) {
  std::vector<Example> out;
  std::istringstream in(markdown);
  Example* open = nullptr;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const std::string t = trim(line);
    if (open == nullptr && t.starts_with("```cpp ")) {
      out.push_back({trim(t.substr(7)), {}, n});
      open = &out.back();
    } else if (open != nullptr && t == "```") {
      open = nullptr;
    } else if (open != nullptr) {
      open->code += line + "\n";
    }
  }
  return out;
}

}  // namespace

TEST(DocsArchitecture, ExamplesAreTheCode) {
  const std::string dir = IOSWEEP_SOURCE_DIR;
  const auto found = examples(read(dir + "/docs/architecture.md"));
  ASSERT_GE(found.size(), 5u) << "docs/architecture.md lost its worked examples";
  for (const auto& e : found) {
    const std::string source = read(dir + "/" + e.file);
    ASSERT_FALSE(source.empty()) << "docs/architecture.md:" << e.line << ": no file " << e.file;
    EXPECT_NE(normalized(source).find(normalized(e.code)), std::string::npos)
        << "docs/architecture.md:" << e.line << ": this example is not in " << e.file
        << " as written:\n"
        << e.code;
  }
}

namespace {

// The layer table of docs/architecture.md: each row's folder ("core", ..., or "main.cpp") and
// the folders its files may include besides their own.
struct Layer {
  std::string name;
  std::vector<std::string> may_include;
};

std::vector<std::string> backticked(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t a = text.find('`'); a != std::string::npos; a = text.find('`', a + 1)) {
    const std::size_t b = text.find('`', a + 1);
    if (b == std::string::npos) break;
    std::string name = text.substr(a + 1, b - a - 1);
    if (name.ends_with("/")) name.pop_back();
    out.push_back(name);
    a = b;
  }
  return out;
}

std::vector<Layer> layer_table(const std::string& markdown) {
  std::vector<Layer> out;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| `") || line.find("` |") == std::string::npos) continue;
    const std::size_t last = line.rfind(" | ");
    const std::vector<std::string> first = backticked(line.substr(0, line.find(" | ", 2)));
    if (first.size() != 1 || last == std::string::npos) continue;
    const std::string rule = line.substr(last + 3);
    Layer layer{first[0], {}};
    if (rule.starts_with("everything")) {
      const std::vector<std::string> except = backticked(rule);
      for (const auto& below : out)
        if (std::find(except.begin(), except.end(), below.name) == except.end())
          layer.may_include.push_back(below.name);
    } else {
      layer.may_include = backticked(rule);
    }
    out.push_back(layer);
  }
  return out;
}

}  // namespace

TEST(DocsArchitecture, IncludesFollowTheLayers) {
  namespace fs = std::filesystem;
  const std::string dir = IOSWEEP_SOURCE_DIR;
  const auto layers = layer_table(read(dir + "/docs/architecture.md"));
  ASSERT_GE(layers.size(), 9u) << "docs/architecture.md lost its layer table";
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir + "/src")) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), dir + "/src");
    const std::string folder =
        rel.has_parent_path() ? rel.begin()->string() : rel.filename().string();
    const auto layer = std::find_if(layers.begin(), layers.end(),
                                    [&](const Layer& l) { return l.name == folder; });
    ASSERT_NE(layer, layers.end()) << "src/" << rel.string() << ": folder '" << folder
                                   << "' is not in docs/architecture.md's layer table";
    std::istringstream in(read(entry.path().string()));
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("#include \"")) continue;
      const std::string target = line.substr(10, line.find('/', 10) - 10);
      const auto& ok = layer->may_include;
      EXPECT_TRUE(target == folder || std::find(ok.begin(), ok.end(), target) != ok.end())
          << "src/" << rel.string() << " includes " << line.substr(9) << ", which its layer ("
          << folder << ") may not";
      ++checked;
    }
  }
  EXPECT_GE(checked, 100);
}

// What reads the machine lives in src/os/ (docs/architecture.md): no other layer opens a file
// of /proc or /sys, asks statvfs, or reads a mount table itself. Comments are not code.
TEST(DocsArchitecture, OnlyTheOsLayerReadsTheMachine) {
  namespace fs = std::filesystem;
  const std::string dir = IOSWEEP_SOURCE_DIR;
  const char* kReads[] = {"\"/proc/",     "\"/sys/",       "statvfs",
                          "getmntent",    "setmntent",     "\"/etc/mtab",
                          "/mountinfo\"", "/mountstats\"", "\"/dev/urandom"};
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir + "/src")) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), dir + "/src").string();
    if (rel.starts_with("os/")) continue;
    ++files;
    std::istringstream in(read(entry.path().string()));
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      const std::size_t code = line.find_first_not_of(' ');
      if (code != std::string::npos && line.compare(code, 2, "//") == 0) continue;
      for (const char* r : kReads)
        EXPECT_EQ(line.find(r), std::string::npos)
            << "src/" << rel << ":" << n << " reads the machine (" << r
            << ") outside src/os/: " << line;
    }
  }
  EXPECT_GE(files, 50);
}
