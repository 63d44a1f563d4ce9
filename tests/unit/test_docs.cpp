// docs/architecture.md's worked examples are true to the code: every fenced block marked
// "```cpp FILE" appears in FILE as written (line by line, indentation aside), so the rows it
// shows are rows of the compiled tables.
#include <gtest/gtest.h>

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
