// The schema's field tables are well formed, and results/README.md documents every field.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

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

namespace {

// A field type as results/README.md writes it.
std::string type_text(FieldType t) {
  switch (t) {
    case FieldType::u8:
      return "uint8";
    case FieldType::i32:
      return "int32";
    case FieldType::u32:
      return "uint32";
    case FieldType::u64:
      return "uint64";
    case FieldType::f64:
      return "float64";
    case FieldType::phase_enum:
      return "enum uint8 (phase)";
    case FieldType::status_enum:
      return "enum uint8 (status)";
    case FieldType::engine_enum:
      return "enum uint8 (engine)";
    case FieldType::str64:
      return "string[64]";
    case FieldType::str256:
      return "string[256]";
  }
  return "?";
}

}  // namespace

// Every field of every table has its row in its table's section of results/README.md, with the
// type, unit and reduction the file itself stores.
TEST(Schema, ReadmeDocumentsEveryFieldOfEveryTable) {
  std::ifstream in(std::string(IOSWEEP_SOURCE_DIR) + "/results/README.md");
  ASSERT_TRUE(in) << "results/README.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const TableDesc* t : all_tables()) {
    const auto at = doc.find("### `" + std::string(t->name) + "`");
    ASSERT_NE(at, std::string::npos) << t->name;
    const auto next = doc.find("\n#", at + 1);
    const std::string section = doc.substr(at, next == std::string::npos ? next : next - at);
    for (const auto& f : t->fields) {
      const std::string row = "| `" + std::string(f.name) + "` | " + type_text(f.type) + " | " +
                              f.unit + " | " + f.reduction + " |";
      EXPECT_NE(section.find(row), std::string::npos)
          << t->name << "." << f.name << " is not documented as\n"
          << row;
    }
  }
}
