// The exercise registry (exercises/registry.json, exercises/registry.hpp):
// every spec has what the grader needs, and a registry that is wrong is
// refused naming the file, the exercise and the member.
#include <filesystem>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "attn/grader/paths.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "submission/cpp_build.hpp"
#include "attn/prop/property.hpp"

using namespace attn::grader;
namespace fs = std::filesystem;

namespace {

/// A registry holding one spec whose members are `members` (JSON text without braces).
std::string one_spec(const std::string& members) {
  return R"({"exercises": [{)" + members + "}]}";
}

const std::string kGood =
    R"("id": "Y1", "of_the_text": false, "title": "t", "section": "s", "operation": "attention",
       "ops": ["attention"], "python": {"entries": ["f"]})";

/// The message parse_exercise_registry throws for `text`, empty if it does not throw.
std::string refusal(const std::string& text) {
  try {
    parse_exercise_registry(text, "reg.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every exercise of the registry has its folder, points, harness and properties", "[registry]") {
  REQUIRE(exercise_specs().size() >= 7);
  std::set<std::string> ids;
  for (const auto& spec : exercise_specs()) {
    INFO(spec.id);
    CHECK(ids.insert(spec.id).second);
    const fs::path folder = fs::path(paths::exercises_dir) / spec.id;
    CHECK(fs::is_regular_file(folder / "points.json"));
    CHECK(fs::is_regular_file(folder / "README.md"));
    CHECK_FALSE(spec.title.empty());
    CHECK_FALSE(spec.section.empty());
    CHECK_FALSE(spec.python.entries.empty());
    // Every property that grades it is worth points in its table, and the
    // table names nothing else.
    const Exercise e = load_exercise(spec.id);
    std::set<std::string> graded;
    for (const auto& p : e.properties) graded.insert(p.id);
    if (e.has_answers()) graded.insert(kAnswersItem);
    std::set<std::string> tabled;
    for (const auto& [id, _] : e.points) tabled.insert(id);
    CHECK(graded == tabled);
    if (!spec.cpp.header.empty()) {
      CHECK(fs::is_regular_file(folder / spec.cpp.header));
      const CppToolchain t = toolchain_for(spec.id);
      CHECK(fs::is_regular_file(t.harness_library));
    }
    for (const auto& f : spec.bundled.solutions) CHECK(fs::is_regular_file(fs::path(paths::source_dir) / f));
  }
}

TEST_CASE("the registry's lists are the exercises' ids in order", "[registry]") {
  CHECK(graded_exercise_ids(ExerciseGroup::of_the_text) == std::vector<std::string>{"F1", "F2", "F3", "F4"});
  CHECK(graded_exercise_ids(ExerciseGroup::library) == std::vector<std::string>{"T1", "M1", "C1", "B1"});
  CHECK(graded_exercise_ids() == std::vector<std::string>{"F1", "F2", "F3", "F4", "T1", "M1", "C1", "B1"});
  CHECK(graded_exercises_text() == "F1, F2, F3, F4 and the library operations T1, M1, C1, B1");
  CHECK(answers_exercises_text() == "F2 or F4");
  CHECK(answers_exercises_text(" and ") == "F2 and F4");
  CHECK(not_graded_reason("F5").has_value());
  CHECK_FALSE(not_graded_reason("F3").has_value());
}

TEST_CASE("a registry that is wrong is refused, naming the exercise and the member", "[registry]") {
  REQUIRE(refusal(one_spec(kGood)).empty());
  const auto parsed = parse_exercise_registry(one_spec(kGood), "reg.json");
  CHECK(parsed.exercises.at(0).protocol_recognised_by == std::vector<std::string>{"attention"});
  CHECK_THAT(refusal(one_spec(kGood + R"(, "answer": "post_softmax_row_sum")")),
             Catch::Contains("reg.json") && Catch::Contains("unknown member \"answer\""));
  CHECK_THAT(refusal(one_spec(kGood + R"(, "answers": "some_form")")),
             Catch::Contains("exercise Y1") && Catch::Contains("unknown answers form"));
  std::string bad_op = kGood;
  bad_op.replace(bad_op.find("\"attention\""), 11, "\"atention\"");
  CHECK_THAT(refusal(one_spec(bad_op)), Catch::Contains("exercise Y1: unknown operation \"atention\""));
  CHECK_THAT(refusal(R"({"exercises": [{)" + kGood + "}, {" + kGood + "}]}"),
             Catch::Contains("exercise Y1 twice"));
  CHECK_THAT(refusal(one_spec(R"("id": "Y2")")), Catch::Contains("reg.json"));
  CHECK_THAT(refusal(one_spec(kGood + R"(, "cpp": {"header": "h.hpp", "namespace": "y1", "entry": ["f"]})")),
             Catch::Contains("exercise Y1, cpp: unknown member \"entry\""));
  CHECK_THAT(refusal("{\"exercises\": [}"), Catch::Contains("reg.json"));
}
