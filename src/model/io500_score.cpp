// The IO500 score and rules (see io500_score.hpp).
#include "model/io500_score.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace iosweep {

std::string io500_step_phase(const std::string& step_name) {
  const std::size_t slash = step_name.find('/');
  return slash == std::string::npos ? step_name : step_name.substr(slash + 1);
}

int io500_step_repetition(const std::string& step_name) {
  const std::size_t slash = step_name.find('/');
  if (step_name.size() < 3 || step_name[0] != 'r' || slash == std::string::npos) return 1;
  int r = 0;
  for (std::size_t i = 1; i < slash; ++i) {
    if (step_name[i] < '0' || step_name[i] > '9' || r > 100000) return 1;
    r = r * 10 + (step_name[i] - '0');
  }
  return r > 0 ? r : 1;
}

bool io500_phase_kind(const std::string& name, Io500Group& group, bool& write, bool& dummy) {
  struct Row {
    const char* name;
    Io500Group group;
    bool write, dummy;
  };
  static const Row rows[] = {
      {"ior-easy-write", Io500Group::bw, true, false},
      {"mdtest-easy-write", Io500Group::md, true, false},
      {"timestamp", Io500Group::none, false, true},
      {"ior-hard-write", Io500Group::bw, true, false},
      {"mdtest-hard-write", Io500Group::md, true, false},
      {"find", Io500Group::md, false, false},
      {"ior-easy-read", Io500Group::bw, false, false},
      {"mdtest-easy-stat", Io500Group::md, false, false},
      {"ior-hard-read", Io500Group::bw, false, false},
      {"mdtest-hard-stat", Io500Group::md, false, false},
      {"mdtest-easy-delete", Io500Group::md, false, false},
      {"mdtest-hard-read", Io500Group::md, false, false},
      {"mdtest-hard-delete", Io500Group::md, false, false},
      {"ior-rnd4K-easy-read", Io500Group::none, false, false},
  };
  for (const Row& r : rows)
    if (name == r.name) {
      group = r.group;
      write = r.write;
      dummy = r.dummy;
      return true;
    }
  return false;
}

void io500_check_phase(Io500Phase& p, double stonewall_s, double min_write_s) {
  char line[256];
  if (p.errors > 0) {
    std::snprintf(line, sizeof line,
                  "Errors (%llu) occured during phase. This invalidates your run.",
                  static_cast<unsigned long long>(p.errors));
    p.invalid.emplace_back(line);
  }
  if (p.write && p.time_s < stonewall_s) {
    std::snprintf(line, sizeof line,
                  "Runtime of phase (%f) is below stonewall time. This "
                  "shouldn't happen!",
                  p.time_s);
    p.invalid.emplace_back(line);
  } else if (!p.dummy && p.score == 0.0) {
    p.invalid.emplace_back("Resulting score shouldn't be 0.0");
  }
  if (p.write && p.time_s < min_write_s)
    p.invalid.emplace_back("Runtime is smaller than expected minimum runtime");
  if (p.name == "find" && p.found == 0)
    p.invalid.emplace_back("Find didn't find anything, this is likely invalid.");
}

Io500Score io500_score(const std::vector<Io500Phase>& phases) {
  Io500Score s;
  for (const Io500Group g : {Io500Group::md, Io500Group::bw}) {
    double product = 1;
    int numbers = 0;
    for (const Io500Phase& p : phases) {
      if (p.group != g || p.score <= 0) continue;
      product *= p.score;
      ++numbers;
    }
    const double score = numbers == 0 ? 0 : std::pow(product, 1.0 / numbers);
    (g == Io500Group::md ? s.md : s.bw) = score;
  }
  s.total = std::sqrt(s.md * s.bw);
  return s;
}

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// numpy's default percentile: linear between the sorted values' ranks.
double percentile(const std::vector<double>& sorted, double q) {
  const double at = q / 100 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

Io500Interval io500_interval(const std::vector<double>& values) {
  if (values.empty()) return {};
  constexpr int kResamples = 2000;
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  std::vector<double> medians, draw(values.size());
  medians.reserve(kResamples);
  for (int i = 0; i < kResamples; ++i) {
    for (double& d : draw)
      d = values[pick(rng)];
    medians.push_back(median_of(draw));
  }
  std::sort(medians.begin(), medians.end());
  return {median_of(values), percentile(medians, 2.5), percentile(medians, 97.5)};
}

}  // namespace iosweep
