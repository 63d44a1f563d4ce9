// MPI-IO engine (see mpiio_engine.hpp).
#include "engines/mpiio_engine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "core/errors.hpp"
#include "model/limits.hpp"

namespace iosweep {

int errno_from_mpi(int mpi_error) {
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(mpi_error, &cls);
  if (cls == MPI_ERR_NO_SPACE) return ENOSPC;
  if (cls == MPI_ERR_QUOTA) return EDQUOT;
  if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY) return EACCES;
  if (cls == MPI_ERR_NO_SUCH_FILE) return ENOENT;
  if (cls == MPI_ERR_FILE_EXISTS) return EEXIST;
  if (cls == MPI_ERR_BAD_FILE) return EINVAL;
  return EIO;
}

MpiioEngine::MpiioEngine(const EngineOptions& options, MPI_Comm group)
    : options_(options),
      group_(options.collective ? group : MPI_COMM_SELF),
      collective_(options.collective),
      hints_(options.mpiio_hints),
      slots_(options.collective || options.iodepth == 0 ? 1 : options.iodepth) {
  if (!hints_.empty()) {
    MPI_Info_create(&info_);
    for (const auto& [k, v] : hints_)
      MPI_Info_set(info_, k.c_str(), v.c_str());
  }
  requests_.assign(depth(), MPI_REQUEST_NULL);
  indices_.resize(depth());
  statuses_.resize(depth());
}

MpiioEngine::~MpiioEngine() {
  for (auto& f : files_)
    if (f != MPI_FILE_NULL) MPI_File_close(&f);
  if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
}

namespace {

// The calls the engine makes, on which files, with which hints: independent calls on a file of
// one rank, or collective calls on the file the point's ranks share (never both).
std::string describe(const EngineOptions& options) {
  std::string d =
      options.collective
          ? "MPI_File_read_at_all/write_at_all, one collective call at a time, on the file the "
            "point's ranks open together (aggregator ranks move every rank's bytes); hints:"
          : "MPI_File_iread_at/iwrite_at on MPI_COMM_SELF, a file per rank; hints:";
  if (options.mpiio_hints.empty()) d += " (none)";
  for (const auto& [k, v] : options.mpiio_hints)
    d += " " + k + "=" + v;
  return d;
}

// Whether Open MPI's sharedfp selection (OMPI_MCA_sharedfp, which MpiSession sets when the user
// did not) lets the lockedfile component in: `^a,b` excludes a and b, `a,b` includes only them.
bool lockedfile_selected() {
  const char* v = std::getenv("OMPI_MCA_sharedfp");
  if (v == nullptr || *v == '\0') return true;
  const std::string sel = v;
  const bool excluding = sel.front() == '^';
  const std::string list = "," + sel.substr(excluding ? 1 : 0) + ",";
  return (list.find(",lockedfile,") != std::string::npos) != excluding;
}

// lockedfile's query writes FILE.locktest.RANK into a 256-byte buffer (Open MPI 4.1's
// sharedfp_lockedfile.c): FILE, ".locktest.", a rank of at most 8 digits and the NUL must fit.
constexpr std::size_t kLockedfileNameBytes = 256 - 10 - 8 - 1;

// With lockedfile selected by the user, a folder whose file names would overflow its buffer.
std::string lockedfile_check(const Workload& work) {
  if (!lockedfile_selected()) return {};
  const char* selection = std::getenv("OMPI_MCA_sharedfp");
  for (const auto& dir : work.dirs) {
    const std::size_t longest = dir.size() + kFileNameAddsChars;
    if (longest <= kLockedfileNameBytes) continue;
    return "--dir: " + std::to_string(dir.size()) + " bytes long, it makes file names of up to " +
           std::to_string(longest) + " bytes; with Open MPI's sharedfp lockedfile component " +
           "selected (OMPI_MCA_sharedfp=" + printable(selection != nullptr ? selection : "") +
           ") --engine mpiio takes at most " + std::to_string(kLockedfileNameBytes) +
           " (a --dir of " + std::to_string(kLockedfileNameBytes - kFileNameAddsChars) +
           " bytes): its name buffer would overflow; leave OMPI_MCA_sharedfp unset";
  }
  return {};
}

}  // namespace

