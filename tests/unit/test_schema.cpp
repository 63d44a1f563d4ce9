// The schema's field tables are well formed, and results/README.md documents every field.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "model/schema.hpp"

using namespace iosweep;

TEST(Schema, FieldTablesAreWellFormed) {
  for (const TableDesc* t : all_tables()) {
    std::set<std::string> names;
    std::size_t last = 0;
    for (const auto& f : t->fields) {
      EXPECT_TRUE(names.insert(f.name).second) << t->name << "." << f.name;
      EXPECT_GE(f.offset, last) << t->name << "." << f.name;
      EXPECT_LT(f.offset, t->row_bytes);
      EXPECT_STRNE(f.unit, "");
      EXPECT_STRNE(f.reduction, "");
      last = f.offset;
    }
  }
}

TEST(Schema, ReadmeDocumentsEveryFieldOfEveryTable) {
  std::ifstream in(std::string(IOSWEEP_SOURCE_DIR) + "/results/README.md");
  ASSERT_TRUE(in) << "results/README.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const TableDesc* t : all_tables()) {
    EXPECT_NE(doc.find("### `" + std::string(t->name) + "`"), std::string::npos) << t->name;
    for (const auto& f : t->fields)
      EXPECT_NE(doc.find("| `" + std::string(f.name) + "` |"), std::string::npos)
          << t->name << "." << f.name << " is not documented";
  }
}
