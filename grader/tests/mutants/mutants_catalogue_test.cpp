// The bug-injection catalogue's metadata (exercises/mutants/): every mutant
// names its mutant, exercise, misconception, violated statement and the
// property expected to catch it; that property grades its exercise; every
// submission mutant is recognised as its exercise from the file alone (so
// `attnlab grade` takes it like a student's file); the catalogue covers
// F1-F4, both languages, and the library operations (tiled: T1, multi-head:
// M1, masks: C1). Grading the catalogue is the e2e tests' job (CMakeLists.txt).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "attn/mis/catalogue.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "commands/mutants.hpp"
#include "submission/recognise.hpp"
#include "attn/prop/catalog.hpp"

namespace fs = std::filesystem;
using namespace attn::grader;

namespace {

const fs::path kSource = ATTNLAB_SOURCE_DIR;
const fs::path kCatalogue = kSource / "exercises" / "mutants";

std::set<std::string> property_ids(const std::string& exercise) {
  std::set<std::string> ids;
  for (const auto& p : load_exercise(exercise).properties) ids.insert(p.id);
  return ids;
}

std::string text_of(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("mutants: every submission mutant has complete metadata", "[mutants]") {
  const auto list = mutant_catalogue(kCatalogue);
  REQUIRE(list.size() >= 24);
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& m : list) {
    INFO(m.file.string());
    CHECK_FALSE(m.name.empty());
    CHECK_FALSE(m.misconception.empty());
    CHECK_FALSE(m.violates.empty());
    // Unique per exercise (the matrix's row labels).
    CHECK(names.insert({m.exercise, m.name}).second);
    // The file name says the exercise: f3_*.py, t1_*.py.
    std::string prefix = m.exercise;
    std::transform(prefix.begin(), prefix.end(), prefix.begin(), ::tolower);
    CHECK(m.file.filename().string().rfind(prefix + "_", 0) == 0);
    // The declared catcher is one of the exercise's properties.
    CHECK(property_ids(m.exercise).count(m.caught_by) == 1);
  }
}

TEST_CASE("mutants: every mutant's header names a catalogue key with advice", "[mutants][keys]") {
  const auto catalogue = mutant_catalogue(kCatalogue);
  REQUIRE(catalogue.size() >= 40);
  for (const auto& m : catalogue) {
    INFO(m.file.filename().string() << ": key '" << m.key << "'");
    REQUIRE_FALSE(m.key.empty());
    CHECK(attn::mis::find_family(m.key) != nullptr);
    CHECK(attn::mis::has_advice(m.key));
  }
}

TEST_CASE("mutants: a key parameter is its text before a remark, and none without '='", "[mutants][keys]") {
  const MutantInfo twice = read_mutant_info(kCatalogue / "f3_scale_twice.py");
  CHECK(twice.key == "wrong_scale");
  CHECK(twice.key_parameter == "scale=1/d_k");  // "scale=1/d_k (scaled twice)"
  const MutantInfo eps = read_mutant_info(kCatalogue / "f3_epsilon_denominator.py");
  CHECK(eps.key == "epsilon_denominator");
  CHECK(eps.key_parameter.empty());  // "epsilon (fitted)"
  const MutantInfo diag = read_mutant_info(kCatalogue / "c1_diagonal_forbidden.cpp");
  CHECK(diag.key == "diagonal_forbidden");
  CHECK(diag.key_parameter.empty());
}

TEST_CASE("mutants: each submission mutant is recognised as its exercise from the file", "[mutants]") {
  for (const auto& m : mutant_catalogue(kCatalogue)) {
    INFO(m.file.string());
    const Recognition r = recognise_exercise(m.file);
    CHECK(r.status == Recognition::Status::recognised);
    CHECK(r.exercise == m.exercise);
    // F4 and T1 share F3's Python function names, and C1's names are common
    // helper names: their files say so.
    if (m.file.extension() == ".py" && (m.exercise == "F4" || m.exercise == "T1" || m.exercise == "C1"))
      CHECK(text_of(m.file).find("# exercise: " + m.exercise) != std::string::npos);
  }
}

TEST_CASE("mutants: the catalogue covers F1-F4 in both languages and the library operations",
          "[mutants]") {
  std::map<std::string, int> per_exercise;
  std::map<std::string, std::set<std::string>> languages;
  for (const auto& m : mutant_catalogue(kCatalogue)) {
    ++per_exercise[m.exercise];
    languages[m.exercise].insert(m.file.extension().string());
  }
  for (const std::string ex : {"F1", "F2", "F3", "F4"}) {
    INFO(ex);
    CHECK(per_exercise[ex] >= 3);
    CHECK(languages[ex] == std::set<std::string>{".cpp", ".py"});
  }
  CHECK(per_exercise["T1"] >= 3);  // the tiled kernel: no rescale, NaN tile, last tile dropped
  CHECK(languages["T1"] == std::set<std::string>{".cpp", ".py"});
  std::set<std::string> tiled;
  for (const auto& m : mutant_catalogue(kCatalogue))
    if (m.exercise == "T1") tiled.insert(m.name);
  CHECK(tiled.count("no_rescale") == 1);
  CHECK(tiled.count("forbidden_tile_nan") == 1);
  CHECK(tiled.count("last_tile_dropped") == 1);

  // Multi-head attention: heads concatenated in the wrong order, one W_O
  // applied per head, in both languages.
  CHECK(per_exercise["M1"] >= 3);
  CHECK(languages["M1"] == std::set<std::string>{".cpp", ".py"});
  std::set<std::string> heads;
  for (const auto& m : mutant_catalogue(kCatalogue))
    if (m.exercise == "M1") heads.insert(m.name);
  CHECK(heads.count("heads_reversed") == 1);
  CHECK(heads.count("one_wo_per_head") == 1);
  // Building the masks: the diagonal, the alignment, the polarity, the padding.
  CHECK(per_exercise["C1"] >= 3);
  CHECK(languages["C1"] == std::set<std::string>{".cpp", ".py"});
}

TEST_CASE("mutants: a header without a field is refused, naming the field", "[mutants]") {
  const fs::path f = fs::path(ATTNLAB_GRADER_TEST_DATA) / "mutants" / "bad_header" / "f3_no_header.py";
  REQUIRE_THROWS_WITH(read_mutant_info(f), Catch::Contains("'mutant:'"));
}

TEST_CASE("mutants: T1 is a graded pseudo-exercise of the tiled kernel", "[mutants][T1]") {
  const Exercise t1 = load_exercise("T1");
  CHECK(t1.op == attn::prop::Operation::attention_tiled);
  CHECK(property_ids("T1").count("tiled_equals_naive") == 1);
  CHECK(property_ids("T1").count("oracle_agreement") == 1);
  CHECK(t1.max_points() > 0);
  CHECK(graded_exercise_ids(ExerciseGroup::library) == std::vector<std::string>{"T1", "M1", "C1", "B1"});
  for (const char* file : {"attention_tiled.py", "attention_tiled.cpp"}) {
    INFO(file);
    const Recognition r = recognise_exercise(kSource / "solutions" / "T1" / file);
    CHECK(r.status == Recognition::Status::recognised);
    CHECK(r.exercise == "T1");
  }
}

TEST_CASE("mutants: M1 is a graded pseudo-exercise of multi-head attention", "[mutants][M1]") {
  const Exercise m1 = load_exercise("M1");
  CHECK(m1.op == attn::prop::Operation::multi_head_attention);
  CHECK(property_ids("M1") ==
        std::set<std::string>{"oracle_agreement", "heads_in_order", "fully_forbidden_refused"});
  CHECK(m1.max_points() == 6);
  for (const char* file : {"multi_head_attention.py", "multi_head_attention.cpp"}) {
    INFO(file);
    const Recognition r = recognise_exercise(kSource / "solutions" / "M1" / file);
    CHECK(r.status == Recognition::Status::recognised);
    CHECK(r.exercise == "M1");
  }
}

TEST_CASE("mutants: C1 is a graded pseudo-exercise of the masks", "[mutants][C1]") {
  const Exercise c1 = load_exercise("C1");
  CHECK(property_ids("C1") == std::set<std::string>{"causal_mask_matches_definition",
                                                    "padding_mask_matches_definition"});
  CHECK(c1.max_points() == 3);
  for (const char* file : {"masks.py", "masks.cpp"}) {
    INFO(file);
    const Recognition r = recognise_exercise(kSource / "solutions" / "C1" / file);
    CHECK(r.status == Recognition::Status::recognised);
    CHECK(r.exercise == "C1");
  }
  // A helper named causal_mask in an attention file does not make it C1.
  const Recognition f3 = recognise_exercise(kSource / "solutions" / "F3" / "attention.py");
  CHECK(f3.exercise == "F3");
}
