// errno names: every value the C library names has iosweep's name for it, so no message says
// "errno 39" where ENOTEMPTY is meant; messages carry the strerror text, the value and the name.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.hpp"

using namespace iosweep;

TEST(Errors, EveryErrnoOfTheCLibraryHasItsName) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  int named = 0;
  for (int err = 1; err < 4096; ++err) {
    const char* libc = ::strerrorname_np(err);
    if (libc == nullptr) {
      EXPECT_EQ(errno_name(err), "errno " + std::to_string(err));
      continue;
    }
    EXPECT_EQ(errno_name(err), libc) << err;
    ++named;
  }
  EXPECT_GE(named, 131);  // Linux's <errno.h>: EPERM (1) .. EHWPOISON (133), 41 and 58 unused
#else
  GTEST_SKIP() << "strerrorname_np needs glibc 2.32 or later";
#endif
}

TEST(Errors, AMessageNamesTheErrno) {
  EXPECT_EQ(describe_errno(ENOTEMPTY), std::string(std::strerror(ENOTEMPTY)) + " (errno " +
                                           std::to_string(ENOTEMPTY) + ", ENOTEMPTY)");
  EXPECT_EQ(errno_name(EWOULDBLOCK), "EAGAIN");  // an alias: the name strerrorname_np gives
  EXPECT_EQ(errno_name(0), "errno 0");
  EXPECT_EQ(errno_name(-5), "errno -5");
}
