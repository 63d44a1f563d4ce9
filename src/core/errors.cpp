// Error types and errno naming (see errors.hpp).
#include "core/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace iosweep {

std::string errno_name(int err) {
  switch (err) {
#define IOSWEEP_ERRNO(e) \
  case e:                \
    return #e;
    IOSWEEP_ERRNO(EPERM)
    IOSWEEP_ERRNO(ENOENT)
    IOSWEEP_ERRNO(EINTR)
    IOSWEEP_ERRNO(EIO)
    IOSWEEP_ERRNO(ENXIO)
    IOSWEEP_ERRNO(EBADF)
    IOSWEEP_ERRNO(EAGAIN)
    IOSWEEP_ERRNO(ENOMEM)
    IOSWEEP_ERRNO(EACCES)
    IOSWEEP_ERRNO(EFAULT)
    IOSWEEP_ERRNO(EBUSY)
    IOSWEEP_ERRNO(EEXIST)
    IOSWEEP_ERRNO(ENODEV)
    IOSWEEP_ERRNO(ENOTDIR)
    IOSWEEP_ERRNO(EISDIR)
    IOSWEEP_ERRNO(EINVAL)
    IOSWEEP_ERRNO(ENFILE)
    IOSWEEP_ERRNO(EMFILE)
    IOSWEEP_ERRNO(EFBIG)
    IOSWEEP_ERRNO(ENOSPC)
    IOSWEEP_ERRNO(ESPIPE)
    IOSWEEP_ERRNO(EROFS)
    IOSWEEP_ERRNO(ENAMETOOLONG)
    IOSWEEP_ERRNO(ENOSYS)
    IOSWEEP_ERRNO(ELOOP)
    IOSWEEP_ERRNO(ENODATA)
    IOSWEEP_ERRNO(EOVERFLOW)
    IOSWEEP_ERRNO(EOPNOTSUPP)
    IOSWEEP_ERRNO(ETIMEDOUT)
    IOSWEEP_ERRNO(ESTALE)
    IOSWEEP_ERRNO(EDQUOT)
    IOSWEEP_ERRNO(ECANCELED)
    // What network file systems return: a server gone, a connection cut.
    IOSWEEP_ERRNO(ENOTCONN)
    IOSWEEP_ERRNO(ECONNRESET)
    IOSWEEP_ERRNO(ECONNREFUSED)
    IOSWEEP_ERRNO(ECONNABORTED)
    IOSWEEP_ERRNO(EHOSTUNREACH)
    IOSWEEP_ERRNO(ENETUNREACH)
    IOSWEEP_ERRNO(ESHUTDOWN)
    IOSWEEP_ERRNO(EREMOTEIO)
    IOSWEEP_ERRNO(ENOLINK)
    IOSWEEP_ERRNO(EPIPE)
#undef IOSWEEP_ERRNO
    default:
      return "errno " + std::to_string(err);
  }
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", u);
      out += b;
    } else {
      out += c;
    }
  }
  return out;
}

std::string describe_errno(int err) {
  return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ", " +
         errno_name(err) + ")";
}

IoError::IoError(const std::string& op, const std::string& path, std::uint64_t offset, int err,
                 const std::string& detail)
    : std::runtime_error(op + " of " + printable(path) + " at offset " + std::to_string(offset) +
                         " failed: " + describe_errno(err) + (detail.empty() ? "" : "; " + detail)),
      op_(op),
      path_(path),
      offset_(offset),
      err_(err) {}

}  // namespace iosweep
