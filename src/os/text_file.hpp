// Reading the one-line files the kernel exposes (/proc, /sys).
#pragma once

#include <fstream>
#include <string>

namespace iosweep {

// The first line of a file, without its line end and trailing spaces; empty when unreadable.
inline std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
    line.pop_back();
  return line;
}

}  // namespace iosweep
