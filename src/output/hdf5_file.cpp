// HDF5 helpers (see hdf5_file.hpp).
#include "output/hdf5_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "core/errors.hpp"
#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"
#include "os/file_ops.hpp"

namespace iosweep::h5 {

Handle check(hid_t id, herr_t (*closer)(hid_t), const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5: " + what + " failed");
  return Handle(id, closer);
}

void check_status(herr_t rc, const std::string& what) {
  if (rc < 0) throw std::runtime_error("HDF5: " + what + " failed");
}

void quiet_errors() {
  H5dont_atexit();  // only effective before the library's first use; harmless after
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Handle file_access() {
  Handle fapl = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "libver bounds");
  H5Pset_file_locking(fapl.get(), false, true);
  return fapl;
}

Handle open_file(const std::string& path, bool create) {
  Handle fapl = file_access();
  if (create)
    return check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                 "creating " + path);
  return check(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, "opening " + path);
}

Handle open_read_only(const std::string& path) {
  Handle fapl = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
  H5Pset_file_locking(fapl.get(), false, true);
  return Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
}

namespace {

Handle enum_type(const std::vector<EnumMember>& members) {
  Handle t = check(H5Tenum_create(H5T_NATIVE_UINT8), H5Tclose, "H5Tenum_create");
  for (const auto& m : members)
    check_status(H5Tenum_insert(t.get(), m.name, &m.value), std::string("enum member ") + m.name);
  return t;
}

Handle string_type(std::size_t size) {
  Handle t = check(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  H5Tset_size(t.get(), size);
  H5Tset_strpad(t.get(), H5T_STR_NULLTERM);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

Handle vlen_string_type() {
  return string_type(H5T_VARIABLE);
}

Handle field_type(FieldType t) {
  switch (t) {
    case FieldType::u8:
      return check(H5Tcopy(H5T_NATIVE_UINT8), H5Tclose, "type");
    case FieldType::i32:
      return check(H5Tcopy(H5T_NATIVE_INT32), H5Tclose, "type");
    case FieldType::u32:
      return check(H5Tcopy(H5T_NATIVE_UINT32), H5Tclose, "type");
    case FieldType::u64:
      return check(H5Tcopy(H5T_NATIVE_UINT64), H5Tclose, "type");
    case FieldType::f64:
      return check(H5Tcopy(H5T_NATIVE_DOUBLE), H5Tclose, "type");
    case FieldType::phase_enum:
      return phase_enum_type();
    case FieldType::status_enum:
      return status_enum_type();
    case FieldType::engine_enum:
      return engine_enum_type();
    case FieldType::str64:
      return string_type(64);
    case FieldType::str256:
      return string_type(256);
  }
  throw std::logic_error("unknown field type");
}

}  // namespace

Handle phase_enum_type() {
  std::vector<EnumMember> m;
  for (const auto& d : phase_descs())
    m.push_back({d.enum_name, d.id});
  return enum_type(m);
}
Handle status_enum_type() {
  const auto s = status_members();
  return enum_type({s.begin(), s.end()});
}
Handle engine_enum_type() {
  std::vector<EnumMember> m;
  for (const auto& e : engine_descs())
    m.push_back({e.name, e.id});
  return enum_type(m);
}

Handle compound_type(const TableDesc& table) {
  Handle t = check(H5Tcreate(H5T_COMPOUND, table.row_bytes), H5Tclose, "H5Tcreate");
  for (const auto& f : table.fields) {
    Handle ft = field_type(f.type);
    check_status(H5Tinsert(t.get(), f.name, f.offset, ft.get()), std::string("field ") + f.name);
  }
  return t;
}

void create_table(hid_t parent, const TableDesc& table, hsize_t chunk_rows) {
  Handle type = compound_type(table);
  const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {chunk_rows};
  Handle space = check(H5Screate_simple(1, dims, maxdims), H5Sclose, "dataspace");
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
  H5Pset_chunk(dcpl.get(), 1, chunk);
  Handle ds = check(
      H5Dcreate2(parent, table.name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      H5Dclose, std::string("creating table ") + table.name);
  set_attr(ds.get(), "description", std::string(table.description));
  for (const auto& f : table.fields) {
    set_attr(ds.get(), (std::string(f.name) + ".unit").c_str(), std::string(f.unit));
    set_attr(ds.get(), (std::string(f.name) + ".reduction").c_str(), std::string(f.reduction));
  }
}

hsize_t table_rows(hid_t parent, const char* name) {
  Handle ds = check(H5Dopen2(parent, name, H5P_DEFAULT), H5Dclose, std::string("opening ") + name);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, "space");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  return dims[0];
}

std::vector<std::byte> read_rows(hid_t parent, const TableDesc& table, hsize_t& n) {
  n = table_rows(parent, table.name);
  std::vector<std::byte> rows(static_cast<std::size_t>(n) * table.row_bytes);
  if (n == 0) return rows;
  Handle ds = check(H5Dopen2(parent, table.name, H5P_DEFAULT), H5Dclose,
                    std::string("opening ") + table.name);
  Handle type = compound_type(table);
  check_status(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
               std::string("reading ") + table.name);
  return rows;
}

void append_rows(hid_t parent, const TableDesc& table, const void* rows, std::size_t n) {
  if (n == 0) return;
  Handle ds = check(H5Dopen2(parent, table.name, H5P_DEFAULT), H5Dclose,
                    std::string("opening ") + table.name);
  Handle type = compound_type(table);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, "space");
  hsize_t old[1] = {0};
  H5Sget_simple_extent_dims(space.get(), old, nullptr);
  const hsize_t grown[1] = {old[0] + n}, count[1] = {n};
  check_status(H5Dset_extent(ds.get(), grown), "extending table");
  Handle fspace = check(H5Dget_space(ds.get()), H5Sclose, "space");
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, old, nullptr, count, nullptr);
  Handle mspace = check(H5Screate_simple(1, count, nullptr), H5Sclose, "mspace");
  check_status(H5Dwrite(ds.get(), type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, rows),
               std::string("writing ") + table.name);
}

