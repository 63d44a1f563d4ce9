// The TOML iosweep reads and writes (core/toml.hpp): every escape round-trips, the subset is
// strict, and what it does not take is refused with its line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/toml.hpp"

using namespace iosweep;

TEST(Toml, StringsRoundTripExactly) {
  for (const std::string& s : {std::string(""), std::string("plain"), std::string("a\"b\\c"),
                               std::string("line\nnext\r\t\b\f"), std::string("\x01\x1f\x7f"),
                               std::string("caf\xc3\xa9 \xf0\x9f\x92\xbe")}) {
    std::vector<TomlItem> items;
    ASSERT_EQ(parse_toml("k=" + toml_string(s) + "\n", items), "") << toml_string(s);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].values, std::vector<std::string>{s});
  }
}

TEST(Toml, TheSubsetPresetsUse) {
  std::vector<TomlItem> items;
  const char* text =
      "# comment\nfile-size = \"32MiB\"  # trailing\n"
      "phases = [\"seq-write\",\n  'seq-read', # a comment\n]\n"
      "keep = true\nfilter-every = 65_536\nkey = 0xfeed\n"
      "'quoted key' = 1.5e3\n";
  ASSERT_EQ(parse_toml(text, items), "");
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(items[0].key, "file-size");
  EXPECT_EQ(items[0].values[0], "32MiB");
  EXPECT_TRUE(items[1].array);
  EXPECT_EQ(items[1].values, (std::vector<std::string>{"seq-write", "seq-read"}));
  EXPECT_TRUE(items[2].boolean);
  EXPECT_EQ(items[3].values[0], "65536");
  EXPECT_EQ(items[4].values[0], "0xfeed");
  EXPECT_EQ(items[5].key, "quoted key");
}

TEST(Toml, WhatItDoesNotTakeIsRefusedWithItsLine) {
  const std::pair<const char*, const char*> bad[] = {
      {"[run]\nk = 1\n", "line 1: tables"},
      {"a.b = 1\n", "line 1: dotted keys"},
      {"k = \"\"\"x\"\"\"\n", "multi-line"},
      {"k = {a = 1}\n", "inline tables"},
      {"k = [[1]]\n", "arrays of arrays"},
      {"k = 1979-05-27\n", "is not a string, number or boolean"},
      {"k = \"unclosed\n", "not closed"},
      {"k = \"raw\ttab\x01\"\n", "control character"},
      {"k = \"\\q\"\n", "unknown escape"},
      {"k = \"\\uD800\"\n", "Unicode scalar"},
      {"k = 1\nk = 2\n", "line 2: 'k' is given twice"},
      {"k = 1 2\n", "end of the line"},
      {"k = \"\\u0000\"\n", "NUL"},
      {"k = \"\xff\"\n", "not UTF-8"},
      {"= 1\n", "option name"},
  };
  for (const auto& [text, says] : bad) {
    std::vector<TomlItem> items;
    const std::string why = parse_toml(text, items);
    EXPECT_NE(why.find(says), std::string::npos) << text << " -> " << why;
  }
}

TEST(Toml, Utf8ProblemsNameTheByte) {
  EXPECT_EQ(utf8_problem("caf\xc3\xa9"), "");
  EXPECT_NE(utf8_problem("caf\xe9").find("0xe9 at 3"), std::string::npos);
  EXPECT_NE(utf8_problem("\xc0\xaf").find("not valid UTF-8"), std::string::npos);      // overlong
  EXPECT_NE(utf8_problem("\xed\xa0\x80").find("not valid UTF-8"), std::string::npos);  // surrogate
  EXPECT_NE(utf8_problem(std::string("a\0b", 3)).find("NUL"), std::string::npos);
}
