// The catalogue table of misconceptions/README.md is generated from the
// catalogue (key, misconception, source, what tells it apart), never
// written by hand: this test writes the table the catalogue gives to
// build/misconceptions/catalogue_table.md and requires the README's table
// to be exactly that (copy the file over the table when a family changes).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "attn/mis/catalogue.hpp"

namespace {

/// A cell's text with '|' escaped, so a sentence cannot split a row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

/// The table, header included, one row per family in catalogue order.
std::string catalogue_table() {
  std::ostringstream os;
  os << "| key | misconception | source | told apart from / by |\n| --- | --- | --- | --- |\n";
  for (const auto& f : attn::mis::catalogue())
    os << "| `" << f.key << "` | " << cell(f.misconception) << " | " << cell(f.source) << " | "
       << cell(f.told_apart_by) << " |\n";
  return os.str();
}

/// The README's table under "## The catalogue": its lines starting with '|'.
std::string readme_table(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line, out;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## The catalogue";
    if (in_section && line.rfind("|", 0) == 0) out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("the README's catalogue table is the catalogue's", "[keys]") {
  const std::string generated = catalogue_table();
  std::ofstream(ATTNLAB_MIS_BINARY_DIR "/catalogue_table.md") << generated;
  const std::string readme = readme_table(ATTNLAB_MIS_SOURCE_DIR "/README.md");
  INFO("the table the catalogue gives is in " ATTNLAB_MIS_BINARY_DIR "/catalogue_table.md");
  CHECK(readme == generated);
}
