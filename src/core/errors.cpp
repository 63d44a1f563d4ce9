// Error types and errno naming (see errors.hpp).
#include "core/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace iosweep {

namespace {

// Every value of Linux's <errno.h> (asm-generic), in its order; the aliases (EWOULDBLOCK,
// EDEADLOCK, ENOTSUP) share a value with the name given here, the one strerrorname_np gives (a
// unit test checks the two agree on every value).
struct ErrnoName {
  int value;
  const char* name;
};
// clang-format off
#define IOSWEEP_ERRNO(e) {e, #e},
constexpr ErrnoName kErrnoNames[] = {
    IOSWEEP_ERRNO(EPERM)
    IOSWEEP_ERRNO(ENOENT)
    IOSWEEP_ERRNO(ESRCH)
    IOSWEEP_ERRNO(EINTR)
    IOSWEEP_ERRNO(EIO)
    IOSWEEP_ERRNO(ENXIO)
    IOSWEEP_ERRNO(E2BIG)
    IOSWEEP_ERRNO(ENOEXEC)
    IOSWEEP_ERRNO(EBADF)
    IOSWEEP_ERRNO(ECHILD)
    IOSWEEP_ERRNO(EAGAIN)
    IOSWEEP_ERRNO(ENOMEM)
    IOSWEEP_ERRNO(EACCES)
    IOSWEEP_ERRNO(EFAULT)
    IOSWEEP_ERRNO(ENOTBLK)
    IOSWEEP_ERRNO(EBUSY)
    IOSWEEP_ERRNO(EEXIST)
    IOSWEEP_ERRNO(EXDEV)
    IOSWEEP_ERRNO(ENODEV)
    IOSWEEP_ERRNO(ENOTDIR)
    IOSWEEP_ERRNO(EISDIR)
    IOSWEEP_ERRNO(EINVAL)
    IOSWEEP_ERRNO(ENFILE)
    IOSWEEP_ERRNO(EMFILE)
    IOSWEEP_ERRNO(ENOTTY)
    IOSWEEP_ERRNO(ETXTBSY)
    IOSWEEP_ERRNO(EFBIG)
    IOSWEEP_ERRNO(ENOSPC)
    IOSWEEP_ERRNO(ESPIPE)
    IOSWEEP_ERRNO(EROFS)
    IOSWEEP_ERRNO(EMLINK)
    IOSWEEP_ERRNO(EPIPE)
    IOSWEEP_ERRNO(EDOM)
    IOSWEEP_ERRNO(ERANGE)
    IOSWEEP_ERRNO(EDEADLK)
    IOSWEEP_ERRNO(ENAMETOOLONG)
    IOSWEEP_ERRNO(ENOLCK)
    IOSWEEP_ERRNO(ENOSYS)
    IOSWEEP_ERRNO(ENOTEMPTY)
    IOSWEEP_ERRNO(ELOOP)
    IOSWEEP_ERRNO(ENOMSG)
    IOSWEEP_ERRNO(EIDRM)
    IOSWEEP_ERRNO(ECHRNG)
    IOSWEEP_ERRNO(EL2NSYNC)
    IOSWEEP_ERRNO(EL3HLT)
    IOSWEEP_ERRNO(EL3RST)
    IOSWEEP_ERRNO(ELNRNG)
    IOSWEEP_ERRNO(EUNATCH)
    IOSWEEP_ERRNO(ENOCSI)
    IOSWEEP_ERRNO(EL2HLT)
    IOSWEEP_ERRNO(EBADE)
    IOSWEEP_ERRNO(EBADR)
    IOSWEEP_ERRNO(EXFULL)
    IOSWEEP_ERRNO(ENOANO)
    IOSWEEP_ERRNO(EBADRQC)
    IOSWEEP_ERRNO(EBADSLT)
    IOSWEEP_ERRNO(EBFONT)
    IOSWEEP_ERRNO(ENOSTR)
    IOSWEEP_ERRNO(ENODATA)
    IOSWEEP_ERRNO(ETIME)
    IOSWEEP_ERRNO(ENOSR)
    IOSWEEP_ERRNO(ENONET)
    IOSWEEP_ERRNO(ENOPKG)
    IOSWEEP_ERRNO(EREMOTE)
    IOSWEEP_ERRNO(ENOLINK)
    IOSWEEP_ERRNO(EADV)
    IOSWEEP_ERRNO(ESRMNT)
    IOSWEEP_ERRNO(ECOMM)
    IOSWEEP_ERRNO(EPROTO)
    IOSWEEP_ERRNO(EMULTIHOP)
    IOSWEEP_ERRNO(EDOTDOT)
    IOSWEEP_ERRNO(EBADMSG)
    IOSWEEP_ERRNO(EOVERFLOW)
    IOSWEEP_ERRNO(ENOTUNIQ)
    IOSWEEP_ERRNO(EBADFD)
    IOSWEEP_ERRNO(EREMCHG)
    IOSWEEP_ERRNO(ELIBACC)
    IOSWEEP_ERRNO(ELIBBAD)
    IOSWEEP_ERRNO(ELIBSCN)
    IOSWEEP_ERRNO(ELIBMAX)
    IOSWEEP_ERRNO(ELIBEXEC)
    IOSWEEP_ERRNO(EILSEQ)
    IOSWEEP_ERRNO(ERESTART)
    IOSWEEP_ERRNO(ESTRPIPE)
    IOSWEEP_ERRNO(EUSERS)
    IOSWEEP_ERRNO(ENOTSOCK)
    IOSWEEP_ERRNO(EDESTADDRREQ)
    IOSWEEP_ERRNO(EMSGSIZE)
    IOSWEEP_ERRNO(EPROTOTYPE)
    IOSWEEP_ERRNO(ENOPROTOOPT)
    IOSWEEP_ERRNO(EPROTONOSUPPORT)
    IOSWEEP_ERRNO(ESOCKTNOSUPPORT)
    IOSWEEP_ERRNO(EOPNOTSUPP)
    IOSWEEP_ERRNO(EPFNOSUPPORT)
    IOSWEEP_ERRNO(EAFNOSUPPORT)
    IOSWEEP_ERRNO(EADDRINUSE)
    IOSWEEP_ERRNO(EADDRNOTAVAIL)
    IOSWEEP_ERRNO(ENETDOWN)
    IOSWEEP_ERRNO(ENETUNREACH)
    IOSWEEP_ERRNO(ENETRESET)
    IOSWEEP_ERRNO(ECONNABORTED)
    IOSWEEP_ERRNO(ECONNRESET)
    IOSWEEP_ERRNO(ENOBUFS)
    IOSWEEP_ERRNO(EISCONN)
    IOSWEEP_ERRNO(ENOTCONN)
    IOSWEEP_ERRNO(ESHUTDOWN)
    IOSWEEP_ERRNO(ETOOMANYREFS)
    IOSWEEP_ERRNO(ETIMEDOUT)
    IOSWEEP_ERRNO(ECONNREFUSED)
    IOSWEEP_ERRNO(EHOSTDOWN)
    IOSWEEP_ERRNO(EHOSTUNREACH)
    IOSWEEP_ERRNO(EALREADY)
    IOSWEEP_ERRNO(EINPROGRESS)
    IOSWEEP_ERRNO(ESTALE)
    IOSWEEP_ERRNO(EUCLEAN)
    IOSWEEP_ERRNO(ENOTNAM)
    IOSWEEP_ERRNO(ENAVAIL)
    IOSWEEP_ERRNO(EISNAM)
    IOSWEEP_ERRNO(EREMOTEIO)
    IOSWEEP_ERRNO(EDQUOT)
    IOSWEEP_ERRNO(ENOMEDIUM)
    IOSWEEP_ERRNO(EMEDIUMTYPE)
    IOSWEEP_ERRNO(ECANCELED)
    IOSWEEP_ERRNO(ENOKEY)
    IOSWEEP_ERRNO(EKEYEXPIRED)
    IOSWEEP_ERRNO(EKEYREVOKED)
    IOSWEEP_ERRNO(EKEYREJECTED)
    IOSWEEP_ERRNO(EOWNERDEAD)
    IOSWEEP_ERRNO(ENOTRECOVERABLE)
    IOSWEEP_ERRNO(ERFKILL)
    IOSWEEP_ERRNO(EHWPOISON)
};
#undef IOSWEEP_ERRNO
// clang-format on

}  // namespace

std::string errno_name(int err) {
  for (const auto& e : kErrnoNames)
    if (e.value == err) return e.name;
  return "errno " + std::to_string(err);
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
    : IoError(op, path, std::optional<std::uint64_t>(offset), err, detail, true) {}

IoError IoError::of_file(const std::string& op, const std::string& path, int err,
                         const std::string& detail) {
  return {op, path, std::nullopt, err, detail, true};
}

IoError::IoError(const std::string& op, const std::string& path,
                 std::optional<std::uint64_t> offset, int err, const std::string& detail, bool)
    : std::runtime_error(op + " of " + printable(path) +
                         (offset ? " at offset " + std::to_string(*offset) : std::string()) +
                         " failed: " + describe_errno(err) + (detail.empty() ? "" : "; " + detail)),
      op_(op),
      path_(path),
      offset_(offset),
      err_(err) {}

}  // namespace iosweep
