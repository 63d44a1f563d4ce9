// A side channel to one process over TCP, outside MPI: how a rank whose main thread is stuck in
// a system call tells rank 0 why, from a thread of its own. MPI runs at MPI_THREAD_FUNNELED (only
// the main thread may call it), and raising that level would put locks into every MPI call of
// the timed windows (MPI-IO, ship-count); a stuck rank's MPI cannot progress anyway.
//
// The inbox listens on every address of its host (an ephemeral port, IPv6 and IPv4); a sender
// tries the addresses it was given in turn, each bounded by a timeout, sends one message
// (4-byte length, then the text) and waits for the one-byte answer that says the inbox took it.
// Every message starts with a token the inbox was made with: a message without it (another
// program, another run that reached this port) is refused without an answer, so a sender that
// reached the wrong listener tries the next address. Nothing here blocks beyond its timeouts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iosweep::side {

// The numeric addresses of this host's interfaces that are up, loopback last.
std::vector<std::string> local_addresses();

class Inbox {
 public:
  // Listens on an ephemeral port; port() is 0 when no socket could be made (then nothing is
  // ever received, and why() says why).
  explicit Inbox(std::string token);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;
  std::uint16_t port() const { return port_; }
  const std::string& why() const { return why_; }
  // Waits up to `timeout_ms` for messages; returns their texts (token removed), each answered.
  // A connection that sends too slowly or too much is closed (each gets at most 1 s).
  std::vector<std::string> receive(int timeout_ms);

 private:
  std::string token_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::string why_;
};

// Sends `text` to the first of `addresses` (at `port`) whose inbox holds `token` and answers;
// each address gets `timeout_ms` to connect and answer. True when an inbox took it.
bool deliver(const std::vector<std::string>& addresses, std::uint16_t port,
             const std::string& token, const std::string& text, int timeout_ms);

}  // namespace iosweep::side
