// The io500 application's INI files (see io500_ini.hpp). The key table follows the
// application's phase option tables (src/phase_*.c at 02091cf) and the order of its config.ini.
#include "app/io500_ini.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <span>
#include <string_view>

#include "core/errors.hpp"
#include "core/units.hpp"

namespace iosweep {
namespace {

enum class Kind : std::uint8_t { text, flag, count, real };

struct Key {
  const char* name;
  Kind kind;
  const char* fallback;  // as the application's config.ini prints it
};

struct Section {
  const char* name;
  std::vector<Key> keys;
};

const std::vector<Key> kApiRun = {{"API", Kind::text, ""}, {"run", Kind::flag, "TRUE"}};
const std::vector<Key> kRun = {{"run", Kind::flag, "TRUE"}};
const std::vector<Key> kFind = {
    {"external-script", Kind::text, ""},
    {"external-mpi-args", Kind::text, ""},
    {"external-extra-args", Kind::text, ""},
    {"nproc", Kind::count, ""},
    {"run", Kind::flag, "TRUE"},
    {"pfind-queue-length", Kind::count, "10000"},
    {"pfind-steal-next", Kind::flag, "FALSE"},
    {"pfind-parallelize-single-dir-access-using-hashing", Kind::flag, "FALSE"}};

const std::vector<Section>& sections() {
  static const std::vector<Section> table = {
      {"global",
       {{"datadir", Kind::text, "./datafiles"},
        {"timestamp-datadir", Kind::flag, "TRUE"},
        {"resultdir", Kind::text, "./results"},
        {"timestamp-resultdir", Kind::flag, "TRUE"},
        {"api", Kind::text, "POSIX"},
        {"drop-caches", Kind::flag, "FALSE"},
        {"drop-caches-cmd", Kind::text, "sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""},
        {"io-buffers-on-gpu", Kind::flag, "FALSE"},
        {"verbosity", Kind::count, "1"},
        {"scc", Kind::flag, "FALSE"},
        {"dataPacketType", Kind::text, "timestamp"}}},
      {"debug", {{"stonewall-time", Kind::count, "300"}, {"pause-dir", Kind::text, ""}}},
      {"ior-easy",
       {{"API", Kind::text, ""},
        {"transferSize", Kind::text, "2m"},
        {"blockSize", Kind::text, "9920000m"},
        {"filePerProc", Kind::flag, "TRUE"},
        {"uniqueDir", Kind::flag, "FALSE"},
        {"run", Kind::flag, "TRUE"},
        {"verbosity", Kind::count, ""}}},
      {"ior-easy-write", kApiRun},
      {"mdtest-easy",
       {{"API", Kind::text, ""}, {"n", Kind::count, "1000000"}, {"run", Kind::flag, "TRUE"}}},
      {"mdtest-easy-write", kApiRun},
      {"mdworkbench",
       {{"API", Kind::text, ""},
        {"waitingTime", Kind::real, "0.0"},
        {"precreatePerSet", Kind::count, ""},
        {"filesPerProc", Kind::count, ""},
        {"run", Kind::flag, "TRUE"},
        {"verbosity", Kind::count, ""}}},
      {"mdworkbench-create", kRun},
      {"timestamp", {}},
      {"find-easy", kFind},
      {"ior-hard",
       {{"API", Kind::text, ""},
        {"segmentCount", Kind::count, "10000000"},
        {"collective", Kind::flag, ""},
        {"run", Kind::flag, "TRUE"},
        {"verbosity", Kind::count, ""}}},
      {"ior-hard-write",
       {{"API", Kind::text, ""}, {"collective", Kind::flag, ""}, {"run", Kind::flag, "TRUE"}}},
      {"mdtest-hard",
       {{"API", Kind::text, ""},
        {"n", Kind::count, "1000000"},
        {"files-per-dir", Kind::count, ""},
        {"run", Kind::flag, "TRUE"}}},
      {"mdtest-hard-write", kApiRun},
      {"find", kFind},
      {"find-hard", kFind},
      {"mdworkbench-bench", kRun},
      {"ior-easy-read", kApiRun},
      {"mdtest-easy-stat", kApiRun},
      {"ior-hard-read",
       {{"API", Kind::text, ""}, {"collective", Kind::flag, ""}, {"run", Kind::flag, "TRUE"}}},
      {"mdtest-hard-stat", kApiRun},
      {"mdworkbench-delete", kRun},
      {"mdtest-easy-delete", kApiRun},
      {"mdtest-hard-read", kApiRun},
      {"mdtest-hard-delete", kApiRun},
      {"ior-rnd4K-easy-read", kApiRun},
  };
  return table;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0)
    s.remove_suffix(1);
  return std::string(s);
}

bool same_ci(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// One line's text without its comment ('#' or ';' to the end of the line).
std::string without_comment(const std::string& line) {
  const std::size_t at = line.find_first_of("#;");
  return at == std::string::npos ? line : line.substr(0, at);
}

struct Given {
  std::string section, key, value;
  int line = 0;
  Kind kind = Kind::text;
};

// A value checked against its key's kind, as ini-parse.c checks it.
void check_kind(const Given& g, const std::string& at) {
  if (g.value.empty()) return;  // an empty value leaves the default
  if (g.kind == Kind::flag && !same_ci(g.value, "true") && !same_ci(g.value, "false"))
    throw UsageError(at + "expects bool (true|false), received \"" + printable(g.value) + "\"");
  if (g.kind == Kind::count &&
      (g.value.size() > 18 ||
       !std::all_of(g.value.begin(), g.value.end(), [](char c) { return c >= '0' && c <= '9'; })))
    throw UsageError(at + "expects an integer >= 0, received \"" + printable(g.value) + "\"");
  if (g.kind == Kind::real) {
    char* end = nullptr;
    (void)std::strtod(g.value.c_str(), &end);
    if (end == nullptr || *end != '\0')
      throw UsageError(at + "expects float, received \"" + printable(g.value) + "\"");
  }
}

std::vector<Given> read_lines(const std::string& text, const std::string& whose) {
  std::vector<Given> out;
  const Section* current = nullptr;
  int line = 0;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    const std::string raw = text.substr(from, end - from);
    from = end + 1;
    ++line;
    const std::string at = whose + ": line " + std::to_string(line) + ": ";
    // The application reads the file as a C string and so stops at a NUL; a path or a name
    // with one in it would stop iosweep only once the run had begun: refused here.
    if (raw.find('\0') != std::string::npos)
      throw UsageError(at + "holds a NUL character: \"" + printable(raw) + "\"");
    const std::string l = trimmed(without_comment(raw));
    if (l.empty()) continue;
    if (l.front() == '[') {
      if (l.back() != ']') throw UsageError(at + "unexpected content: \"" + printable(l) + "\"");
      const std::string name = trimmed(std::string_view(l).substr(1, l.size() - 2));
      const auto& all = sections();
      const auto it =
          std::find_if(all.begin(), all.end(), [&](const Section& s) { return name == s.name; });
      if (it == all.end())
        throw UsageError(at + "unknown section [" + printable(name) +
                         "] (the io500 application's sections: [global], [debug], [ior-easy], "
                         "[mdtest-easy], [ior-hard], [mdtest-hard], [find], a section per phase)");
      current = &*it;
      continue;
    }
    const std::size_t eq = l.find('=');
    if (eq == std::string::npos)
      throw UsageError(at + "unexpected content: \"" + printable(l) + "\" (key = value)");
    if (current == nullptr) throw UsageError(at + "variable assigned outside section");
    Given g{current->name, trimmed(std::string_view(l).substr(0, eq)),
            trimmed(std::string_view(l).substr(eq + 1)), line};
    const auto key = std::find_if(current->keys.begin(), current->keys.end(),
                                  [&](const Key& k) { return g.key == k.name; });
    if (key == current->keys.end())
      throw UsageError(at + "[" + g.section + "]: unknown option \"" + printable(g.key) +
                       "\" with value \"" + printable(g.value) + "\"");
    g.kind = key->kind;
    check_kind(g, at + "[" + g.section + "] " + g.key + ": ");
    out.push_back(std::move(g));
  }
  return out;
}

// What iosweep's io500 cannot honour: refused before anything runs, naming line and key.
void refuse_unsupported(const Given& g, const std::string& whose) {
  const std::string at = whose + ": line " + std::to_string(g.line) + ": [" + g.section + "] " +
                         g.key + " = " + printable(g.value) + ": ";
  const bool yes = same_ci(g.value, "true");
  if ((g.key == "api" || g.key == "API") && !g.value.empty() && !same_ci(g.value, "POSIX"))
    throw UsageError(at + "iosweep io500 runs the POSIX interface (its posix engine) only");
  if (g.key == "io-buffers-on-gpu" && yes)
    throw UsageError(at + "iosweep keeps its buffers in host memory");
  if (g.key == "scc" && yes)
    throw UsageError(at + "the student cluster competition's rules are not taken");
  if (g.key == "pause-dir" && !g.value.empty())
    throw UsageError(at + "pausing between phases is not taken");
  if (g.key == "uniqueDir" && yes)
    throw UsageError(at + "iosweep puts every rank's ior-easy file in one folder (no -u)");
  if (g.key == "collective" && yes)
    throw UsageError(at + "collective I/O needs MPI-IO; iosweep io500 runs POSIX");
  if (g.key == "files-per-dir" && !g.value.empty())
    throw UsageError(at + "mdtest-hard's files stay in its one folder (no -I)");
  if (g.key == "external-script" && !g.value.empty())
    throw UsageError(at + "iosweep's find is its own parallel walk; no script is run");
  if (g.key == "nproc" && !g.value.empty() && g.section == "find")
    throw UsageError(at + "find runs on every rank of the launch");
  if (g.key == "pfind-parallelize-single-dir-access-using-hashing" && yes)
    throw UsageError(at + "iosweep's find lists a folder on one rank, as pfind by default");
  if (g.key == "dataPacketType" && !g.value.empty()) {
    static const char* const known[] = {"timestamp", "offset", "incompressible", "random", "t", "o",
                                        "i",         "r"};
    if (std::none_of(std::begin(known), std::end(known),
                     [&](const char* k) { return same_ci(g.value, k); }))
      throw UsageError(at + "IOR's packet types are timestamp, offset, incompressible, random");
  }
}

std::uint64_t size_value(const Given& g, const std::string& whose) {
  std::uint64_t bytes = 0;
  if (auto why = parse_size(g.value, bytes); !why.empty() || bytes == 0)
    throw UsageError(whose + ": line " + std::to_string(g.line) + ": [" + g.section + "] " + g.key +
                     ": " + (why.empty() ? "must be larger than zero" : why));
  return bytes;
}

std::uint64_t count_value(const Given& g) {
  return std::stoull(g.value);
}

bool flag_value(const Given& g) {
  return same_ci(g.value, "true");
}

// The settings into the fields iosweep uses.
void apply(const Given& g, const std::string& whose, Io500Ini& ini) {
  const std::string& s = g.section;
  const std::string& k = g.key;
  if (k == "run") ini.run[s] = flag_value(g);
  if (s == "global") {
    if (k == "datadir") ini.datadir = g.value;
    if (k == "resultdir") ini.resultdir = g.value;
    if (k == "timestamp-datadir") ini.timestamp_datadir = flag_value(g);
    if (k == "timestamp-resultdir") ini.timestamp_resultdir = flag_value(g);
    if (k == "api") ini.api = g.value;
    if (k == "drop-caches") ini.drop_caches = flag_value(g);
    if (k == "drop-caches-cmd") ini.drop_caches_cmd = g.value;
    if (k == "dataPacketType") ini.data_packet_type = g.value;
    if (k == "verbosity") ini.verbosity = count_value(g);
  } else if (s == "debug" && k == "stonewall-time") {
    ini.stonewall_s = count_value(g);
  } else if (s == "ior-easy") {
    if (k == "transferSize") ini.easy_transfer_bytes = size_value(g, whose);
    if (k == "blockSize") ini.easy_block_bytes = size_value(g, whose);
    if (k == "filePerProc") ini.easy_file_per_proc = flag_value(g);
  } else if (s == "ior-hard" && k == "segmentCount") {
    ini.hard_segments = count_value(g);
  } else if (s == "mdtest-easy" && k == "n") {
    ini.md_easy_items = count_value(g);
  } else if (s == "mdtest-hard" && k == "n") {
    ini.md_hard_items = count_value(g);
  }
  ini.given[s + "." + k] = g.value;
}

}  // namespace

Io500Ini parse_io500_ini(const std::string& text, const std::string& whose) {
  Io500Ini ini;
  for (const Given& g : read_lines(text, whose)) {
    refuse_unsupported(g, whose);
    if (!g.value.empty()) apply(g, whose, ini);
  }
  const std::string at = whose + ": ";
  if (ini.datadir.empty()) throw UsageError(at + "[global] datadir is empty");
  if (ini.resultdir.empty()) throw UsageError(at + "[global] resultdir is empty");
  if (ini.stonewall_s == 0)
    throw UsageError(at +
                     "[debug] stonewall-time = 0 turns the stonewall off: ior-easy would "
                     "write its whole blockSize per rank; give the seconds (300 by the rules)");
  if (ini.hard_segments == 0) throw UsageError(at + "[ior-hard] segmentCount must be above 0");
  if (ini.hard_segments > ~std::uint64_t{0} / kIo500HardBytes)
    throw UsageError(at + "[ior-hard] segmentCount " + std::to_string(ini.hard_segments) +
                     " blocks of " + std::to_string(kIo500HardBytes) +
                     " bytes are more than 2^64 bytes per rank");
  if (ini.md_easy_items == 0 || ini.md_hard_items == 0)
    throw UsageError(at + "[mdtest-easy] and [mdtest-hard] n must be above 0");
  if (ini.easy_block_bytes % ini.easy_transfer_bytes != 0)
    throw UsageError(at + "[ior-easy] blockSize " + format_size(ini.easy_block_bytes) +
                     " is not a multiple of transferSize " + format_size(ini.easy_transfer_bytes));
  return ini;
}

std::string read_io500_ini(const std::string& path) {
  const std::string shown = "'" + printable(path) + "'";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError("io500: " + shown + " does not exist");
  if (!S_ISREG(st.st_mode)) throw UsageError("io500: " + shown + " is not a regular file");
  constexpr std::size_t kMax = 1 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("io500: " + shown + " is not readable");
  std::string s(kMax + 1, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  if (s.size() > kMax) throw UsageError("io500: " + shown + " holds more than 1 MiB");
  return s;
}

std::string io500_config_ini(const Io500Ini& ini) {
  std::string out;
  for (const Section& s : sections()) {
    out += "[" + std::string(s.name) + "]\n";
    for (const Key& k : s.keys) {
      const auto it = ini.given.find(std::string(s.name) + "." + k.name);
      out += std::string(k.name) + " = " + (it != ini.given.end() ? it->second : k.fallback) + "\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace iosweep