void write_row(hid_t parent, const TableDesc& table, hsize_t index, const void* row) {
  Handle ds = check(H5Dopen2(parent, table.name, H5P_DEFAULT), H5Dclose,
                    std::string("opening ") + table.name);
  Handle type = compound_type(table);
  Handle fspace = check(H5Dget_space(ds.get()), H5Sclose, "space");
  const hsize_t start[1] = {index}, count[1] = {1};
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
  Handle mspace = check(H5Screate_simple(1, count, nullptr), H5Sclose, "mspace");
  check_status(H5Dwrite(ds.get(), type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, row),
               std::string("updating ") + table.name);
}

void create_matrix_u64(hid_t parent, const char* name, hsize_t width) {
  const hsize_t dims[2] = {0, width}, maxdims[2] = {H5S_UNLIMITED, width}, chunk[2] = {1, width};
  Handle space = check(H5Screate_simple(2, dims, maxdims), H5Sclose, "dataspace");
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
  H5Pset_chunk(dcpl.get(), 2, chunk);
  H5Pset_deflate(dcpl.get(), 1);  // mostly-zero histogram rows shrink well
  check(H5Dcreate2(parent, name, H5T_NATIVE_UINT64, space.get(), H5P_DEFAULT, dcpl.get(),
                   H5P_DEFAULT),
        H5Dclose, std::string("creating ") + name);
}

void append_matrix_u64(hid_t parent, const char* name, const std::vector<std::uint64_t>& row) {
  Handle ds = check(H5Dopen2(parent, name, H5P_DEFAULT), H5Dclose, std::string("opening ") + name);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, "space");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  const hsize_t grown[2] = {dims[0] + 1, dims[1]}, start[2] = {dims[0], 0}, count[2] = {1, dims[1]};
  check_status(H5Dset_extent(ds.get(), grown), "extending matrix");
  Handle fspace = check(H5Dget_space(ds.get()), H5Sclose, "space");
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
  Handle mspace = check(H5Screate_simple(2, count, nullptr), H5Sclose, "mspace");
  check_status(
      H5Dwrite(ds.get(), H5T_NATIVE_UINT64, mspace.get(), fspace.get(), H5P_DEFAULT, row.data()),
      std::string("writing ") + name);
}

