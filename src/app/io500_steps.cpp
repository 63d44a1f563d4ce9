// The IO500's phases as steps (see io500_steps.hpp). What each phase of the application runs,
// from its result.txt (IOR 5fcf0ba, mdtest and pfind command lines), and the step it becomes:
//
//   ior-easy-write   ior -t 2m -b 9920000m -F -w -e -D S -O stoneWallingWearOut=1 -C -Q 1
//                    -> seq-write, --seq-record transferSize, --file-size blockSize (the bound
//                       the stonewall cuts), --stonewall S with wear-out, a file per rank,
//                       fsync before the close inside the window (-e: --fsync seq-write)
//   mdtest-easy-write mdtest -n N -u -L -F -P -N 1 -C -Y -W S
//                    -> md-create, private trees (-u), items in the leaves (-L), --md-sync (-Y)
//   timestamp        -> timestamp (resultdir/timestampfile)
//   ior-hard-write   ior -t 47008 -b 47008 -s SEG -w -e -D S -O stoneWallingWearOut=1
//                    -> seq-write of one shared file, strided 47008-byte blocks rank by rank,
//                       fsync before the close (-e)
//   mdtest-hard-write mdtest -n N -t -w 3901 -e 3901 -P -N 1 -F -C -Y -W S
//                    -> md-create in one shared folder, 3901 bytes per file
//   find             pfind datadir -newer timestampfile -size 3901c -name *01*
//   ior-easy-read, ior-hard-read (-r -R -C): seq-read with --verify, --read-shift 1
//   mdtest-easy-stat, mdtest-hard-stat (-T), mdtest-easy-delete, mdtest-hard-delete (-r),
//   mdtest-hard-read (-E -X): md-stat, md-remove, md-read with --verify; -N 1: --read-shift 1
//   ior-rnd4K-easy-read ior -t 4096 -z -D S on ior-easy's files -> rand-read of 4 KiB
//
// Every step runs on all ranks of the launch (one point). The caches are kept unless
// drop-caches asks (the application drops nothing by default). The free-space check is off
// (--force): the sizes above are upper bounds the stonewall cuts, as the application treats
// them.
#include "app/io500_steps.hpp"

#include "core/toml.hpp"

