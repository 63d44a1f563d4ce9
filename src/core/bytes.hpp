// Plain data to bytes and back, for what rank 0 decides and broadcasts (the run plan): values
// of trivially copyable types as they lie in memory (every rank runs the same binary), strings
// and vectors with their length first. The reader checks every length against what is left and
// throws std::runtime_error rather than read past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace iosweep {

class ByteWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    for (const T& x : v)
      put(x);
  }
  std::vector<char>& bytes() { return out_; }

 private:
  std::vector<char> out_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::vector<char>& in) : in_(in) {}
  template <class T>
  void get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof v);
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
  }
  void get(std::string& s) {
    const std::uint64_t n = length();
    need(n);
    s.assign(in_.data() + at_, n);
    at_ += n;
  }
  template <class T>
  void get(std::vector<T>& v) {
    const std::uint64_t n = length();
    v.assign(n, T{});
    for (T& x : v)
      get(x);
  }
  bool done() const { return at_ == in_.size(); }

 private:
  std::uint64_t length() {
    std::uint64_t n = 0;
    get(n);
    if (n > in_.size() - at_) throw std::runtime_error("plan bytes: a length past the end");
    return n;
  }
  void need(std::uint64_t n) const {
    if (n > in_.size() - at_) throw std::runtime_error("plan bytes: cut short");
  }
  const std::vector<char>& in_;
  std::size_t at_ = 0;
};

}  // namespace iosweep