void write_vector_u64(hid_t parent, const char* name, const std::vector<std::uint64_t>& v) {
  const hsize_t dims[1] = {v.size()};
  Handle space = check(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle ds = check(H5Dcreate2(parent, name, H5T_NATIVE_UINT64, space.get(), H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT),
                    H5Dclose, std::string("creating ") + name);
  check_status(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
               name);
}

void write_strings(hid_t parent, const char* name, const std::vector<std::string>& v) {
  Handle type = vlen_string_type();
  const hsize_t dims[1] = {v.size()};
  Handle space = check(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle ds = check(
      H5Dcreate2(parent, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, std::string("creating ") + name);
  std::vector<const char*> ptrs;
  ptrs.reserve(v.size());
  for (const auto& s : v)
    ptrs.push_back(s.c_str());
  if (!ptrs.empty())
    check_status(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), name);
}

namespace {

void write_attr(hid_t obj, const char* name, hid_t type, hid_t space, const void* data) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Handle a = check(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                   std::string("attribute ") + name);
  check_status(H5Awrite(a.get(), type, data), std::string("attribute ") + name);
}

Handle scalar_space() {
  return check(H5Screate(H5S_SCALAR), H5Sclose, "scalar");
}

}  // namespace

void set_attr(hid_t obj, const char* name, const std::string& value) {
  Handle type = vlen_string_type();
  const char* p = value.c_str();
  write_attr(obj, name, type.get(), scalar_space().get(), &p);
}

void set_attr(hid_t obj, const char* name, std::int64_t value) {
  write_attr(obj, name, H5T_NATIVE_INT64, scalar_space().get(), &value);
}

void set_attr_u64(hid_t obj, const char* name, std::uint64_t value) {
  write_attr(obj, name, H5T_NATIVE_UINT64, scalar_space().get(), &value);
}

void set_attr(hid_t obj, const char* name, double value) {
  write_attr(obj, name, H5T_NATIVE_DOUBLE, scalar_space().get(), &value);
}

void set_attr(hid_t obj, const char* name, const std::vector<std::int64_t>& values) {
  const hsize_t dims[1] = {values.size()};
  Handle space = check(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  write_attr(obj, name, H5T_NATIVE_INT64, space.get(), values.data());
}

void set_attr_enum(hid_t obj, const char* name, const Handle& type, std::uint8_t value) {
  write_attr(obj, name, type.get(), scalar_space().get(), &value);
}

bool read_attr(hid_t obj, const char* name, std::string& value) {
  if (H5Aexists(obj, name) <= 0) return false;
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!a) return false;
  Handle ftype(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(ftype.get()) != H5T_STRING) return false;
  if (H5Tis_variable_str(ftype.get()) > 0) {
    Handle type = vlen_string_type();
    char* p = nullptr;
    if (H5Aread(a.get(), type.get(), &p) < 0) return false;
    value = p ? p : "";
    Handle space = scalar_space();
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, &p);
    return true;
  }
  std::vector<char> buf(H5Tget_size(ftype.get()) + 1, '\0');
  if (H5Aread(a.get(), ftype.get(), buf.data()) < 0) return false;
  value = buf.data();
  return true;
}

bool read_attr(hid_t obj, const char* name, std::int64_t& value) {
  if (H5Aexists(obj, name) <= 0) return false;
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  return a && H5Aread(a.get(), H5T_NATIVE_INT64, &value) >= 0;
}

std::uint64_t free_bytes(const std::string& path) {
  fsops::Space sp = fsops::space_of(path);
  if (!sp.known) {
    const auto slash = path.find_last_of('/');
    sp = fsops::space_of(slash == std::string::npos ? "."
                                                    : (slash == 0 ? "/" : path.substr(0, slash)));
  }
  return sp.known ? sp.free_bytes : 0;
}

namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// Whether the folder can hold a new file, tried without leaving one: an unnamed temporary file
// (O_TMPFILE) where the file system has them, else the folder's permissions.
std::string can_create_in(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return {};
  }
  if (errno != EOPNOTSUPP && errno != EISDIR) return describe_errno(errno);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return describe_errno(errno);
  return {};
}