namespace iosweep {
namespace {

std::string str(const std::string& v) {
  return toml_string(v);
}

struct Step {
  std::string text;
  void key(const std::string& k, const std::string& v) { text += k + " = " + str(v) + "\n"; }
  void flag(const std::string& k) { text += k + " = true\n"; }
};

Step step_of(const std::string& name, const std::string& dataset, const std::string& dir,
             const std::string& phase) {
  Step s;
  s.text = "\n[[step]]\nname = " + str(name) + "\ndataset = " + str(dataset) + "\n";
  s.text += "dir = " + str(dir) + "\nphases = [" + str(phase) + "]\n";
  return s;
}

void ior_easy(Step& s, const Io500Ini& ini) {
  s.key("file-size", std::to_string(ini.easy_block_bytes));
  s.key("seq-record", std::to_string(ini.easy_transfer_bytes));
  s.key("rand-record", "4096");
  if (!ini.easy_file_per_proc) s.key("file-layout", "shared");
}

void ior_hard(Step& s, const Io500Ini& ini) {
  s.key("file-size", std::to_string(kIo500HardBytes * ini.hard_segments));
  s.key("seq-record", std::to_string(kIo500HardBytes));
  s.key("file-layout", "shared");
  s.key("shared-pattern", "strided");
}

void md_easy(Step& s, const Io500Ini& ini) {
  s.key("md-items", std::to_string(ini.md_easy_items));
  s.key("md-layout", "private");
  s.key("md-files", "leaf");
  s.key("md-depth", "0");
}

void md_hard(Step& s, const Io500Ini& ini) {
  s.key("md-items", std::to_string(ini.md_hard_items));
  s.key("md-layout", "shared");
  s.key("md-depth", "0");
  s.key("md-write-bytes", "3901");
  s.key("md-read-bytes", "3901");
}

void stonewalled(Step& s, const Io500Ini& ini, bool wearout) {
  s.key("stonewall", std::to_string(ini.stonewall_s) + "s");
  if (wearout) s.flag("stonewall-wearout");
}

}  // namespace

const std::vector<Io500PhaseName>& io500_phase_names() {
  static const std::vector<Io500PhaseName> names = {
      {"ior-easy-write", "ior-easy"},
      {"mdtest-easy-write", "mdtest-easy"},
      {"timestamp", ""},
      {"ior-hard-write", "ior-hard"},
      {"mdtest-hard-write", "mdtest-hard"},
      {"find", ""},
      {"ior-easy-read", "ior-easy"},
      {"mdtest-easy-stat", "mdtest-easy"},
      {"ior-hard-read", "ior-hard"},
      {"mdtest-hard-stat", "mdtest-hard"},
      {"mdtest-easy-delete", "mdtest-easy"},
      {"mdtest-hard-read", "mdtest-hard"},
      {"mdtest-hard-delete", "mdtest-hard"},
      {"ior-rnd4K-easy-read", "ior-easy"},
  };
  return names;
}

namespace {

// The step of phase `p` in repetition `tag` (its name's prefix "r2/" and its datasets' suffix
// ".r2" when the suite repeats; both empty otherwise).
Step phase_step(const Io500PhaseName& p, const Io500Ini& ini, const Io500Dirs& dirs,
                const std::string& prefix, const std::string& suffix) {
  const std::string n = p.name;
  const auto d = dirs.test_dirs();
  auto step = [&](const std::string& dataset, const std::string& dir, const char* phase) {
    return step_of(prefix + n, dataset + suffix, dir, phase);
  };
  Step s;
  if (n == "ior-easy-write" || n == "ior-easy-read" || n == "ior-rnd4K-easy-read") {
    const bool write = n == "ior-easy-write", rnd = n == "ior-rnd4K-easy-read";
    s = step("ior-easy", d[0], write ? "seq-write" : rnd ? "rand-read" : "seq-read");
    ior_easy(s, ini);
    if (write || rnd) stonewalled(s, ini, write);
    if (write) s.key("fsync", "seq-write");
    if (!write && !rnd) s.flag("verify");
  } else if (n == "ior-hard-write" || n == "ior-hard-read") {
    const bool write = n == "ior-hard-write";
    s = step("ior-hard", d[2], write ? "seq-write" : "seq-read");
    ior_hard(s, ini);
    if (write) stonewalled(s, ini, true), s.key("fsync", "seq-write");
    if (!write) s.flag("verify");
  } else if (p.test == std::string("mdtest-easy")) {
    const bool write = n == "mdtest-easy-write";
    s = step("mdtest-easy", d[1],
             write                     ? "md-create"
             : n == "mdtest-easy-stat" ? "md-stat"
                                       : "md-remove");
    md_easy(s, ini);
    if (write) s.flag("md-sync"), stonewalled(s, ini, true);
  } else if (p.test == std::string("mdtest-hard")) {
    const bool write = n == "mdtest-hard-write";
    s = step("mdtest-hard", d[3],
             write                     ? "md-create"
             : n == "mdtest-hard-stat" ? "md-stat"
             : n == "mdtest-hard-read" ? "md-read"
                                       : "md-remove");
    md_hard(s, ini);
    if (write) s.flag("md-sync"), stonewalled(s, ini, true);
    if (n == "mdtest-hard-read") s.flag("verify");
  } else {  // timestamp and find, on the whole data folder
    s = step(n, dirs.datadir, n == "timestamp" ? "timestamp" : "find");
    s.key("find-newer", dirs.timestamp_file());
    if (n == "find") s.key("find-size", "3901"), s.key("find-name", "*01*");
  }
  return s;
}

}  // namespace

std::string io500_preset(const Io500Ini& ini, const Io500Dirs& dirs, int world_size,
                         int repetitions) {
  std::string top = "# The IO500 as iosweep runs it (iosweep io500), one step per phase.\n";
  top += "ranks = " + str(std::to_string(world_size)) + "\n";
  top += "cache = " + str(ini.drop_caches ? "drop" : "keep") + "\n";
  top += "read-shift = \"1\"\nforce = true\n";
  std::string steps;
  for (int r = 1; r <= repetitions; ++r) {
    const std::string prefix = repetitions > 1 ? "r" + std::to_string(r) + "/" : "";
    const std::string suffix = repetitions > 1 ? ".r" + std::to_string(r) : "";
    for (const Io500PhaseName& p : io500_phase_names()) {
      // A phase runs when its own section and its test's section both say run (the default).
      if (!ini.runs(p.name) || (*p.test != '\0' && !ini.runs(p.test))) continue;
      steps += phase_step(p, ini, dirs, prefix, suffix).text;
    }
  }
  return top + steps;
}

}  // namespace iosweep
