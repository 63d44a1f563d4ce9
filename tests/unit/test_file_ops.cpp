// Untimed file operations: a run removes only what it created; directory and O_DIRECT checks.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "os/file_ops.hpp"
#include "phases/file_set.hpp"

using namespace iosweep;
namespace fs = std::filesystem;

namespace {
std::string make_dir() {
  char tmpl[] = "/tmp/iosweep-fops-XXXXXX";
  return mkdtemp(tmpl);
}
void touch(const std::string& p) {
  ::close(::open(p.c_str(), O_CREAT | O_WRONLY, 0644));
}
}  // namespace

TEST(FileOps, RemoveOnlyWhenTheIdentityStillMatches) {
  const std::string d = make_dir(), p = d + "/f";
  touch(p);
  const auto id = fsops::identity_of(p);
  ASSERT_TRUE(id.valid);
  const std::string other = d + "/other";
  touch(other);
  ASSERT_EQ(::rename(other.c_str(), p.c_str()), 0);  // somebody else's file now carries the name
  EXPECT_FALSE(fsops::remove_if_same(p, id));
  EXPECT_TRUE(fsops::exists(p));
  EXPECT_TRUE(fsops::remove_if_same(p, fsops::identity_of(p)));
  EXPECT_FALSE(fsops::exists(p));
  fs::remove_all(d);
}

TEST(FileOps, FileSetNamesCarryRunAndPositionAndRemoveOnlyOwnFiles) {
  const std::string d = make_dir();
  FileSet mine({d}, {0, 0, 0, 0}, "RUN1", "RUN1", 3);
  EXPECT_EQ(mine.path(3), d + "/iosweep.RUN1.3");
  touch(mine.path(3));  // not created through the FileSet: not ours
  EXPECT_FALSE(mine.own_exists(1));
  mine.remove_own();
  EXPECT_TRUE(fsops::exists(mine.path(3)));
  ::unlink(mine.path(3).c_str());
  touch(mine.path(3));
  mine.note_created(fsops::identity_of(mine.path(3)));
  EXPECT_TRUE(mine.own_exists(1));
  mine.remove_own();
  EXPECT_FALSE(fsops::exists(mine.path(3)));
  fs::remove_all(d);
}

TEST(FileOps, DirectoryChecks) {
  const std::string d = make_dir();
  EXPECT_EQ(fsops::check_writable_dir(d), "");
  EXPECT_NE(fsops::check_writable_dir(d + "/missing").find("does not exist"), std::string::npos);
  touch(d + "/file");
  EXPECT_NE(fsops::check_writable_dir(d + "/file").find("not a folder"), std::string::npos);
  fs::remove_all(d);
}

TEST(FileOps, PreallocatedFileHasItsSizeAndIsExclusive) {
  const std::string d = make_dir(), p = d + "/pre";
  const auto id = fsops::create_preallocated(p, 1 << 20);
  EXPECT_TRUE(id.valid);
  EXPECT_EQ(fsops::size_of(p), 1u << 20);
  EXPECT_ANY_THROW(fsops::create_preallocated(p, 1 << 20));
  fs::remove_all(d);
}
