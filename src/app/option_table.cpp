// The option table (see option_table.hpp): one row per option of `iosweep run`, in the order
// --help lists them and a recorded configuration holds them.
#include "app/option_table.hpp"

#include <limits>
#include <stdexcept>
#include <tuple>

#include "app/option_convert.hpp"
#include "app/settings.hpp"
#include "model/limits.hpp"

namespace iosweep {
namespace {

std::string phases_help() {
  return "Subset of " + phase_names() +
         "; always run in that order; md names the metadata phases (" + metadata_phase_names() +
         ") (default: all but ship-count and the metadata phases)";
}
std::string engines_help() {
  std::string s = "I/O engine:";
  for (const auto& e : engine_descs())
    s += std::string(e.id == 0 ? " " : "; ") + e.name + " (" + e.help + ")";
  return s + ". Compiled in: " + compiled_engines();
}
std::string streams_help() {
  return " (" + engines_taking(kTakesDepth) + "; sets the depth instead of --iodepth)";
}
std::string depth_help() {
  return " (" + engines_taking(kTakesDepth) + "; at most " + std::to_string(kMaxIodepth) + ")";
}
std::string collective_help() {
  return " (" + engines_taking(kTakesCollective) + ")";
}
std::string sqpoll_help() {
  return " (" + engines_taking(kTakesSqpoll) + ")";
}
std::string hints_help() {
  return " (" + engines_taking(kTakesHints) + ")";
}

const char* layout_name(const Workload& w) {
  return w.shared() ? "shared" : "per-rank";
}

// What iosweep-compare compares of --dir: how many folders the ranks were spread over (one per
// drive). Their paths are not a setting: a rerun in another folder of the same file system
// measures the same thing, and the file system itself is compared (fs_type).
std::string folder_count(const Config& c) {
  return std::to_string(c.work.dirs.size());
}

using V = const OptionValue&;
using R = RunAttributes&;

const OptionRow kOptions[] = {
    {.name = "dir",
     .metavar = "DIR[,DIR...]",
     .help = "Target folders, the same list on every node, one per drive (/nvme0/b,/nvme1/b: a "
             "comma always separates two): a node's ranks take them round-robin by their index "
             "within the node, and every active rank writes <its folder>/iosweep.<run-id>."
             "<position> (required; --file-layout shared takes one folder, where its one file "
             "is)",
     .form = OptionForm::list,
     .set = [](V v, Config& c) { c.work.dirs = dirs_of(v); },
     .record = [](const Config& c, R a) { a.text("dir", joined_dirs(c.work)); },
     .compare = {.phases = PhaseScope::all, .what = "--dir folders", .value = &folder_count}},
    {.name = "file-size",
     .metavar = "SIZE",
     .help = "Bytes per rank's file, as IOzone -s (4k, 16m, 1g: binary units)",
     .fallback = "1g",
     .set = [](V v, Config& c) { c.work.file_size = v.size(); },
     .record = [](const Config& c, R a) { a.u64("file_size_bytes", c.work.file_size); },
     .compare = {.phases = PhaseScope::data, .what = "file size"}},
    {.name = "seq-record",
     .metavar = "SIZE",
     .help = "Record size of seq-write and seq-read: any byte size through the page cache "
             "(IOR's -t 47008), a multiple of the device's logical block with --direct; "
             "--file-size holds whole records",
     .fallback = "16m",
     .set = [](V v, Config& c) { c.work.seq_record = v.size(); },
     .record = [](const Config& c, R a) { a.u64("seq_record_bytes", c.work.seq_record); },
     .compare = {.phases = PhaseScope::seq_records, .what = "sequential record"}},
    {.name = "rand-record",
     .metavar = "SIZE",
     .help = "Record size of rand-write and rand-read (any byte size, as --seq-record), at "
             "multiples of itself",
     .fallback = "4k",
     .set = [](V v, Config& c) { c.work.rand_record = v.size(); },
     .record = [](const Config& c, R a) { a.u64("rand_record_bytes", c.work.rand_record); },
     .compare = {.phases = PhaseScope::rand_records, .what = "random record"}},
    {.name = "scan-record",
     .metavar = "SIZE",
     .help = "Read size of filter-count: auto = 1 MiB (counted while in L2), or --seq-record with "
             "--direct or where 1 MiB does not divide the file (or a strided block); a multiple "
             "of 8 bytes (whole 64-bit words are counted)",
     .fallback = "auto",
     // auto (0 here) is resolved with --direct and --seq-record (app/config_build.cpp).
     .set = [](V v, Config& c) { c.work.scan_record = v.text() == "auto" ? 0 : v.size(); },
     .record = [](const Config& c, R a) { a.u64("scan_record_bytes", c.work.scan_record); },
     .compare = {.phases = PhaseScope::scan_records, .what = "scan record"}},
    {.name = "phases",
     .metavar = "LIST",
     .help = "",
     .form = OptionForm::list,
     .set = [](V v, Config& c) { c.work.phases = phases_of(v); },
     .record = [](const Config& c, R a) { a.text("phases", phase_list(c.work.phases)); },
     .help_from_tables = &phases_help},
    {.name = "ranks",
     .metavar = "LIST",
     .help = "Active rank counts, strictly increasing, e.g. 1,2,4 (instead of --sweep)",
     .form = OptionForm::list,
     .setting = "points",
     .set = [](V v, Config& c) { c.sweep.ranks = rank_counts_of(v); }},
    {.name = "sweep",
     .metavar = "MIN:MAX",
     .help = "MIN:MAX: MIN, the powers of two above it, capped at the world size, and the cap "
             "itself (default 1:<world size>)",
     .setting = "points",
     .set = [](V v, Config& c) { sweep_of(v, c.sweep); }},
    {.name = "streams",
     .metavar = "LIST|MIN:MAX",
     .help = "Sweep streams instead of ranks: s streams = k active ranks (min(s, world size)) x "
             "depth s/k each, as IOzone sweeps threads; a list strictly increasing (1,64,1024) or "
             "MIN:MAX (MIN, the powers of two above it, MAX). Sequential phases split each file "
             "into depth regions streamed side by side",
     .setting = "points",
     .set = [](V v, Config& c) { c.sweep.streams = streams_of(v); },
     .record = [](const Config& c,
                  R a) { a.text("sweep_axis", c.sweep.streams.empty() ? "ranks" : "streams"); },
     .compare = {.phases = PhaseScope::all, .what = "sweep axis"},
     .help_from_tables = &streams_help},
    {.name = "placement",
     .metavar = "MODE",
     .help = "spread: activate ranks round-robin across nodes; block: in rank order",
     .fallback = "spread",
     .set =
         [](V v, Config& c) {
           c.sweep.placement =
               v.choice<Placement>({{"spread", Placement::spread}, {"block", Placement::block}});
         },
     .record =
         [](const Config& c, R a) {
           a.text("placement", c.sweep.placement == Placement::spread ? "spread" : "block");
         },
     .compare = {.phases = PhaseScope::all, .what = "placement"},
     .whole_run = true},
    {.name = "repetitions",
     .metavar = "N",
     .help = "Run every point this many times",
     .fallback = "1",
     .set = [](V v,
               Config& c) { c.sweep.repetitions = static_cast<int>(v.count(1, kMaxRepetitions)); },
     .record = [](const Config& c, R a) { a.integer("repetitions", c.sweep.repetitions); }},
    {.name = "seed",
     .metavar = "N",
     .help = "Seed of the data pattern (the bytes of every file)",
     .fallback = "42",
     .set = [](V v, Config& c) { c.work.seed = v.u64(); },
     .record = [](const Config& c, R a) { a.u64("seed", c.work.seed); },
     .whole_run = true},
    {.name = "order-seed",
     .metavar = "N",
     .help = "Pin the random phases' record orders (default: a new order every run; repetitions "
             "and points always differ)",
     .set =
         [](V v, Config& c) {
           c.work.order_seed_pinned = !v.unset();
           if (!v.unset()) c.work.order_seed = v.u64();
         },
     .record = [](const Config& c, R a) { a.flag("order_seed_pinned", c.work.order_seed_pinned); },
     .whole_run = true},
    {.name = "filter-key",
     .metavar = "N",
     .help = "The 64-bit value filter-count counts (decimal or 0x hex)",
     .fallback = "0xfeedfacecafebeef",
     .set = [](V v, Config& c) { c.work.filter_key = v.u64(); },
     .record = [](const Config& c, R a) { a.u64("filter_key", c.work.filter_key); },
     .compare = {.phases = PhaseScope::all},
     .whole_run = true},
    {.name = "filter-every",
     .metavar = "N",
     .help = "One planted key every N 64-bit words (N >= 2)",
     .fallback = "1048576",
     .set =
         [](V v, Config& c) {
           c.work.filter_every =
               v.count(kMinFilterEvery, std::numeric_limits<std::uint64_t>::max() / 2);
         },
     .record = [](const Config& c, R a) { a.u64("filter_every_words", c.work.filter_every); },
     .compare = {.phases = PhaseScope::counts, .what = "filter every"},
     .whole_run = true},
    {.name = "filter-kernel",
     .metavar = "NAME",
     .help = "Count kernel: auto, avx512, avx2 or scalar",
     .fallback = "auto",
     .set =
         [](V v, Config& c) {
           if (!parse_filter_kernel(v.text(), c.work.filter_kernel))
             v.refuse("'" + printable(v.text()) + "' is not auto, avx512, avx2 or scalar");
         },
     // The kernel this machine resolves the choice to.
     .record =
         [](const Config& c, R a) {
           a.text("filter_kernel", filter_kernel_name(resolve_filter_kernel(c.work.filter_kernel)));
         },
     .compare = {.phases = PhaseScope::counts, .what = "filter kernel"}},
    {.name = "file-layout",
     .metavar = "LAYOUT",
     .help = "per-rank: one file per rank (N-to-N); shared: one file for the active ranks of a "
             "point (N-to-1, IOR without -F), in the one folder of --dir",
     .fallback = "per-rank",
     .set =
         [](V v, Config& c) {
           c.work.layout = v.choice<FileLayout>(
               {{"per-rank", FileLayout::per_rank}, {"shared", FileLayout::shared}});
         },
     .record = [](const Config& c, R a) { a.text("file_layout", layout_name(c.work)); },
     .compare = {.phases = PhaseScope::all, .what = "file layout"}},
    {.name = "shared-pattern",
     .metavar = "PATTERN",
     .help = "--file-layout shared: segmented (each rank's bytes contiguous: IOR's -b file-size "
             "-s 1) or strided (blocks of --seq-record interleaved rank by rank: IOR's -b = -t "
             "with -s segments, as IO500's ior-hard)",
     .fallback = "segmented",
     .set =
         [](V v, Config& c) {
           c.work.shared_pattern = v.choice<SharedPattern>(
               {{"segmented", SharedPattern::segmented}, {"strided", SharedPattern::strided}});
         },
     .record =
         [](const Config& c, R a) {
           a.text("shared_pattern", !c.work.shared() ? ""
                                    : c.work.shared_pattern == SharedPattern::segmented
                                        ? "segmented"
                                        : "strided");
         },
     .compare = {.phases = PhaseScope::all, .what = "shared pattern"}},
    {.name = "collector",
     .metavar = "MODE",
     .help = "ship-count: next-node (each rank sends to a rank on another node) or rank0 (all to "
             "rank 0)",
     .fallback = "next-node",
     .set =
         [](V v, Config& c) {
           c.work.collector = v.choice<Collector>(
               {{"next-node", Collector::next_node}, {"rank0", Collector::rank0}});
         },
     .record =
         [](const Config& c, R a) {
           a.text("collector", c.work.collector == Collector::rank0 ? "rank0" : "next-node");
         },
     .compare = {.phases = PhaseScope::ships, .what = "collector"}},
    {.name = "md-items",
     .metavar = "N",
     .help = "Metadata phases: items each active rank makes (mdtest -n), split over its streams "
             "(default 1024, unless --md-items-total is given)",
     .setting = "md-items",
     .set = [](V v, Config& c) { c.work.md.items = v.unset() ? 0 : v.count(1, kMaxMdItems); },
     .record = [](const Config& c, R a) { a.u64("md_items", c.work.md.items); },
     .compare = {.phases = PhaseScope::metadata, .what = "metadata items per rank"}},
    {.name = "md-items-total",
     .metavar = "N",
     .help = "Metadata phases: N items at every point, divided over its active ranks (the first N "
             "mod ranks one more), as the PixStor study divides 2^21 files over its threads; "
             "instead of --md-items",
     .setting = "md-items",
     .set = [](V v, Config& c) { c.work.md.items_total = v.unset() ? 0 : v.count(1, kMaxMdItems); },
     .record = [](const Config& c, R a) { a.u64("md_items_total", c.work.md.items_total); },
     .compare = {.phases = PhaseScope::metadata, .what = "metadata items in all"}},
    {.name = "md-items-per-folder",
     .metavar = "N",
     .help = "Metadata phases: at most N of a stream's items in one folder (mdtest -I); 0 spreads "
             "them evenly over the folders that hold items",
     .fallback = "0",
     .set = [](V v, Config& c) { c.work.md.per_folder = v.count(0, kMaxMdItems); },
     .record = [](const Config& c, R a) { a.u64("md_items_per_folder", c.work.md.per_folder); },
     .compare = {.phases = PhaseScope::metadata, .what = "items per folder"}},
    {.name = "md-depth",
     .metavar = "N",
     .help = "Metadata phases: levels of folders below each tree's top folder (mdtest -z)",
     .fallback = "0",
     .set = [](V v,
               Config& c) { c.work.md.depth = static_cast<unsigned>(v.count(0, kMaxMdDepth)); },
     .record = [](const Config& c, R a) { a.integer("md_depth", c.work.md.depth); },
     .compare = {.phases = PhaseScope::metadata, .what = "tree depth"}},
    {.name = "md-branch",
     .metavar = "N|auto",
     .help = "Metadata phases: children per folder (mdtest -b); auto: the fewest that give every "
             "item a folder at --md-items-per-folder, point by point (1 without it)",
     .fallback = "auto",
     .set =
         [](V v, Config& c) {
           c.work.md.branch = v.text() == "auto" ? 0 : v.count(1, kMaxMdFolders);
         },
     .record = [](const Config& c, R a) { a.u64("md_branch", c.work.md.branch); },
     .compare = {.phases = PhaseScope::metadata, .what = "tree branch"}},
    {.name = "md-layout",
     .metavar = "LAYOUT",
     .help = "Metadata phases: private (a tree per stream, as mdtest -u: IO500's easy) or shared "
             "(one tree for every rank, made by the first: IO500's hard)",
     .fallback = "private",
     .set =
         [](V v, Config& c) {
           c.work.md.shared = v.choice<bool>({{"private", false}, {"shared", true}});
         },
     .record = [](const Config& c,
                  R a) { a.text("md_layout", c.work.md.shared ? "shared" : "private"); },
     .compare = {.phases = PhaseScope::metadata, .what = "metadata layout"}},
    {.name = "md-files",
     .metavar = "WHERE",
     .help = "Metadata phases: leaf (items only in the leaf folders, mdtest -L) or all (in every "
             "folder of the tree, its top included)",
     .fallback = "leaf",
     .set =
         [](V v, Config& c) {
           c.work.md.leaf_only = v.choice<bool>({{"leaf", true}, {"all", false}});
         },
     .record = [](const Config& c,
                  R a) { a.text("md_files", c.work.md.leaf_only ? "leaf" : "all"); },
     .compare = {.phases = PhaseScope::metadata, .what = "items in"}},
    {.name = "md-write-bytes",
     .metavar = "SIZE",
     .help = "Metadata phases: bytes md-create writes into each item (mdtest -w); 0: empty items",
     .fallback = "0",
     .set = [](V v, Config& c) { c.work.md.write_bytes = item_bytes_of(v); },
     .record = [](const Config& c, R a) { a.u64("md_write_bytes", c.work.md.write_bytes); },
     .compare = {.phases = PhaseScope::metadata, .what = "bytes written per item"}},
    {.name = "md-read-bytes",
     .metavar = "SIZE",
     .help = "Metadata phases: bytes md-read reads from each item (mdtest -e); at most "
             "--md-write-bytes",
     .fallback = "0",
     .set = [](V v, Config& c) { c.work.md.read_bytes = item_bytes_of(v); },
     .record = [](const Config& c, R a) { a.u64("md_read_bytes", c.work.md.read_bytes); },
     .compare = {.phases = PhaseScope::metadata, .what = "bytes read per item"}},
    {.name = "md-fsync",
     .metavar = "",
     .help = "Metadata phases: md-create fsyncs each item before closing it, inside the window "
             "(mdtest -y)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.md.fsync = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("md_fsync", c.work.md.fsync); },
     .compare = {.phases = PhaseScope::metadata, .what = "fsync per item"}},
    {.name = "md-sync",
     .metavar = "",
     .help = "Metadata phases: every rank ends each window with sync() of every file system, "
             "inside the window (mdtest -Y, which IO500's write phases use)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.md.sync = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("md_sync", c.work.md.sync); },
     .compare = {.phases = PhaseScope::metadata, .what = "sync after each window"}},
    {.name = "find-newer",
     .metavar = "FILE",
     .help = "find counts only files changed (ctime, in seconds) at or after this file's; "
             "timestamp makes it (pfind -newer)",
     .set = [](V v, Config& c) { c.work.find.newer = v.unset() ? std::string() : v.text(); },
     .record = [](const Config& c, R a) { a.text("find_newer", c.work.find.newer); },
     .compare = {.phases = PhaseScope::metadata, .what = "find's reference file"}},
    {.name = "find-size",
     .metavar = "SIZE",
     .help = "find counts only files of exactly this many bytes, a decimal count (pfind -size Nc)",
     .set =
         [](V v, Config& c) {
           c.work.find.size_given = !v.unset();
           c.work.find.size = v.unset() ? 0 : v.u64();
         },
     .record = [](const Config& c, R a) { a.u64("find_size", c.work.find.size); },
     .compare = {.phases = PhaseScope::metadata, .what = "find's file size"}},
    {.name = "find-name",
     .metavar = "PATTERN",
     .help = "find counts only files whose name matches this shell pattern, e.g. '*01*' "
             "(pfind -name); the others are examined without a stat",
     .fallback = "*",
     .set = [](V v, Config& c) { c.work.find.name = v.text(); },
     .record = [](const Config& c, R a) { a.text("find_name", c.work.find.name); },
     .compare = {.phases = PhaseScope::metadata, .what = "find's name pattern"}},
    {.name = "rated-bw",
     .metavar = "RATE[,RATE]",
     .help = "Rated bandwidth of each rank's device, e.g. 5.2GB/s (bytes, decimal), 3GiB/s "
             "(binary) or 40Gb/s (bits), or two ceilings (5.2GB/s,3.4GB/s: sequential, and random "
             "from the rated IOPS); adds percent of rated per drive to every data row (a random "
             "phase against the second) and to the filter-count report (a range with two)",
     .form = OptionForm::list,
     .set =
         [](V v, Config& c) {
           std::tie(c.report.rated_bw_Bps, c.report.rated_bw2_Bps) = rates_of(v);
         },
     .record =
         [](const Config& c, R a) {
           a.real("rated_bw_Bps", c.report.rated_bw_Bps);
           a.real("rated_bw2_Bps", c.report.rated_bw2_Bps);
         },
     .whole_run = true},
    {.name = "rated-iops",
     .metavar = "IOPS",
     .help = "Rated operations per second of each rank's device (the data sheet's random 4 KiB "
             "figure), e.g. 1.5M, 800k or 1500000IOPS (k, M, G decimal); adds percent of rated "
             "IOPS per drive to every data row and to the filter-count report",
     .set = [](V v, Config& c) { c.report.rated_iops = iops_of(v); },
     .record = [](const Config& c, R a) { a.real("rated_iops", c.report.rated_iops); },
     .whole_run = true},
    {.name = "fsync",
     .metavar = "[LIST]",
     .help = "fsync inside the timed window of every writing phase (as IOzone -e), or of the "
             "writing phases listed; none: no fsync; close is always timed (as -c)",
     .fallback = "none",
     .form = OptionForm::optional,
     .bare = "all",
     .set = [](V v, Config& c) { c.work.fsync_phases = fsync_phases_of(v); },
     .record =
         [](const Config& c, R a) {
           a.flag("fsync", !c.work.fsync_phases.empty());
           a.text("fsync_phases", phase_list(c.work.fsync_phases));
         },
     .compare = {.phases = PhaseScope::fsynced, .what = "fsync phases", .shown = "fsync_phases"}},
    {.name = "preallocate",
     .metavar = "",
     .help = "Create and fallocate seq-write's file before its timed window (default: block "
             "allocation is paid inside the window, as IOR, IOzone and fio pay it)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.preallocate = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("preallocate", c.work.preallocate); },
     .compare = {.phases = PhaseScope::creates, .what = "preallocate"}},
    {.name = "keep",
     .metavar = "",
     .help = "Keep the files at the end, as IOzone -w (default: remove the files this run created)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set =
         [](V v, Config& c) {
           c.work.keep = v.flag();
           if (c.work.keep)
             c.report.keep_from =
                 v.source() == ValueSource::preset || v.source() == ValueSource::step
                     ? "keep = true in --config"
                 : v.source() == ValueSource::stored_run ? "keep = true in the run --rerun repeats"
                                                         : "--keep";
         },
     .record = [](const Config& c, R a) { a.flag("keep", c.work.keep); },
     .whole_run = true},
    {.name = "engine",
     .metavar = "NAME",
     .help = "",
     .fallback = "posix",
     .set =
         [](V v, Config& c) {
           const EngineDesc* e = find_engine_desc(v.text());
           if (e == nullptr)
             v.refuse("unknown engine '" + printable(v.text()) + "'; choose from " +
                      compiled_engines());
           if (!e->compiled)
             v.refuse(v.text() + " is not compiled into this build (have: " + compiled_engines() +
                      ")");
           c.io.engine = e->id;
         },
     .record = [](const Config& c, R a) { a.text("engine_name", engine_desc(c.io.engine).name); },
     .compare = {.phases = PhaseScope::all, .what = "engine"},
     .help_from_tables = &engines_help},
    {.name = "iodepth",
     .metavar = "N",
     .help = "Requests in flight per rank",
     .fallback = "1",
     .set = [](V v, Config& c) { c.io.iodepth = static_cast<unsigned>(v.count(1, kMaxIodepth)); },
     .record = [](const Config& c, R a) { a.integer("iodepth", c.io.iodepth); },
     .compare = {.phases = PhaseScope::all},
     .help_from_tables = &depth_help},
    {.name = "iodepth-batch",
     .metavar = "N",
     .help = "io_uring: requests handed to the kernel per system call (fio's iodepth_batch_submit)",
     .fallback = "1",
     .set = [](V v,
               Config& c) { c.io.iodepth_batch = static_cast<unsigned>(v.count(1, kMaxIodepth)); },
     .record = [](const Config& c, R a) { a.integer("iodepth_batch", c.io.iodepth_batch); },
     .compare = {.phases = PhaseScope::all}},
    {.name = "direct",
     .metavar = "",
     .help = "O_DIRECT on every open (bypass the page cache)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.io.direct = v.flag(); },
     .record =
         [](const Config& c, R a) {
           a.flag("direct", c.io.direct);
           a.integer("direct_alignment_bytes", static_cast<std::int64_t>(c.work.direct_alignment));
         },
     .compare = {.phases = PhaseScope::all, .what = "O_DIRECT"}},
    {.name = "hugepages",
     .metavar = "",
     .help = "Advise I/O buffers for transparent huge pages (fewer DMA segments; fio and IOR use "
             "plain pages)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.hugepages = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("hugepages", c.work.hugepages); },
     .compare = {.phases = PhaseScope::all, .what = "hugepages"}},
    {.name = "mpiio-collective",
     .metavar = "",
     .help = "MPI-IO on a shared file with collective calls (MPI_File_write_at_all, read_at_all), "
             "one request at a time",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.io.collective = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("mpiio_collective", c.io.collective); },
     .compare = {.phases = PhaseScope::all, .what = "collective MPI-IO"},
     .help_from_tables = &collective_help},
    {.name = "sqpoll",
     .metavar = "",
     .help = "Kernel submission thread, takes a core",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.io.sqpoll = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("sqpoll", c.io.sqpoll); },
     .compare = {.phases = PhaseScope::all},
     .help_from_tables = &sqpoll_help},
    {.name = "mpiio-hint",
     .metavar = "KEY=VALUE[,...]",
     .help = "MPI_Info hints, key=value[,key=value...] (a comma not followed by a key= stays "
             "in its value, as in cb_config_list=n1:1,n2:1)",
     .form = OptionForm::list,
     .set = [](V v, Config& c) { c.io.mpiio_hints = hints_of(v); },
     .record =
         [](const Config& c, R a) {
           std::string hints;
           for (const auto& [k, val] : c.io.mpiio_hints)
             hints += (hints.empty() ? "" : ",") + k + "=" + val;
           a.text("mpiio_hints", hints);
         },
     .compare = {.phases = PhaseScope::all, .what = "MPI-IO hints"},
     .help_from_tables = &hints_help},
    {.name = "cache",
     .metavar = "MODE",
     .help = "drop: fsync + fadvise(DONTNEED) every file before each reading phase (untimed); "
             "keep: read through the page cache",
     .fallback = "drop",
     .set =
         [](V v, Config& c) {
           c.work.cache =
               v.choice<CacheMode>({{"drop", CacheMode::drop}, {"keep", CacheMode::keep}});
         },
     .record = [](const Config& c,
                  R a) { a.text("cache", c.work.cache == CacheMode::drop ? "drop" : "keep"); },
     .compare = {.phases = PhaseScope::all, .what = "cache"}},
    {.name = "wire-interface",
     .metavar = "auto|none|IF[,IF]",
     .help = "Interfaces whose byte counters say whether a phase's bytes crossed the wire to the "
             "storage servers (the wire table, wire N% in the notes): auto: the interface of "
             "each node's route to the server its mount names (every InfiniBand port for "
             "Lustre over o2ib; none for a file system on a local device); or network "
             "interfaces by name and InfiniBand ports as ib:DEVICE:PORT; none: do not sample",
     .fallback = "auto",
     .form = OptionForm::list,
     .set =
         [](V v, Config& c) {
           const std::vector<std::string> names = v.list();
           c.work.wire_off = names == std::vector<std::string>{"none"};
           c.work.wire_interfaces.clear();
           if (c.work.wire_off || names == std::vector<std::string>{"auto"}) return;
           for (const auto& n : names) {
             if (n == "auto" || n == "none") v.refuse("auto and none stand alone, not in a list");
             if (n.size() > 63 || n.find_first_of("/ \t\n=") != std::string::npos)
               v.refuse("'" + printable(n) + "' is not an interface name");
             c.work.wire_interfaces.push_back(n);
           }
         },
     .record =
         [](const Config& c, R a) {
           std::string s;
           for (const auto& n : c.work.wire_interfaces)
             s += (s.empty() ? "" : ",") + n;
           a.text("wire_interface", c.work.wire_off ? "none" : s.empty() ? "auto" : s);
         },
     .compare = {.phases = PhaseScope::all},
     .whole_run = true},
    {.name = "read-shift",
     .metavar = "K|auto",
     .help = "Reading phases: position i reads the file of position (i+K) mod k, as IOR -C; auto: "
             "smallest K that puts every reader on another node",
     .fallback = "0",
     .set =
         [](V v, Config& c) {
           c.work.read_shift_auto = v.text() == "auto";
           c.work.read_shift = c.work.read_shift_auto ? 0 : static_cast<int>(v.count(0, kMaxRanks));
         },
     .record =
         [](const Config& c, R a) {
           a.integer("read_shift", c.work.read_shift);
           a.flag("read_shift_auto", c.work.read_shift_auto);
         },
     .compare = {.phases = PhaseScope::all, .what = "read shift"}},
    {.name = "stonewall",
     .metavar = "SECONDS",
     .help = "Stop issuing operations after SECONDS in every phase; figures count only what "
             "completed",
     .set = [](V v, Config& c) { c.work.stonewall_s = v.unset() ? 0 : v.seconds(); },
     .record = [](const Config& c, R a) { a.real("stonewall_s", c.work.stonewall_s); },
     .compare = {.phases = PhaseScope::all, .what = "stonewall"}},
    {.name = "stonewall-wearout",
     .metavar = "",
     .help = "After the deadline every rank continues, untimed, to the furthest rank's count "
             "(IOR's wear-out)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.stonewall_wearout = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("stonewall_wearout", c.work.stonewall_wearout); },
     .compare = {.phases = PhaseScope::all, .what = "stonewall wear-out"}},
    {.name = "stall-limit",
     .metavar = "SECONDS",
     .help = "An operation (data or metadata, any engine) outstanding this long is a stall: the "
             "run stops, naming rank, host, file and offset, with exit status 3 (at least 1s; "
             "one outstanding 10s is said on stderr and recorded on its row)",
     .fallback = "2min",
     .set =
         [](V v, Config& c) {
           c.work.stall_limit_s = v.seconds();
           if (c.work.stall_limit_s < kMinStallLimitS) v.refuse("must be at least 1s");
         },
     .record = [](const Config& c, R a) { a.real("stall_limit_s", c.work.stall_limit_s); }},
    {.name = "stall-wait",
     .metavar = "",
     .help = "Wait for ever on a stall instead of stopping: it is said on stderr and on the "
             "progress line, and its length recorded on its row (stall_s)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.stall_wait = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("stall_wait", c.work.stall_wait); }},
    {.name = "timeseries-bin",
     .metavar = "SECONDS",
     .help = "Time-series bin width (bytes, operations and latency per bin, per rank; at least "
             "1ms)",
     .fallback = "100ms",
     .set =
         [](V v, Config& c) {
           c.work.timeseries_bin_s = v.seconds();
           if (c.work.timeseries_bin_s < kMinTimeseriesBinS) v.refuse("must be at least 1ms");
         },
     .record = [](const Config& c, R a) { a.real("timeseries_bin_s", c.work.timeseries_bin_s); }},
    {.name = "verify",
     .metavar = "",
     .help = "Check every block read (stamp, pattern, keys); time spent is inside the timed "
             "window and reported as verify",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.work.verify = v.flag(); },
     .record = [](const Config& c, R a) { a.flag("verify", c.work.verify); },
     .compare = {.phases = PhaseScope::all, .what = "verify"}},
    {.name = "quiet",
     .metavar = "",
     .help = "No live progress on stderr",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.report.quiet = v.flag(); },
     .whole_run = true},
    {.name = "show-controls",
     .metavar = "",
     .help = "Also print the rows of control phases (scan-only, filter-count's baseline)",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.report.show_controls = v.flag(); },
     .whole_run = true},
    {.name = "force",
     .metavar = "",
     .help = "Run even when --dir lacks the free space the largest point needs",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.force = v.flag(); },
     .whole_run = true},
    {.name = "format",
     .metavar = "FORMAT",
     .help = "table, or iozone: also print IOzone-style throughput blocks",
     .fallback = "table",
     .set =
         [](V v, Config& c) {
           c.report.iozone_format = v.choice<bool>({{"table", false}, {"iozone", true}});
         },
     .whole_run = true},
    {.name = "reuse",
     .metavar = "RUN_ID",
     .help = "Use the files an earlier run kept with --keep (its run id; same --dir, --file-size, "
             "--seed): read them, or rewrite them in place with rand-write; never removed",
     .set =
         [](V v, Config& c) {
           if (v.text().find_first_of("/ \t") != std::string::npos)
             v.refuse("'" + printable(v.text()) + "' is not a run id");
           c.work.reuse_run = v.text();
         },
     .record = [](const Config& c, R a) { a.text("reuse_run", c.work.reuse_run); },
     .whole_run = true},
    {.name = "output",
     .metavar = "FILE",
     .help = "HDF5 results file; the run is appended (the default's folder, results/ in the "
             "working folder, is made when missing)",
     .fallback = "results/iosweep.h5",
     .set =
         [](V v, Config& c) {
           c.report.output = v.text();
           c.report.output_is_default = v.source() == ValueSource::fallback;
         },
     .whole_run = true},
    {.name = "label",
     .metavar = "TEXT",
     .help = "Free text stored with the run",
     .set = [](V v, Config& c) { c.report.label = v.text(); },
     .record = [](const Config& c, R a) { a.text("label", c.report.label); },
     .whole_run = true},
    {.name = "dry-run",
     .metavar = "",
     .help = "Validate, print the plan (points, files, bytes per phase) and touch nothing",
     .fallback = "false",
     .form = OptionForm::flag,
     .set = [](V v, Config& c) { c.dry_run = v.flag(); },
     .whole_run = true},
};

}  // namespace

std::span<const OptionRow> option_table() {
  return kOptions;
}

const OptionRow* find_option(std::string_view name) {
  for (const auto& r : kOptions)
    if (name == r.name) return &r;
  return nullptr;
}

std::size_t option_index(const OptionRow& row) {
  const auto i = static_cast<std::size_t>(&row - kOptions);
  if (i >= std::size(kOptions)) throw std::logic_error("not a row of the option table");
  return i;
}

RunAttributes record_options(const Config& c) {
  RunAttributes out;
  for (const auto& r : kOptions)
    if (r.record != nullptr) r.record(c, out);
  out.text("settings", run_settings_toml(c));
  return out;
}

}  // namespace iosweep
