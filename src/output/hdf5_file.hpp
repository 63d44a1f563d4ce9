// Thin RAII layer over the HDF5 C API for the results file: handles, compound types built from
// the schema's field tables, enum types built from the phase and engine tables and the status
// names, appendable chunked tables, string and numeric attributes (the lock that serialises
// writers is output/file_lock.hpp). Nothing here knows about runs or points.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/schema.hpp"
#include "output/file_lock.hpp"

namespace iosweep::h5 {

// Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }
  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  herr_t (*closer_)(hid_t) = nullptr;
};

// Throws std::runtime_error naming `what` when id < 0.
Handle check(hid_t id, herr_t (*closer)(hid_t), const std::string& what);
void check_status(herr_t rc, const std::string& what);

// Before any other HDF5 call: silences HDF5's own error printing (iosweep reports errors
// itself) and keeps the library from closing files at exit: after a failed write (a full disk)
// HDF5 keeps a file it could not close, and closing it again from an exit handler crashes.
void quiet_errors();

// File access: 1.8 file-format bounds (a killed writer leaves a file h5py and h5dump open),
// HDF5's own flock disabled because iosweep holds its own lock around every open.
Handle file_access();
Handle open_file(const std::string& path, bool create);
Handle open_read_only(const std::string& path);

Handle compound_type(const TableDesc& table);
Handle phase_enum_type();
Handle status_enum_type();
Handle engine_enum_type();

// An empty 1-D chunked table of `table`'s rows, with unit and reduction attributes per field.
void create_table(hid_t parent, const TableDesc& table, hsize_t chunk_rows);
void append_rows(hid_t parent, const TableDesc& table, const void* rows, std::size_t n);
void write_row(hid_t parent, const TableDesc& table, hsize_t index, const void* row);
hsize_t table_rows(hid_t parent, const char* name);
// All rows of a table, read with `table`'s compound type (fields missing from the file are
// left zero).
std::vector<std::byte> read_rows(hid_t parent, const TableDesc& table, hsize_t& n);

// A 2-D (rows x width) unsigned 64-bit dataset appendable along rows.
void create_matrix_u64(hid_t parent, const char* name, hsize_t width);
void append_matrix_u64(hid_t parent, const char* name, const std::vector<std::uint64_t>& row);
void write_vector_u64(hid_t parent, const char* name, const std::vector<std::uint64_t>& v);
void write_strings(hid_t parent, const char* name, const std::vector<std::string>& v);

void set_attr(hid_t obj, const char* name, const std::string& value);
void set_attr(hid_t obj, const char* name, std::int64_t value);
void set_attr_u64(hid_t obj, const char* name, std::uint64_t value);
void set_attr(hid_t obj, const char* name, double value);
void set_attr(hid_t obj, const char* name, const std::vector<std::int64_t>& values);
void set_attr_enum(hid_t obj, const char* name, const Handle& type, std::uint8_t value);
bool read_attr(hid_t obj, const char* name, std::string& value);
bool read_attr(hid_t obj, const char* name, std::int64_t& value);

// Bytes free for an unprivileged writer on the file system holding `path` (or its folder).
std::uint64_t free_bytes(const std::string& path);
// iosweep keeps this much free beside a results file: below it a run stops appending, so that
// HDF5 never meets a full disk in the middle of a write (which can break the file).
inline constexpr std::uint64_t kResultsReserveBytes = 2u << 20;

// Empty if `path` can take a new run; otherwise why not. Opens an existing file read-only and
// never modifies it. With `make_folder` (--output's default), a missing folder of `path` is
// one the run will make (make_results_folder): its parent must take it.
std::string check_results_file(const std::string& path, bool make_folder = false);
// Makes the folder of `path` when it is missing (one level, as --output's default needs);
// throws IoError naming it when that fails.
void make_results_folder(const std::string& path);

}  // namespace iosweep::h5
