// What the stall watch is built on: the pulse a rank's steps publish (core/pulse.hpp), the side
// channel a stuck rank tells rank 0 through (os/side_channel.hpp), and the writeback counter a
// flush is judged by (os/file_ops.hpp).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "core/clock.hpp"
#include "core/pulse.hpp"
#include "os/file_ops.hpp"
#include "os/side_channel.hpp"

using namespace iosweep;

TEST(Pulse, AStepIsSeenWithWhatItIsAndNestedStepsRestoreTheOuterOne) {
  Pulse p;
  EXPECT_EQ(p.seen().since_ns, 0u);  // idle
  {
    const PulseStep outer(&p, "prepare", "preparing /d/f");
    const Pulse::Seen o = p.seen();
    EXPECT_NE(o.since_ns, 0u);
    EXPECT_STREQ(o.verb, "prepare");
    EXPECT_EQ(p.describe(o), "preparing /d/f");
    {
      // An I/O loop's steps: the verb once, then the time and offset of each submission.
      const Pulse::Describer d(&p, [](const char* verb, std::uint64_t where) {
        return std::string(verb) + " of /d/f" +
               (where == Pulse::kNowhere ? "" : " at offset " + std::to_string(where));
      });
      p.set_verb("write");
      EXPECT_EQ(p.seen().since_ns, 0u);
      p.at(4096, 17);
      const Pulse::Seen w = p.seen();
      EXPECT_EQ(w.since_ns, 17u);
      EXPECT_EQ(p.describe(w), "write of /d/f at offset 4096");
      p.busy("fsync", Pulse::kNowhere, 18);
      EXPECT_EQ(p.describe(p.seen()), "fsync of /d/f");
      p.idle();
    }
    // The outer step again, its clock started anew: the inner one's time is not its own.
    const Pulse::Seen back = p.seen();
    EXPECT_STREQ(back.verb, "prepare");
    EXPECT_GE(back.since_ns, o.since_ns);
    EXPECT_EQ(p.describe(back), "preparing /d/f");
  }
  EXPECT_EQ(p.seen().since_ns, 0u);
  EXPECT_EQ(p.describe(p.seen()), "prepare");  // no describer left: the verb alone
}

TEST(SideChannel, AMessageReachesTheInboxThatHoldsItsTokenAndNoOther) {
  side::Inbox inbox("token-a");
  ASSERT_NE(inbox.port(), 0) << inbox.why();
  const std::vector<std::string> addresses = side::local_addresses();
  ASSERT_FALSE(addresses.empty());
  std::vector<std::string> got;
  std::thread reader([&] {
    for (int i = 0; i < 100 && got.empty(); ++i)
      for (auto& m : inbox.receive(100))
        got.push_back(m);
  });
  EXPECT_TRUE(side::deliver(addresses, inbox.port(), "token-a", "stalled\t1.0 s\trank 3", 2000));
  reader.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "stalled\t1.0 s\trank 3");
  // Another run's token: refused without an answer, so the sender knows it was not taken.
  std::thread other([&] { inbox.receive(1500); });
  EXPECT_FALSE(side::deliver(addresses, inbox.port(), "token-b", "stalled\t1.0 s\tx", 500));
  other.join();
  // Nobody listening, or no port at all: bounded, and false.
  const std::uint64_t t0 = now_ns();
  EXPECT_FALSE(side::deliver({"127.0.0.1"}, 1, "token-a", "x", 500));
  EXPECT_FALSE(side::deliver(addresses, 0, "token-a", "x", 500));
  EXPECT_LT(now_ns() - t0, 3'000'000'000ull);
}

TEST(FileOps, WritebackIsDirtyPlusWritebackOfMeminfo) {
  const std::string meminfo =
      "MemTotal:        8123456 kB\n"
      "Dirty:              1024 kB\n"
      "Writeback:           512 kB\n"
      "WritebackTmp:          7 kB\n";
  EXPECT_EQ(fsops::parse_meminfo_writeback(meminfo), 1536ull * 1024);
  EXPECT_EQ(fsops::parse_meminfo_writeback(""), 0u);
  EXPECT_GT(fsops::parse_meminfo_writeback("Dirty: 0 kB\nWriteback: 4 kB\n"), 0u);
}
