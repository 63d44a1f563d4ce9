// The results file's lock, with a bounded wait (see file_lock.hpp).
#include "output/file_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "os/process.hpp"

namespace iosweep::h5 {
namespace {

constexpr double kDefaultLockWaitS = 60;

// The line that ends a wait: the file, who holds it when this host can tell, and how long.
std::string held_for_too_long(const std::string& path, int fd, bool exclusive, double waited_s) {
  struct stat st {};
  std::string who;
  if (::fstat(fd, &st) == 0)
    for (const auto& h : lock_holders(st.st_dev, st.st_ino))
      who += (who.empty() ? "" : ", ") + h;
  char waited[32];
  std::snprintf(waited, sizeof waited, "%g", waited_s);
  return "'" + printable(path) + "' is locked by " +
         (who.empty() ? std::string("another process (an OFD lock names no pid; none of this "
                                    "host's processes that this user can see holds it)")
                      : who) +
         "; waited " + waited + " s to " + (exclusive ? "write" : "read") +
         " it (IOSWEEP_LOCK_WAIT_S): is a run writing to it, or a reader of it, stopped?";
}

void pause_ms(long ms) {
  timespec t{0, ms * 1'000'000};
  while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

}  // namespace

double lock_wait_s() {
  const char* v = std::getenv("IOSWEEP_LOCK_WAIT_S");
  if (v == nullptr || *v == '\0') return kDefaultLockWaitS;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  return *end == '\0' && std::isfinite(s) && s > 0 ? s : kDefaultLockWaitS;
}

// Polled rather than waited for with F_OFD_SETLKW, which no timer can end without a signal (and
// signals belong to the run's watcher): another run holds the lock for one point's append, a few
// milliseconds, so a poll every 10 ms costs nothing measured.
void FileLock::wait_for_lock(const std::string& path, bool exclusive) {
  struct flock fl {};
  fl.l_type = exclusive ? F_WRLCK : F_RDLCK;
  fl.l_whence = SEEK_SET;
  const double wait_s = lock_wait_s();
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(wait_s * 1e9);
  for (long pause = 1;; pause = std::min(pause * 2, 10L)) {
    if (::fcntl(fd_, F_OFD_SETLK, &fl) == 0) return;
    const int err = errno;
    if (err != EAGAIN && err != EACCES && err != EINTR) {
      ::close(fd_);
      fd_ = -1;
      throw IoError::of_file("lock", path, err, "results file");
    }
    if (now_ns() >= deadline) {
      const std::string why = held_for_too_long(path, fd_, exclusive, wait_s);
      ::close(fd_);
      fd_ = -1;
      throw LockTimeout(why);
    }
    pause_ms(pause);
  }
}

FileLock::FileLock(const std::string& path, Mode mode, Identity expect) {
  int flags = O_CLOEXEC | O_NOFOLLOW | (mode == Mode::read ? O_RDONLY : O_RDWR);
  if (mode == Mode::create) flags |= O_CREAT;
  fd_ = ::open(path.c_str(), flags, 0644);
  if (fd_ < 0) {
    const int err = errno;
    if (mode == Mode::append && err == ENOENT)
      throw IoError::of_file("open", path, err, "the results file was removed during the run");
    throw IoError::of_file("open", path, err, "results file");
  }
  wait_for_lock(path, mode != Mode::read);
  struct stat st {};
  ::fstat(fd_, &st);
  was_empty_ = st.st_size == 0;
  id_ = {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
  if (mode == Mode::append && (id_.dev != expect.dev || id_.ino != expect.ino)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError::of_file(
        "open", path, ESTALE,
        "the results file was replaced during the run; its points are not written to "
        "the new file");
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the OFD lock
}

void FileLock::truncate_to_empty() {
  if (fd_ >= 0 && ::ftruncate(fd_, 0) == 0) was_empty_ = true;
}

}  // namespace iosweep::h5
