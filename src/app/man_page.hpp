// iosweep(1): the man page in roff, rendered from the command line's own declarations
// (app/cli.cpp: the commands, --config, --rerun and every row of the option table with its
// help and default), so that it never differs from --help. CMake runs `iosweep help-man` at
// build time and installs the page (PREFIX/share/man/man1/iosweep.1).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace iosweep {

// Text made safe for roff: backslashes escaped, hyphens as \-, a leading '.' or '\'' guarded.
std::string roff_text(const std::string& text);
std::string render_man_page(const CLI::App& app);

}  // namespace iosweep
