// Reading one run back from a results file (see run_record.hpp).
#include "output/run_record.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "core/errors.hpp"
#include "output/hdf5_file.hpp"

namespace iosweep {
namespace {

// The strings of a 1-D dataset of variable-length strings (a run's `hosts`).
std::vector<std::string> read_strings(hid_t parent, const char* name) {
  h5::Handle ds =
      h5::check(H5Dopen2(parent, name, H5P_DEFAULT), H5Dclose, std::string("opening ") + name);
  h5::Handle space = h5::check(H5Dget_space(ds.get()), H5Sclose, "space");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  std::vector<std::string> out;
  if (n == 0) return out;
  h5::Handle type = h5::check(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
  h5::check_status(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()),
                   std::string("reading ") + name);
  for (const char* p : ptrs)
    out.emplace_back(p != nullptr ? p : "");
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, ptrs.data());
  return out;
}

// The rows of table `t` of a run group, when it has one.
template <class Row>
void read_table(hid_t g, const TableDesc& t, std::vector<Row>& out) {
  if (H5Lexists(g, t.name, H5P_DEFAULT) <= 0) return;
  hsize_t n = 0;
  const std::vector<std::byte> rows = h5::read_rows(g, t, n);
  out.resize(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(out.data(), rows.data(), rows.size());
}

std::string status_name(std::uint8_t value) {
  for (const auto& m : status_members())
    if (m.value == value) return m.name;
  return "status " + std::to_string(value);
}

// Runs recorded before iosweep wrote fsync="none" for a run without --fsync stored --fsync's
// bare value, "all"; the run's fsync_phases attribute says what ran.
void correct_fsync(hid_t g, std::string& toml) {
  std::string phases;
  const std::string all = "fsync=\"all\"\n";
  const auto at = toml.find(all);
  if (at == std::string::npos || (at != 0 && toml[at - 1] != '\n')) return;
  if (h5::read_attr(g, "fsync_phases", phases) && phases.empty())
    toml.replace(at, all.size(), "fsync=\"none\"\n");
}

// The run group and its record, the file being iosweep's and the run listed in /run_index.
std::string read_run(hid_t f, const std::string& q, const RunIndexRow& row, RunRecord& out) {
  out.run_id.assign(row.run_id, strnlen(row.run_id, sizeof row.run_id));
  out.t_start_unix_ns = row.t_start_unix_ns;
  out.world_size = static_cast<int>(row.world_size);
  out.n_nodes = static_cast<int>(row.n_nodes);
  out.status = status_name(row.status);
  h5::Handle g(H5Gopen2(f, ("runs/" + out.run_id).c_str(), H5P_DEFAULT), H5Gclose);
  if (!g) return q + " lists run " + out.run_id + " but has no group /runs/" + out.run_id;
  if (!h5::read_attr(g.get(), "config", out.config_toml) || out.config_toml.empty())
    return q + ": run " + out.run_id + " has no stored configuration (no 'config' attribute)";
  correct_fsync(g.get(), out.config_toml);
  h5::read_attr(g.get(), "argv", out.argv);
  h5::read_attr(g.get(), "label", out.label);
  h5::read_attr(g.get(), "rerun_of", out.rerun_of);
  if (H5Lexists(g.get(), "hosts", H5P_DEFAULT) > 0) out.hosts = read_strings(g.get(), "hosts");
  read_table(g.get(), rank_map_table(), out.rank_map);
  read_table(g.get(), mounts_table(), out.mounts);
  return {};
}

}  // namespace

std::string read_run_record(const std::string& path, const std::string& run_id, RunRecord& out) {
  out = {};
  if (path.empty()) return "empty file name";
  const std::string q = "'" + printable(path) + "'";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return errno == ENOENT ? q + " does not exist" : q + ": " + describe_errno(errno);
  if (S_ISLNK(st.st_mode)) return q + " is a symbolic link; give the results file itself";
  if (S_ISDIR(st.st_mode)) return q + " is a folder, not a results file";
  if (!S_ISREG(st.st_mode)) return q + " is not a regular file";
  h5::quiet_errors();
  std::optional<h5::FileLock> lock;  // waits for a run writing to it right now
  try {
    lock.emplace(path, h5::FileLock::Mode::read);
  } catch (const h5::LockTimeout& e) {
    return e.what();
  } catch (const IoError& e) {
    return q + " cannot be read: " + describe_errno(e.err());
  }
  const std::string not_ours = " is not an iosweep results file";
  if (lock->was_empty()) return q + " is empty, not an iosweep results file";
  if (H5Fis_hdf5(path.c_str()) <= 0) return q + not_ours + " (not an HDF5 file)";
  h5::Handle f = h5::open_read_only(path);
  if (!f) return q + " cannot be opened as an HDF5 file";
  std::string schema;
  if (!h5::read_attr(f.get(), "schema", schema) || schema != kSchemaName)
    return q + not_ours +
           (schema.empty() ? std::string(" (no 'schema' attribute)")
                           : " (schema '" + printable(schema) + "')");
  std::int64_t version = 0;
  if (!h5::read_attr(f.get(), "schema_version", version) || version > kSchemaVersion)
    return q + " has results schema version " + std::to_string(version) + ", newer than this " +
           "iosweep's " + std::to_string(kSchemaVersion) + "; use a newer iosweep";
  try {
    if (H5Lexists(f.get(), run_index_table().name, H5P_DEFAULT) <= 0)
      return q + not_ours + " (no /run_index)";
    hsize_t n = 0;
    const std::vector<std::byte> rows = h5::read_rows(f.get(), run_index_table(), n);
    const auto* index = reinterpret_cast<const RunIndexRow*>(rows.data());
    if (n == 0) return q + " holds no runs yet";
    const RunIndexRow* row = run_id.empty() ? &index[n - 1] : nullptr;
    for (hsize_t i = 0; row == nullptr && i < n; ++i)
      if (run_id == std::string(index[i].run_id, strnlen(index[i].run_id, sizeof index[i].run_id)))
        row = &index[i];
    if (row == nullptr) {
      const RunIndexRow& last = index[n - 1];
      return q + " has no run '" + printable(run_id) + "' (" + std::to_string(n) +
             (n == 1 ? " run" : " runs") + "; the latest is " +
             std::string(last.run_id, strnlen(last.run_id, sizeof last.run_id)) + ")";
    }
    return read_run(f.get(), q, *row, out);
  } catch (const std::exception& e) {
    return q + " cannot be read as an iosweep results file (" + printable(e.what()) + ")";
  }
}

}  // namespace iosweep
