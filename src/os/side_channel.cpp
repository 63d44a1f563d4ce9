// The side channel over TCP (see side_channel.hpp).
#include "os/side_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/clock.hpp"

namespace iosweep::side {
namespace {

constexpr std::size_t kMaxMessage = std::size_t{64} * 1024;
constexpr int kPerConnectionMs = 1000;
constexpr char kTaken = 'k';

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int ms_left(std::uint64_t deadline_ns) {
  const std::uint64_t now = now_ns();
  return now >= deadline_ns ? 0 : static_cast<int>((deadline_ns - now) / 1'000'000 + 1);
}

// Waits until `fd` is ready for `events` or the deadline passes.
bool ready(int fd, short events, std::uint64_t deadline_ns) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, ms_left(deadline_ns));
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n == 0 || errno != EINTR) return false;
  }
}

// All of `len` bytes, or false (closed, failed, or the deadline passed); `fd` is non-blocking.
bool read_all(int fd, char* buf, std::size_t len, std::uint64_t deadline_ns) {
  while (len > 0) {
    const ssize_t n = ::recv(fd, buf, len, 0);
    if (n > 0) {
      buf += n;
      len -= static_cast<std::size_t>(n);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR) || !ready(fd, POLLIN, deadline_ns)) {
      return false;
    }
  }
  return true;
}

bool write_all(int fd, const char* buf, std::size_t len, std::uint64_t deadline_ns) {
  while (len > 0) {
    const ssize_t n = ::send(fd, buf, len, MSG_NOSIGNAL);
    if (n > 0) {
      buf += n;
      len -= static_cast<std::size_t>(n);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR) || !ready(fd, POLLOUT, deadline_ns)) {
      return false;
    }
  }
  return true;
}

// One message from an accepted connection, answered when it carries the token; empty when not.
std::string take(int fd, const std::string& token) {
  const std::uint64_t deadline = now_ns() + kPerConnectionMs * 1'000'000ull;
  unsigned char head[4];
  if (!read_all(fd, reinterpret_cast<char*>(head), sizeof head, deadline)) return {};
  const std::size_t len = (std::size_t{head[0]} << 24) | (std::size_t{head[1]} << 16) |
                          (std::size_t{head[2]} << 8) | head[3];
  if (len < token.size() || len > kMaxMessage) return {};
  std::string msg(len, '\0');
  if (!read_all(fd, msg.data(), len, deadline) || msg.compare(0, token.size(), token) != 0)
    return {};
  const char taken = kTaken;
  if (!write_all(fd, &taken, 1, deadline)) return {};
  return msg.substr(token.size());
}

int listening_socket(int family, std::string& why) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int rc = -1;
  if (family == AF_INET6) {
    const int off = 0;  // both IPv6 and IPv4 (mapped) on one socket
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0 || ::listen(fd, 64) != 0) {
    why = std::string("bind/listen: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

// Connects to `address`:`port` within the deadline; -1 when it cannot.
int connect_to(const std::string& address, std::uint16_t port, std::uint64_t deadline_ns) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    const int rc = ::connect(fd, found->ai_addr, found->ai_addrlen);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      socklen_t len = sizeof err;
      err =
          ready(fd, POLLOUT, deadline_ns) && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0
              ? err
              : ETIMEDOUT;
    }
    if (err != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  return fd;
}

}  // namespace

std::vector<std::string> local_addresses() {
  std::vector<std::string> out, loopback;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_flags & IFF_UP) == 0) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const int family = i->ifa_addr->sa_family;
    if (family == AF_INET) {
      ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text,
                  sizeof text);
    } else if (family == AF_INET6) {
      const auto* a6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) continue;  // needs a scope no peer knows
      ::inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof text);
    } else {
      continue;
    }
    ((i->ifa_flags & IFF_LOOPBACK) != 0 ? loopback : out).emplace_back(text);
  }
  ::freeifaddrs(list);
  out.insert(out.end(), loopback.begin(), loopback.end());
  return out;
}

Inbox::Inbox(std::string token) : token_(std::move(token)) {
  fd_ = listening_socket(AF_INET6, why_);
  if (fd_ < 0) fd_ = listening_socket(AF_INET, why_);
  if (fd_ < 0) return;
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    why_ = std::string("getsockname: ") + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return;
  }
  port_ = ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&a)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  why_.clear();
}

Inbox::~Inbox() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> Inbox::receive(int timeout_ms) {
  std::vector<std::string> got;
  if (fd_ < 0) {
    if (timeout_ms > 0) ::poll(nullptr, 0, timeout_ms);
    return got;
  }
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(timeout_ms) * 1'000'000;
  if (!ready(fd_, POLLIN, deadline)) return got;
  for (;;) {  // every connection waiting now, each bounded
    Fd c(::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (c.get() < 0) break;
    std::string m = take(c.get(), token_);
    if (!m.empty()) got.push_back(std::move(m));
  }
  return got;
}

bool deliver(const std::vector<std::string>& addresses, std::uint16_t port,
             const std::string& token, const std::string& text, int timeout_ms) {
  if (port == 0) return false;
  std::string msg = token + text;
  if (msg.size() > kMaxMessage) msg.resize(kMaxMessage);
  const auto n = static_cast<std::uint32_t>(msg.size());
  const unsigned char head[4] = {static_cast<unsigned char>(n >> 24),
                                 static_cast<unsigned char>(n >> 16),
                                 static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
  for (const auto& a : addresses) {
    const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(timeout_ms) * 1'000'000;
    Fd c(connect_to(a, port, deadline));
    if (c.get() < 0) continue;
    char answer = 0;
    if (write_all(c.get(), reinterpret_cast<const char*>(head), sizeof head, deadline) &&
        write_all(c.get(), msg.data(), msg.size(), deadline) &&
        read_all(c.get(), &answer, 1, deadline) && answer == kTaken)
      return true;
  }
  return false;
}

}  // namespace iosweep::side