std::string MpiioEngine::check(const Workload& work, const EngineOptions& options) {
  if (auto why = lockedfile_check(work); !why.empty()) return why;
  for (const auto& [k, v] : options.mpiio_hints) {
    if (k.size() >= MPI_MAX_INFO_KEY)
      return "--mpiio-hint: the key '" + printable(k) + "' has " + std::to_string(k.size()) +
             " characters; MPI allows at most " + std::to_string(MPI_MAX_INFO_KEY - 1);
    if (v.size() >= MPI_MAX_INFO_VAL)
      return "--mpiio-hint: the value of " + printable(k) + " has " + std::to_string(v.size()) +
             " characters; MPI allows at most " + std::to_string(MPI_MAX_INFO_VAL - 1);
  }
  return {};
}

std::string MpiioEngine::probe(const EngineOptions& options, std::string& detail) {
  detail = describe(options);
  return {};
}

std::string MpiioEngine::detail() const {
  return describe(options_);
}

int MpiioEngine::open(const std::string& path, OpenMode mode) {
  // MPI_File_open has no O_NOFOLLOW: refuse a symbolic link at the name before opening, and
  // rely on MPI_MODE_EXCL (O_EXCL, which never follows links) when creating.
  struct stat st {};
  if (!mode.create && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw IoError::of_file("open", path, ELOOP, "refusing to follow a symbolic link");
  int amode = mode.write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  if (mode.create) amode |= MPI_MODE_CREATE | MPI_MODE_EXCL;
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(group_, path.c_str(), amode, info_, &fh);
  if (rc != MPI_SUCCESS) throw IoError::of_file("open", path, errno_from_mpi(rc));
  MPI_Offset size = 0;
  if (!mode.write && MPI_File_get_size(fh, &size) != MPI_SUCCESS) size = 0;
  files_.push_back(fh);
  paths_.push_back(path);
  sizes_.push_back(size);
  return static_cast<int>(files_.size() - 1);
}

void MpiioEngine::close(int file) {
  auto& fh = files_.at(static_cast<std::size_t>(file));
  const int rc = MPI_File_close(&fh);
  fh = MPI_FILE_NULL;
  if (rc != MPI_SUCCESS)
    throw IoError::of_file("close", paths_[static_cast<std::size_t>(file)], errno_from_mpi(rc));
}

void MpiioEngine::sync(int file) {
  const int rc = MPI_File_sync(files_.at(static_cast<std::size_t>(file)));
  if (rc != MPI_SUCCESS)
    throw IoError::of_file("fsync", paths_[static_cast<std::size_t>(file)], errno_from_mpi(rc));
}

void MpiioEngine::start(unsigned slot) {
  Slots::Slot& s = slots_[slot];
  const IoRequest& r = s.req;
  const auto fi = static_cast<std::size_t>(r.file);
  MPI_File fh = files_[fi];
  std::size_t want = r.length - s.done;
  const auto off = static_cast<MPI_Offset>(r.offset) + static_cast<MPI_Offset>(s.done);
  if (r.op == IoOp::read) {
    // Open MPI's OMPIO never completes a non-blocking read that reaches past the end of the
    // file (4.1.4), so reads stop at the size the file had when it was opened: the part
    // beyond it completes at once as a short read, as pread would report it.
    if (off >= sizes_[fi]) {
      ready_.push_back(slot);
      return;
    }
    want = std::min<std::size_t>(want, static_cast<std::size_t>(sizes_[fi] - off));
  }
  const auto count = static_cast<int>(std::min<std::size_t>(want, INT_MAX));
  const int rc =
      r.op == IoOp::read
          ? MPI_File_iread_at(fh, off, r.buf + s.done, count, MPI_BYTE, &requests_[slot])
          : MPI_File_iwrite_at(fh, off, r.buf + s.done, count, MPI_BYTE, &requests_[slot]);
  if (rc != MPI_SUCCESS)
    throw IoError(r.op == IoOp::read ? "read" : "write", paths_[static_cast<std::size_t>(r.file)],
                  r.offset + s.done, errno_from_mpi(rc));
}

// One collective call, as every rank of the group makes it: the bytes it moved, or -errno. A
// write that moved fewer bytes than asked without an error moved them into a full file system
// (OMPIO reports ENOSPC only on its own stderr and returns the short count). After the call the
// ranks agree whether any failed, and a rank whose own part succeeded takes that error too:
// otherwise the failed rank stops issuing while the others wait for it in the next collective
// call, for ever. The agreement is one MPI_Allreduce of an int per request, inside the window.
std::int64_t MpiioEngine::collective_call(const IoRequest& r) {
  const std::size_t fi = static_cast<std::size_t>(r.file);
  MPI_Status st;
  const auto off = static_cast<MPI_Offset>(r.offset);
  const int n = static_cast<int>(r.length);
  const int rc = r.op == IoOp::read
                     ? MPI_File_read_at_all(files_[fi], off, r.buf, n, MPI_BYTE, &st)
                     : MPI_File_write_at_all(files_[fi], off, r.buf, n, MPI_BYTE, &st);
  int bytes = 0, err = 0;
  if (rc != MPI_SUCCESS) {
    err = errno_from_mpi(rc);
  } else {
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    if (r.op == IoOp::write && bytes < n) err = ENOSPC;
  }
  int worst = err;
  MPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MAX, group_);
  if (worst != 0) return -static_cast<std::int64_t>(err != 0 ? err : worst);
  return bytes;
}