// The structure every results file has from its first run on: /run_index (a table with the
// run index's fields) and /runs (a group holding one group per run it lists).
std::string structure_problem(hid_t f) {
  if (H5Lexists(f, run_index_table().name, H5P_DEFAULT) <= 0) return "it has no /run_index";
  if (H5Lexists(f, "runs", H5P_DEFAULT) <= 0) return "it has no /runs group";
  H5O_info_t info{};
  if (H5Oget_info_by_name(f, "runs", &info, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_GROUP)
    return "/runs is not a group";
  Handle ds(H5Dopen2(f, run_index_table().name, H5P_DEFAULT), H5Dclose);
  if (!ds) return "/run_index is not a dataset";
  Handle type(H5Dget_type(ds.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_COMPOUND) return "/run_index is not a table";
  for (const auto& field : run_index_table().fields)
    if (H5Tget_member_index(type.get(), field.name) < 0)
      return std::string("/run_index has no field ") + field.name;
  hsize_t n = 0;
  std::vector<std::byte> rows;
  try {
    rows = read_rows(f, run_index_table(), n);
  } catch (const std::exception&) {
    return "/run_index cannot be read";
  }
  for (hsize_t i = 0; i < n; ++i) {
    const auto* r = reinterpret_cast<const RunIndexRow*>(rows.data() + i * sizeof(RunIndexRow));
    const std::string id(r->run_id, strnlen(r->run_id, sizeof r->run_id));
    if (H5Lexists(f, ("runs/" + id).c_str(), H5P_DEFAULT) <= 0)
      return "/run_index lists run " + id + " but /runs has no group for it";
  }
  return {};
}

// Whether a new results file can be made in `parent` (made itself first when `make_folder`
// and it is missing: then its own parent must take a new folder).
std::string check_new_file_folder(const std::string& q, const std::string& parent,
                                  bool make_folder) {
  struct stat pst {};
  std::string in = parent;
  if (::stat(parent.c_str(), &pst) != 0 && errno == ENOENT && make_folder) {
    in = parent_of(parent);  // the folder the default's folder is made in
    if (::stat(in.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode))
      return "the folder '" + printable(in) + "' of " + q + " does not exist";
  } else if (::stat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode)) {
    return "the folder '" + printable(parent) + "' of " + q + " does not exist";
  }
  const std::string made = in == parent ? "" : "the folder '" + printable(parent) + "' of ";
  if (const std::string p = fsops::pseudo_fs(in); !p.empty())
    return "cannot create " + made + q + ": '" + printable(in) + "' is on " + p +
           ", a pseudo file system of the kernel";
  if (auto why = can_create_in(in); !why.empty())
    return "cannot create " + made + q + " in '" + printable(in) + "': " + why;
  if (const std::uint64_t free = free_bytes(in + "/."); free < kResultsReserveBytes)
    return "the file system of " + q + " has " + std::to_string(free) +
           " bytes free; iosweep needs at least " + std::to_string(kResultsReserveBytes) +
           " there to append a run";
  return {};
}

}  // namespace

std::string check_results_file(const std::string& path, bool make_folder) {
  const std::string q = "'" + printable(path) + "'";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return q + " is a symbolic link; give the results file itself";
  if (::stat(path.c_str(), &st) != 0) return check_new_file_folder(q, parent_of(path), make_folder);
  if (S_ISDIR(st.st_mode)) return q + " is a folder, not a results file";
  if (!S_ISREG(st.st_mode)) return q + " is not a regular file";
  if (const std::uint64_t free = free_bytes(path); free < kResultsReserveBytes)
    return "the file system of " + q + " has " + std::to_string(free) +
           " bytes free; iosweep needs at least " + std::to_string(kResultsReserveBytes) +
           " there to append a run";
  if (::stat(path.c_str(), &st) != 0) return {};  // a new file
  std::optional<FileLock> lock;                   // wait for a run that is writing to it right now
  try {
    lock.emplace(path, FileLock::Mode::read);
  } catch (const LockTimeout& e) {
    return e.what();
  } catch (const IoError& e) {
    return q + " cannot be read: " + describe_errno(e.err());
  }
  if (::stat(path.c_str(), &st) != 0 || st.st_size == 0) return {};
  if (::access(path.c_str(), R_OK | W_OK) != 0) return q + " is not writable";
  if (H5Fis_hdf5(path.c_str()) <= 0) return q + " is not an HDF5 file";
  Handle f = open_read_only(path);
  if (!f) return q + " cannot be opened as an HDF5 file";
  std::string schema;
  if (!read_attr(f.get(), "schema", schema) || schema != kSchemaName)
    return q + " is an HDF5 file of another schema" +
           (schema.empty() ? std::string(" (no 'schema' attribute)")
                           : " ('" + printable(schema) + "')") +
           "; iosweep only appends to its own results files";
  std::int64_t version = 0;
  if (!read_attr(f.get(), "schema_version", version) || version > kSchemaVersion)
    return q + " has results schema version " + std::to_string(version) +
           ", newer than this iosweep's " + std::to_string(kSchemaVersion) +
           "; use a newer iosweep or another --output";
  if (auto why = structure_problem(f.get()); !why.empty())
    return q + " carries iosweep's schema attributes but not its structure (" + why +
           "); iosweep does not append to it";
  return {};
}

void make_results_folder(const std::string& path) {
  const std::string parent = parent_of(path);
  if (::mkdir(parent.c_str(), 0777) != 0 && errno != EEXIST)
    throw IoError::of_file("mkdir", parent, errno, "the folder of the results file");
}

}  // namespace iosweep::h5
