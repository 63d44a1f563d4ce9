// Error types and errno naming (see errors.hpp).
#include "core/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

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

namespace {

// The length of the valid UTF-8 sequence of more than one byte at text[i], or 0.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  const std::size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  std::uint32_t cp = c & (0x7Fu >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(text[i + k]);
    if ((d >> 6) != 0x2) return 0;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  const std::uint32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u >= 0x80 && utf8_sequence(text, i) > 0) {
      const std::size_t n = utf8_sequence(text, i);
      out.append(text.substr(i, n));
      i += n - 1;
    } else if (u < 0x20 || u >= 0x7f) {  // control characters, and bytes that are not UTF-8
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

IoError::IoError(const std::string& message, std::string op, std::string path, int err)
    : std::runtime_error(message),
      op_(std::move(op)),
      path_(std::move(path)),
      offset_(0),
      err_(err) {}

IoError IoError::on_item(const std::string& op, const std::string& path, int err,
                         const std::string& detail) {
  return {op + " of " + printable(path) + " failed: " + describe_errno(err) +
              (detail.empty() ? "" : "; " + detail),
          op, path, err};
}

}  // namespace iosweep
