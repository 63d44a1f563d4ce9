// The metadata phases' tree and naming arithmetic: counts, paths, holders, the automatic
// branch, the round-robin order over streams, and the order folders are made and removed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/md_shape.hpp"

using namespace iosweep;

TEST(MdShape, TreeCountsAndPaths) {
  const MdTree t{.depth = 2, .branch = 3, .leaf_only = true};
  EXPECT_EQ(t.folders(), 13u);  // 1 + 3 + 9
  EXPECT_EQ(t.leaves(), 9u);
  EXPECT_EQ(t.first_holder(), 4u);
  std::set<std::string> paths;
  for (std::uint64_t j = 0; j < t.folders(); ++j) {
    std::string p;
    t.append_path(j, p);
    EXPECT_TRUE(paths.insert(p).second) << p;
    if (j > 0) {  // the parent's path is this path without its last component
      std::string parent;
      t.append_path(t.parent(j), parent);
      EXPECT_EQ(p.substr(0, p.rfind('/') == std::string::npos ? 0 : p.rfind('/')), parent);
    }
    EXPECT_EQ(t.is_leaf(j), j >= 4) << j;
  }
  std::string p;
  t.append_path(12, p);
  EXPECT_EQ(p, "d2/d2");
  const MdTree chain{.depth = 3, .branch = 1, .leaf_only = false};
  EXPECT_EQ(chain.folders(), 4u);
  EXPECT_EQ(chain.holders(), 4u);
  EXPECT_EQ(chain.first_holder(), 0u);
  EXPECT_EQ(tree_count(40, 1000, true, 1u << 20), 1u << 20);  // saturates
  EXPECT_EQ(tree_count(0, 7, false, 100), 1u);
}

TEST(MdShape, AutoBranchGivesEveryItemAFolder) {
  // PixStor: 2^21 files over k ranks, 1024 per folder, one level of leaves.
  for (std::uint64_t k : {1u, 2u, 64u, 512u}) {
    const std::uint64_t n = (1u << 21) / k;
    EXPECT_EQ(auto_branch(1, true, 1024, n), 2048 / k) << k;
  }
  EXPECT_EQ(auto_branch(2, true, 10, 1000), 10u);  // 100 leaves
  EXPECT_EQ(auto_branch(2, true, 10, 1001), 11u);
  EXPECT_EQ(auto_branch(0, true, 10, 10), 1u);
  EXPECT_EQ(auto_branch(0, true, 10, 11), 0u);  // one folder cannot hold them
  EXPECT_EQ(auto_branch(3, true, 0, 12345), 1u);
  EXPECT_EQ(auto_branch(1, false, 4, 12), 2u);  // top + 2 children hold 12
}

TEST(MdShape, SharesAndRoundRobinCoverEveryItemOnce) {
  for (std::uint64_t n : {0u, 1u, 7u, 64u, 1001u})
    for (std::uint64_t d : {1u, 3u, 8u}) {
      std::uint64_t sum = 0;
      for (std::uint64_t s = 0; s < d; ++s)
        sum += share_of(n, d, s);
      EXPECT_EQ(sum, n);
      std::map<std::uint64_t, std::uint64_t> next;  // stream -> its next index
      for (std::uint64_t o = 0; o < n; ++o) {
        const auto [s, i] = interleaved(n, d, o);
        ASSERT_LT(s, d);
        EXPECT_EQ(i, next[s]++) << "a prefix of the order is a prefix of every stream";
        ASSERT_LT(i, share_of(n, d, s));
        EXPECT_EQ(interleaved_op(n, d, s, i), o) << "the inverse of the order";
      }
    }
}

TEST(MdShape, ItemsFillTheirFolders) {
  const MdLayout l{.tree = {.depth = 1, .branch = 4, .leaf_only = true}, .per_folder = 3};
  std::map<std::uint64_t, int> per;
  for (std::uint64_t i = 0; i < 12; ++i)
    ++per[l.folder_of(i, 12)];
  EXPECT_EQ(per, (std::map<std::uint64_t, int>{{1, 3}, {2, 3}, {3, 3}, {4, 3}}));
  const MdLayout spread{.tree = {.depth = 1, .branch = 4, .leaf_only = true}};
  per.clear();
  for (std::uint64_t i = 0; i < 10; ++i)
    ++per[spread.folder_of(i, 10)];
  EXPECT_EQ(per.size(), 4u);  // 3, 3, 3, 1
}

TEST(MdShape, NamesAreUniqueAndCarryPositionStreamAndIndex) {
  const MdLayout l{.tree = {.depth = 1, .branch = 2}, .streams = 2, .per_folder = 2};
  std::set<std::string> names;
  for (int q = 0; q < 3; ++q)
    for (std::uint64_t o = 0; o < 7; ++o) {
      std::string s;
      l.append_item_op(q, 7, o, s);
      EXPECT_TRUE(names.insert(s).second) << s;
    }
  std::string first;
  l.append_item_op(1, 7, 0, first);
  EXPECT_EQ(first, "t1.0/d0/f.1.0.0");
  MdLayout all = l;
  all.shared = true;
  std::string shared;
  all.append_item_op(2, 7, 3, shared);
  EXPECT_EQ(shared, "shared/d0/f.2.1.1");  // op 3: stream 1's second item
}

TEST(MdShape, FoldersAreMadeParentsFirstAndRemovedChildrenFirst) {
  for (bool shared : {false, true}) {
    const MdLayout l{.tree = {.depth = 2, .branch = 3}, .shared = shared, .streams = 2};
    const std::uint64_t total = l.folder_ops(0);
    ASSERT_EQ(total, shared ? 13u : 26u);
    EXPECT_EQ(l.folder_ops(1), shared ? 0u : 26u);
    std::vector<std::string> made;
    for (std::uint64_t o = 0; o < total; ++o) {
      std::string name;
      l.append_folder_op(0, o, name);
      made.push_back(name);
      // Everything this op waits for is before it, and its parent is among them.
      const std::uint64_t need = l.make_needs(o);
      ASSERT_LE(need, o);
      if (name.find('/') != std::string::npos) {
        const std::string parent = name.substr(0, name.rfind('/'));
        const auto at = std::find(made.begin(), made.end(), parent) - made.begin();
        EXPECT_LT(static_cast<std::uint64_t>(at), need) << name;
      }
    }
    // Removal: the reverse order; every child of a folder is among the ops it waits for.
    for (std::uint64_t o = 0; o < total; ++o) {
      const std::string& name = made[total - 1 - o];
      const std::uint64_t need = l.remove_needs(0, o);
      ASSERT_LE(need, o);
      for (std::uint64_t r = need; r < total; ++r)
        EXPECT_NE(made[total - 1 - r].rfind(name + "/", 0), 0u)
            << made[total - 1 - r] << " is removed after its parent " << name;
    }
  }
}
