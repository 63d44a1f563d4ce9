// Metadata folders and items (see md_shape.hpp).
#include "core/md_shape.hpp"

#include <algorithm>
#include <limits>

namespace iosweep {
namespace {

constexpr std::uint64_t kNoCap = std::numeric_limits<std::uint64_t>::max();

void append_number(std::uint64_t v, std::string& out) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (n > 0)
    out += digits[--n];
}

}  // namespace

std::uint64_t share_of(std::uint64_t n, std::uint64_t parts, std::uint64_t p) {
  if (parts == 0) return 0;
  return n / parts + (p < n % parts ? 1 : 0);
}

std::uint64_t tree_count(unsigned depth, std::uint64_t branch, bool all_levels, std::uint64_t cap) {
  std::uint64_t level = 1, sum = all_levels ? 1 : 0;
  for (unsigned l = 1; l <= depth; ++l) {
    level = branch != 0 && level > cap / branch ? cap : level * branch;
    sum = all_levels ? (sum > cap - level ? cap : sum + level) : level;
  }
  if (!all_levels && depth == 0) sum = 1;
  return std::min(sum, cap);
}

std::uint64_t MdTree::folders() const {
  return tree_count(depth, branch, true, kNoCap);
}

std::uint64_t MdTree::leaves() const {
  return tree_count(depth, branch, false, kNoCap);
}

void MdTree::append_path(std::uint64_t j, std::string& out) const {
  std::uint64_t chain[64];
  unsigned n = 0;
  while (j > 0 && n < 64) {
    chain[n++] = (j - 1) % branch;
    j = parent(j);
  }
  while (n > 0) {
    out += 'd';
    append_number(chain[--n], out);
    if (n > 0) out += '/';
  }
}

void MdTree::append_leaf(std::uint64_t j, std::string& out) const {
  out += 'd';
  append_number((j - 1) % branch, out);
}

std::uint64_t auto_branch(unsigned depth, bool leaf_only, std::uint64_t per_folder,
                          std::uint64_t items) {
  if (per_folder == 0) return 1;
  const std::uint64_t need = items / per_folder + (items % per_folder != 0 ? 1 : 0);
  if (need <= 1) return 1;
  if (depth == 0) return 0;
  // The holders grow with the branch: the smallest branch that gives `need` of them.
  std::uint64_t lo = 1, hi = need;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (tree_count(depth, mid, !leaf_only, need) >= need)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

std::pair<std::uint64_t, std::uint64_t> interleaved(std::uint64_t n, std::uint64_t d,
                                                    std::uint64_t o) {
  const std::uint64_t m = n / d;
  if (o < m * d) return {o % d, o / d};
  return {o - m * d, m};
}

std::uint64_t interleaved_op(std::uint64_t n, std::uint64_t d, std::uint64_t s, std::uint64_t i) {
  const std::uint64_t m = n / d;
  return i < m ? i * d + s : m * d + s;
}

std::uint64_t MdLayout::folder_of(std::uint64_t i, std::uint64_t n) const {
  const std::uint64_t holders = tree.holders();
  const std::uint64_t per =
      per_folder != 0 ? per_folder : std::max<std::uint64_t>(1, (n + holders - 1) / holders);
  return tree.first_holder() + std::min(i / per, holders - 1);
}

std::uint64_t MdLayout::folder_ops(int position) const {
  if (shared) return position == 0 ? tree.folders() : 0;
  return streams * tree.folders();
}

std::pair<std::uint64_t, std::uint64_t> MdLayout::folder_op(std::uint64_t o) const {
  if (shared) return {0, o};
  return {o % streams, o / streams};
}

std::uint64_t MdLayout::make_needs(std::uint64_t o) const {
  const auto [s, j] = folder_op(o);
  if (j == 0) return 0;
  const std::uint64_t p = tree.parent(j);
  return (shared ? p : p * streams + s) + 1;
}

std::uint64_t MdLayout::remove_needs(int position, std::uint64_t o) const {
  const std::uint64_t total = folder_ops(position);
  const auto [s, j] = folder_op(total - 1 - o);
  if (tree.is_leaf(j)) return 0;
  // Its children come before it in removal order; the last of them is its first child.
  const std::uint64_t c = tree.first_child(j);
  return total - (shared ? c : c * streams + s);
}

void MdLayout::append_top(int position, std::uint64_t stream, std::string& out) const {
  if (shared) {
    out += "shared";
    return;
  }
  out += 't';
  append_number(static_cast<std::uint64_t>(position), out);
  out += '.';
  append_number(stream, out);
}

void MdLayout::append_folder(int position, std::uint64_t stream, std::uint64_t j,
                             std::string& out) const {
  append_top(position, stream, out);
  if (j == 0) return;
  out += '/';
  tree.append_path(j, out);
}

void MdLayout::append_item_name(int position, std::uint64_t stream, std::uint64_t i,
                                std::string& out) const {
  out += "f.";
  append_number(static_cast<std::uint64_t>(position), out);
  out += '.';
  append_number(stream, out);
  out += '.';
  append_number(i, out);
}

void MdLayout::append_item(int position, std::uint64_t stream, std::uint64_t i, std::uint64_t n,
                           std::string& out) const {
  append_folder(position, stream, folder_of(i, n), out);
  out += '/';
  append_item_name(position, stream, i, out);
}

void MdLayout::append_item_op(int position, std::uint64_t n, std::uint64_t o,
                              std::string& out) const {
  const auto [s, i] = interleaved(n, streams, o);
  append_item(position, s, i, share_of(n, streams, s), out);
}

void MdLayout::append_folder_op(int position, std::uint64_t o, std::string& out) const {
  const auto [s, j] = folder_op(o);
  append_folder(position, s, j, out);
}

}  // namespace iosweep
