// The lock that serialises the writers of a results file and keeps readers out of a half-written
// append, for the length of one open. It is an OFD lock (fcntl F_OFD_SETLK): it does not conflict
// with HDF5's flock and is not released when HDF5 closes its own descriptor. Writers take it
// exclusive, creating the file if needed; readers (the check before a run, show, --rerun) take it
// shared on an existing file, so they never see a file half written by another run.
//
// Every wait is bounded: a process that holds the lock and is stopped (SIGSTOP, a debugger, a
// hung file system) would otherwise hold every later writer and reader for ever. The bound is
// 60 s, as the scripts wait (IOSWEEP_LOCK_WAIT_S sets another, in seconds); past it the wait
// ends with one line naming the holder when this host can tell (the processes whose descriptor
// holds a lock on the file), else the file.
#pragma once

#include <stdexcept>
#include <string>

namespace iosweep::h5 {

// The wait for a results file's lock ran out; what() is one line naming the file and its holder.
class LockTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How long a lock is waited for: IOSWEEP_LOCK_WAIT_S when it is a number of seconds above zero,
// else 60.
double lock_wait_s();

// Modes: `create` (begin a run: the file is created when missing), `append` (the file must be
// the one the run began in: same device and inode; a file removed or replaced during a run is
// never recreated), `read` (shared, existing file only).
class FileLock {
 public:
  enum class Mode { create, append, read };
  struct Identity {
    unsigned long long dev = 0, ino = 0;
  };
  // Throws IoError when the file cannot be opened or locked, LockTimeout when another process
  // holds the lock for longer than lock_wait_s().
  FileLock(const std::string& path, Mode mode) : FileLock(path, mode, Identity{0, 0}) {}
  FileLock(const std::string& path, Mode mode, Identity expect);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool was_empty() const { return was_empty_; }
  Identity identity() const { return id_; }
  // Back to zero bytes: a file this run began empty is left as it found it when the run's first
  // write fails (an empty file is taken as a new results file; a half-made one would not be).
  void truncate_to_empty();

 private:
  void wait_for_lock(const std::string& path, bool exclusive);

  int fd_ = -1;
  bool was_empty_ = false;
  Identity id_;
};

}  // namespace iosweep::h5
