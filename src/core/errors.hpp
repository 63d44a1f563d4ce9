// The three ways a run ends badly, each with its own exit status:
//   UsageError  bad input, found before anything is created: one line, exit status 2
//   IoError     an I/O call failed: names the call, file, offset (or, for a call on the whole
//               file, what is known instead) and errno (the rank and host are added by the
//               sweep, which knows them): exit status 1
//   RunFailure  the run completed its I/O but a result is wrong (count mismatch, verification
//               failure) or a collective decision ended it: exit status 1
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace iosweep {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 1;
// An operation outstanding longer than --stall-limit stopped the run (sweep/stall.hpp).
inline constexpr int kExitStalled = 3;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class IoError : public std::runtime_error {
 public:
  // A call that failed at an offset: "write of FILE at offset O failed: ...". `op` is the
  // failing call as a user reads it ("write", "read"); `err` is a positive errno value.
  IoError(const std::string& op, const std::string& path, std::uint64_t offset, int err,
          const std::string& detail = {});
  // A call on the whole file, which has no offset to name (open, close, fsync, lock, stat):
  // "close of FILE failed: ...; DETAIL", where the detail says what is known instead (the bytes
  // written since the last successful fsync), never a made-up offset.
  static IoError of_file(const std::string& op, const std::string& path, int err,
                         const std::string& detail = {});
  // The same for a named item or folder of the metadata phases ("create of PATH failed: ...").
  static IoError on_item(const std::string& op, const std::string& path, int err,
                         const std::string& detail = {}) {
    return of_file(op, path, err, detail);
  }
  const std::string& op() const { return op_; }
  const std::string& path() const { return path_; }
  std::optional<std::uint64_t> offset() const { return offset_; }
  int err() const { return err_; }

 private:
  IoError(const std::string& op, const std::string& path, std::optional<std::uint64_t> offset,
          int err, const std::string& detail, bool);

  std::string op_;
  std::string path_;
  std::optional<std::uint64_t> offset_;
  int err_;
};

// `text` made safe for a one-line message: control characters (a newline in a value, an escape
// sequence) and bytes that are not UTF-8 are written as \n, \t or \xNN, never echoed raw;
// valid UTF-8 stays as it is; nothing is cut.
std::string printable(std::string_view text);

// "ENOSPC" for 28, "errno 999" for unknown values.
std::string errno_name(int err);
// "No space left on device (errno 28, ENOSPC)"
std::string describe_errno(int err);

}  // namespace iosweep