void MpiioEngine::submit(std::span<const IoRequest> requests) {
  if (collective_) {  // every rank makes the same calls in the same order: one at a time
    for (const auto& r : requests)
      done_.push_back({r.tag, collective_call(r), 0});
    return;
  }
  for (const auto& r : requests)
    start(slots_.take(r, paths_.at(static_cast<std::size_t>(r.file))));
}

std::size_t MpiioEngine::reap(std::span<IoCompletion> out, std::size_t min) {
  if (collective_) {
    std::size_t n = 0;
    for (; n < out.size() && n < done_.size(); ++n)
      out[n] = done_[n];
    done_.erase(done_.begin(), done_.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  }
  // MPI_Waitsome may complete every outstanding request at once: `out` must hold them all.
  if (out.size() < depth())
    throw std::logic_error("MpiioEngine::reap: completion array smaller than the queue depth");
  std::size_t n_out = 0;
  while (n_out < min || n_out == 0) {
    while (!ready_.empty() && n_out < out.size()) {  // reads that ended at the end of the file
      const unsigned slot = ready_.back();
      ready_.pop_back();
      const std::size_t done = slots_[slot].done;
      out[n_out++] = {slots_[slot].req.tag, static_cast<std::int64_t>(done), done};
      slots_.give_back(slot);
    }
    if (n_out >= min && n_out > 0) break;
    if (slots_.idle()) break;  // nothing in flight
    int got = 0;
    const int rc = (n_out < min) ? MPI_Waitsome(static_cast<int>(depth()), requests_.data(), &got,
                                                indices_.data(), statuses_.data())
                                 : MPI_Testsome(static_cast<int>(depth()), requests_.data(), &got,
                                                indices_.data(), statuses_.data());
    if (got == MPI_UNDEFINED || got == 0) {
      if (n_out >= min) break;
      continue;
    }
    for (int i = 0; i < got; ++i) {
      const auto slot = static_cast<unsigned>(indices_[static_cast<std::size_t>(i)]);
      Slots::Slot& s = slots_[slot];
      const MPI_Status& st = statuses_[static_cast<std::size_t>(i)];
      int err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : MPI_SUCCESS;
      if (err != MPI_SUCCESS) {
        out[n_out++] = {s.req.tag, -static_cast<std::int64_t>(errno_from_mpi(err)), s.done};
        slots_.give_back(slot);
        continue;
      }
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      const std::size_t done = s.done + static_cast<std::size_t>(bytes < 0 ? 0 : bytes);
      if (bytes > 0 && done < s.req.length) {  // short transfer: continue with the rest
        s.done = done;
        start(slot);
        continue;
      }
      out[n_out++] = {s.req.tag, static_cast<std::int64_t>(done), done};
      slots_.give_back(slot);
    }
    if (n_out == out.size()) break;
  }
  return n_out;
}

}  // namespace iosweep
