// What a run records about its configuration, as named values: the option table makes them
// (app/option_table.cpp, each row says how its option is recorded) and the results writer
// stores each as an attribute of the run's group, without knowing any option by name.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace iosweep {

using AttributeValue = std::variant<std::string, std::int64_t, std::uint64_t, double>;

struct RunAttribute {
  std::string name;  // the attribute's name in the run group (results/README.md)
  AttributeValue value;
};

class RunAttributes {
 public:
  void text(std::string name, std::string v) { add(std::move(name), std::move(v)); }
  void integer(std::string name, std::int64_t v) { add(std::move(name), v); }
  void flag(std::string name, bool v) { add(std::move(name), std::int64_t{v ? 1 : 0}); }
  void u64(std::string name, std::uint64_t v) { add(std::move(name), v); }
  void real(std::string name, double v) { add(std::move(name), v); }
  const std::vector<RunAttribute>& all() const { return all_; }

 private:
  void add(std::string name, AttributeValue v) { all_.push_back({std::move(name), std::move(v)}); }
  std::vector<RunAttribute> all_;
};

}  // namespace iosweep
