// MPI-IO engine (see mpiio_engine.hpp).
#include "engines/mpiio_engine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <stdexcept>

#include "core/errors.hpp"

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

MpiioEngine::MpiioEngine(const EngineOptions& options)
    : depth_(options.iodepth == 0 ? 1 : options.iodepth), hints_(options.mpiio_hints) {
  if (options.direct)
    throw UsageError(
        "--direct: the mpiio engine cannot open files with O_DIRECT; use --engine posix or uring");
  if (!hints_.empty()) {
    MPI_Info_create(&info_);
    for (const auto& [k, v] : hints_)
      MPI_Info_set(info_, k.c_str(), v.c_str());
  }
  slots_.resize(depth_);
  requests_.assign(depth_, MPI_REQUEST_NULL);
  indices_.resize(depth_);
  statuses_.resize(depth_);
  for (unsigned i = depth_; i > 0; --i)
    free_.push_back(i - 1);
}

MpiioEngine::~MpiioEngine() {
  for (auto& f : files_)
    if (f != MPI_FILE_NULL) MPI_File_close(&f);
  if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
}

EngineInfo MpiioEngine::info() const {
  std::string d = "MPI_File_iread_at/iwrite_at on MPI_COMM_SELF; hints:";
  if (hints_.empty()) d += " (none)";
  for (const auto& [k, v] : hints_)
    d += " " + k + "=" + v;
  return {"mpiio", depth_, d};
}

int MpiioEngine::open(const std::string& path, OpenMode mode) {
  // MPI_File_open has no O_NOFOLLOW: refuse a symbolic link at the name before opening, and
  // rely on MPI_MODE_EXCL (O_EXCL, which never follows links) when creating.
  struct stat st {};
  if (!mode.create && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw IoError("open", path, 0, ELOOP, "refusing to follow a symbolic link");
  int amode = mode.write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  if (mode.create) amode |= MPI_MODE_CREATE | MPI_MODE_EXCL;
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(MPI_COMM_SELF, path.c_str(), amode, info_, &fh);
  if (rc != MPI_SUCCESS) throw IoError("open", path, 0, errno_from_mpi(rc));
  files_.push_back(fh);
  paths_.push_back(path);
  return static_cast<int>(files_.size() - 1);
}

void MpiioEngine::close(int file) {
  auto& fh = files_.at(static_cast<std::size_t>(file));
  const int rc = MPI_File_close(&fh);
  fh = MPI_FILE_NULL;
  if (rc != MPI_SUCCESS)
    throw IoError("close", paths_[static_cast<std::size_t>(file)], 0, errno_from_mpi(rc));
}

void MpiioEngine::sync(int file) {
  const int rc = MPI_File_sync(files_.at(static_cast<std::size_t>(file)));
  if (rc != MPI_SUCCESS)
    throw IoError("fsync", paths_[static_cast<std::size_t>(file)], 0, errno_from_mpi(rc));
}

void MpiioEngine::start(unsigned slot) {
  Slot& s = slots_[slot];
  const IoRequest& r = s.req;
  MPI_File fh = files_[static_cast<std::size_t>(r.file)];
  const auto count = static_cast<int>(std::min<std::size_t>(r.length - s.done, INT_MAX));
  const auto off = static_cast<MPI_Offset>(r.offset + s.done);
  const int rc =
      r.op == IoOp::read
          ? MPI_File_iread_at(fh, off, r.buf + s.done, count, MPI_BYTE, &requests_[slot])
          : MPI_File_iwrite_at(fh, off, r.buf + s.done, count, MPI_BYTE, &requests_[slot]);
  if (rc != MPI_SUCCESS)
    throw IoError(r.op == IoOp::read ? "read" : "write", paths_[static_cast<std::size_t>(r.file)],
                  r.offset + s.done, errno_from_mpi(rc));
}

void MpiioEngine::submit(std::span<const IoRequest> requests) {
  for (const auto& r : requests) {
    if (free_.empty())
      throw IoError("submit", paths_.at(static_cast<std::size_t>(r.file)), r.offset, EBUSY,
                    "more requests than --iodepth");
    const unsigned slot = free_.back();
    free_.pop_back();
    slots_[slot] = {r, 0};
    start(slot);
  }
}

std::size_t MpiioEngine::reap(std::span<IoCompletion> out, std::size_t min) {
  // MPI_Waitsome may complete every outstanding request at once: `out` must hold them all.
  if (out.size() < depth_)
    throw std::logic_error("MpiioEngine::reap: completion array smaller than the queue depth");
  std::size_t n_out = 0;
  while (n_out < min || n_out == 0) {
    if (free_.size() == depth_) break;  // nothing in flight
    int got = 0;
    const int rc = (n_out < min) ? MPI_Waitsome(static_cast<int>(depth_), requests_.data(), &got,
                                                indices_.data(), statuses_.data())
                                 : MPI_Testsome(static_cast<int>(depth_), requests_.data(), &got,
                                                indices_.data(), statuses_.data());
    if (got == MPI_UNDEFINED || got == 0) {
      if (n_out >= min) break;
      continue;
    }
    for (int i = 0; i < got; ++i) {
      const auto slot = static_cast<unsigned>(indices_[static_cast<std::size_t>(i)]);
      Slot& s = slots_[slot];
      const MPI_Status& st = statuses_[static_cast<std::size_t>(i)];
      int err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : MPI_SUCCESS;
      if (err != MPI_SUCCESS) {
        out[n_out++] = {s.req.tag, -static_cast<std::int64_t>(errno_from_mpi(err)), s.done};
        free_.push_back(slot);
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
      free_.push_back(slot);
    }
    if (n_out == out.size()) break;
  }
  return n_out;
}

}  // namespace iosweep
