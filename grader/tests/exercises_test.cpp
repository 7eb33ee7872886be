// Exercises F1-F4 (and the library operations T1, M1, C1, B1) in the grader: the
// registry (properties, points, entry points), recognising a submission's
// exercise from its file, the answers files of F2 and F4, and the visible
// examples of the softmax exercises.
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include <fstream>

#include <catch2/catch.hpp>

#include "diagnosis/feedback.hpp"
#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "attn/grader/paths.hpp"
#include "submission/recognise.hpp"
#include "attn/prop/lib_subject.hpp"
#include "attn/ref/textbook.hpp"
#include "attn/prop/catalog.hpp"

using namespace attn::grader;
using Status = Recognition::Status;

namespace {

std::filesystem::path source(const std::string& relative) {
  return std::filesystem::path(paths::source_dir) / relative;
}

std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(ATTNLAB_GRADER_TEST_DATA) / "exercises" / name;
}

/// The exercise `file` is recognised as; FAILs (with the message) if it is not.
std::string recognised(const std::filesystem::path& file) {
  const Recognition r = recognise_exercise(file);
  INFO(file.string() << ": " << r.message);
  REQUIRE(r.status == Status::recognised);
  return r.exercise;
}

attn::prop::Verdict answers_verdict(const std::string& exercise, const std::filesystem::path& file) {
  return check_answers(load_exercise(exercise), file);
}

std::string failure_summary(const attn::prop::Verdict& v) {
  return v.failure ? v.failure->summary : v.error;
}

/// A subject that answers every softmax case with a fixed function of S.
class FnSubject : public attn::prop::Subject {
 public:
  using Fn = std::function<attn::prop::DMatrix(const attn::prop::DMatrix&)>;
  explicit FnSubject(Fn fn) : fn_(std::move(fn)) {}
  std::string name() const override { return "test subject"; }
  attn::prop::Precision precision() const override { return attn::prop::Precision::of_double(); }
  bool supports(attn::prop::Operation op) const override { return !attn::prop::takes_qkv(op); }
  attn::prop::Outcome run(const attn::prop::Case& c) override {
    return attn::prop::Outcome::make_result(attn::prop::DMatrix(), fn_(c.S));
  }

 private:
  Fn fn_;
};

}  // namespace

// --- the registry --------------------------------------------------------------

TEST_CASE("exercise_ids lists F1 to F4", "[exercises]") {
  CHECK(graded_exercise_ids(ExerciseGroup::of_the_text) == std::vector<std::string>{"F1", "F2", "F3", "F4"});
}

TEST_CASE("every exercise loads with properties, entry points and a full points table",
          "[exercises]") {
  for (const auto& id : graded_exercise_ids(ExerciseGroup::of_the_text)) {
    INFO(id);
    const Exercise e = load_exercise(id);
    CHECK(e.id == id);
    REQUIRE_FALSE(e.properties.empty());
    CHECK(e.properties.front().id == "textbook_example");
    CHECK_FALSE(e.python_entry_points.empty());
    CHECK_FALSE(e.cpp_header.empty());
    CHECK(e.cpp_entry.rfind("f" + id.substr(1) + "::", 0) == 0);
    std::set<std::string> ids;
    for (const auto& p : e.properties) {
      INFO(p.id);
      CHECK(ids.insert(p.id).second);  // no property twice
      CHECK(p.op == e.op);
      CHECK(e.points.count(p.id) == 1);  // every property is worth something
      if (e.points.count(p.id)) CHECK(e.points.at(p.id) > 0);
      CHECK(std::filesystem::exists(source("exercises/" + id + "/" + e.cpp_header)));
    }
    CHECK(e.has_answers() == (id == "F2" || id == "F4"));
    CHECK((e.points.count(kAnswersItem) == 1) == e.has_answers());
    // Nothing in the table that no item earns (a typo would silently cost points).
    for (const auto& [item, pts] : e.points) {
      INFO(item);
      CHECK((ids.count(item) == 1 || (item == kAnswersItem && e.has_answers())));
    }
    double total = 0;
    for (const auto& [item, pts] : e.points) total += pts;
    CHECK(e.max_points() == total);
  }
}

TEST_CASE("each exercise is graded on the operation and properties its statement names",
          "[exercises]") {
  using attn::prop::Operation;
  auto ids = [](const Exercise& e) {
    std::vector<std::string> v;
    for (const auto& p : e.properties) v.push_back(p.id);
    return v;
  };
  const Exercise f1 = load_exercise("F1");
  CHECK(f1.op == Operation::softmax_rows);
  CHECK(f1.python_entry_points == std::vector<std::string>{"softmax_rows"});
  CHECK(ids(f1) == std::vector<std::string>{"textbook_example", "row_stochastic", "exact_zeros",
                                            "fully_forbidden_refused", "shift_invariance",
                                            "oracle_agreement"});
  const Exercise f2 = load_exercise("F2");
  CHECK(f2.op == Operation::masked_softmax);
  CHECK(f2.python_entry_points == std::vector<std::string>{"masked_softmax"});
  CHECK(ids(f2) == std::vector<std::string>{"textbook_example", "row_stochastic", "exact_zeros",
                                            "fully_forbidden_refused", "shift_invariance",
                                            "oracle_agreement", "masked_equals_deleted"});
  const Exercise f3 = load_exercise("F3"), f4 = load_exercise("F4");
  CHECK(ids(f4) == ids(f3));
  CHECK(f4.python_entry_points == f3.python_entry_points);
  CHECK(f3.cpp_entry == "f3::attention");
  CHECK(f4.cpp_entry == "f4::attention");
}

TEST_CASE("an exercise attnlab does not grade is refused with a helpful message", "[exercises]") {
  CHECK_THROWS_WITH(load_exercise("F5"), Catch::Contains("not graded by attnlab") &&
                                             Catch::Contains("solutions/F5/rubric.md"));
  CHECK_THROWS_WITH(load_exercise("F9"), Catch::Contains("unknown exercise F9") &&
                                             Catch::Contains("F1, F2, F3, F4"));
  CHECK_THROWS_AS(load_exercise(""), std::invalid_argument);
}

// --- recognition ---------------------------------------------------------------

TEST_CASE("the solutions and skeletons are recognised from their files", "[recognise]") {
  CHECK(recognised(source("solutions/F1/softmax_rows.py")) == "F1");
  CHECK(recognised(source("solutions/F1/softmax_rows.cpp")) == "F1");
  CHECK(recognised(source("solutions/F2/masked_softmax.py")) == "F2");
  CHECK(recognised(source("solutions/F2/masked_softmax.cpp")) == "F2");
  CHECK(recognised(source("solutions/F3/attention.py")) == "F3");
  CHECK(recognised(source("solutions/F3/attention.cpp")) == "F3");
  CHECK(recognised(source("solutions/F4/masked_attention.py")) == "F4");
  CHECK(recognised(source("solutions/F4/masked_attention.cpp")) == "F4");
  CHECK(recognised(source("exercises/F4/post_softmax_mask.py")) == "F4");
  CHECK(recognised(source("exercises/F4/post_softmax_mask.cpp")) == "F4");
  for (const std::string id : {"F1", "F2", "F3", "F4"}) {
    CHECK(recognised(source("exercises/" + id + "/skeleton.py")) == id);
    CHECK(recognised(source("exercises/" + id + "/skeleton.cpp")) == id);
  }
  CHECK(recognised(source("solutions/F2/answers.json")) == "F2");
  CHECK(recognised(source("solutions/F4/answers.json")) == "F4");
  CHECK(recognised(source("exercises/F2/answers_skeleton.json")) == "F2");
  CHECK(recognised(source("exercises/F4/answers_skeleton.json")) == "F4");
}

TEST_CASE("recognition says how it decided", "[recognise]") {
  CHECK(recognise_exercise(source("solutions/F2/masked_softmax.py")).how ==
        "it defines masked_softmax()");
  CHECK(recognise_exercise(source("solutions/F4/masked_attention.py")).how ==
        "it has a comment line `# exercise: F4`");
  CHECK(recognise_exercise(source("solutions/F1/softmax_rows.cpp")).how == "it defines namespace f1");
  CHECK(recognise_exercise(data("qualified.cpp")).how == "it defines f2::masked_softmax");
  CHECK(recognise_exercise(data("header_only.cpp")).how == "it includes masked_attention.hpp");
  CHECK(recognise_exercise(source("solutions/F4/answers.json")).how == "its \"exercise\" member");
}

TEST_CASE("a Python file defining two exercises' functions is ambiguous, unless it says",
          "[recognise]") {
  const Recognition r = recognise_exercise(data("f1_and_f3_unrelated.py"));
  CHECK(r.status == Status::ambiguous);
  CHECK_THAT(r.message, Catch::Contains("softmax_rows() (F1)") &&
                            Catch::Contains("scaled_dot_product_attention() (F3)") &&
                            Catch::Contains("--exercise F1 or --exercise F3"));
  CHECK(recognised(data("ambiguous_resolved.py")) == "F3");
  // An F3 whose attention calls the F1 function beside it builds on it: F3.
  CHECK(recognised(data("ambiguous.py")) == "F3");
}

TEST_CASE("files that name no exercise are unrecognisable, with a suggestion", "[recognise]") {
  for (const char* name : {"no_entry.py", "comments_only.cpp"}) {
    INFO(name);
    const Recognition r = recognise_exercise(data(name));
    CHECK(r.status == Status::unrecognised);
    CHECK_THAT(r.message, Catch::Contains("--exercise"));
  }
  const Recognition marker = recognise_exercise(data("unknown_marker.py"));
  CHECK(marker.status == Status::unrecognised);
  CHECK_THAT(marker.message, Catch::Contains("declares exercise F5"));
}

TEST_CASE("C++: two exercises' namespaces are ambiguous", "[recognise]") {
  const Recognition r = recognise_exercise(data("two_namespaces.cpp"));
  CHECK(r.status == Status::ambiguous);
  CHECK_THAT(r.message, Catch::Contains("namespace f1") && Catch::Contains("namespace f3"));
}

TEST_CASE("answers files are recognised by their exercise member", "[recognise]") {
  CHECK(recognised(data("f4_wrong.json")) == "F4");
  CHECK(recognised(data("f2_wrong_entry.json")) == "F2");
  const Recognition none = recognise_exercise(data("no_exercise_member.json"));
  CHECK(none.status == Status::unrecognised);
  CHECK_THAT(none.message, Catch::Contains("no \"exercise\" member") && Catch::Contains("--exercise"));
  const Recognition broken = recognise_exercise(data("f4_not_json.json"));
  CHECK(broken.status == Status::unrecognised);
  CHECK_THAT(broken.message, Catch::Contains("not valid JSON"));
  const Recognition f3 = recognise_exercise(data("f3_answers.json"));
  CHECK(f3.status == Status::unrecognised);
  CHECK_THAT(f3.message, Catch::Contains("only F2 and F4"));
}

TEST_CASE("an executable is recognised from its hello", "[recognise]") {
  CHECK(recognise_exercise(ATTNLAB_GRADER_TEST_DATA "/refuses_everything.sh").status ==
        Status::needs_hello);
  Hello h;
  h.ok = true;
  h.ops = {"attention"};
  Recognition r = recognise_from_hello(h);
  CHECK(r.status == Status::recognised);
  CHECK(r.exercise == "F3");
  h.ops = {"masked_softmax"};
  CHECK(recognise_from_hello(h).exercise == "F2");
  h.exercise = "F4";
  r = recognise_from_hello(h);
  CHECK(r.exercise == "F4");
  CHECK_THAT(r.how, Catch::Contains("hello"));
  h.exercise.clear();
  h.ops = {"softmax_rows", "attention"};
  CHECK(recognise_from_hello(h).status == Status::ambiguous);
  // The tiled kernel answers `attention` too (its naive companion): T1.
  h.ops = {"attention_tiled"};
  CHECK(recognise_from_hello(h).exercise == "T1");
  h.ops = {"attention_tiled", "attention"};
  CHECK(recognise_from_hello(h).exercise == "T1");
  h.ops = {"causal_mask", "padding_mask"};
  CHECK(recognise_from_hello(h).exercise == "C1");
  h.ops = {"nonsense"};
  CHECK(recognise_from_hello(h).status == Status::unrecognised);
}

TEST_CASE("library operations: helpers do not confuse recognition", "[recognise]") {
  CHECK(recognised(data("masks_no_marker.py")) == "C1");
  CHECK(recognised(data("heads_with_helper.py")) == "M1");
  CHECK(recognised(data("attention_with_mask_helper.py")) == "F3");
  // A file that names nothing says how to name T1, M1 and C1 too.
  const Recognition none = recognise_exercise(data("no_entry.py"));
  CHECK_THAT(none.message, Catch::Contains("(C1)") && Catch::Contains("# exercise: T1") &&
                               Catch::Contains("--exercise F1|F2|F3|F4|T1|M1|C1|B1, or put"));
}

TEST_CASE("an F3 file that uses its own F1 and F2 functions is F3, unrelated ones stay ambiguous",
          "[recognise]") {
  const Recognition r = recognise_exercise(data("attention_builds_on_f1_f2.py"));
  INFO(r.message);
  REQUIRE(r.status == Status::recognised);
  CHECK(r.exercise == "F3");
  CHECK(r.how ==
        "it defines scaled_dot_product_attention, which uses softmax_rows and masked_softmax");
  const Recognition u = recognise_exercise(data("f1_and_f3_unrelated.py"));
  CHECK(u.status == Status::ambiguous);
  CHECK_THAT(u.message, Catch::Contains("softmax_rows() (F1)") &&
                            Catch::Contains("--exercise F1 or --exercise F3"));
}

TEST_CASE("recognition lists every exercise a file defines", "[recognise]") {
  // F3 on its own F1 and F2: answers F3 as a whole, defines all three (class_folder.hpp grades each).
  const Recognition r = recognise_exercise(data("attention_builds_on_f1_f2.py"));
  CHECK(r.exercise == "F3");
  CHECK(r.defines == std::vector<std::string>{"F1", "F2", "F3"});
  // Unrelated ones: ambiguous as one file, but both are defined.
  CHECK(recognise_exercise(data("f1_and_f3_unrelated.py")).defines ==
        std::vector<std::string>{"F1", "F3"});
  // A `# exercise:` line names one exercise, whatever else is defined.
  CHECK(recognise_exercise(data("ambiguous_resolved.py")).defines == std::vector<std::string>{"F3"});
  // A C++ file of one exercise defines that one.
  const Recognition cpp = recognise_exercise(attn::grader::paths::source_dir +
                                             std::string("/solutions/F3/attention.cpp"));
  CHECK(cpp.defines == std::vector<std::string>{"F3"});
}

TEST_CASE("C++: an F3 file that uses its own F2 is F3 and defines both", "[recognise]") {
  const auto file = std::filesystem::path(ATTNLAB_GRADER_TEST_DATA) / "cpp" / "f2_and_f3.cpp";
  const Recognition r = recognise_exercise(file);
  INFO(r.message);
  REQUIRE(r.status == Status::recognised);
  CHECK(r.exercise == "F3");
  CHECK(r.how == "it defines f3::attention, which uses f2::masked_softmax");
  CHECK(r.defines == std::vector<std::string>{"F2", "F3"});
  // Its build needs both interface headers, whichever exercise is graded.
  CHECK(included_interfaces({file}) == std::vector<std::string>{"F2", "F3"});
  // A call of f2::masked_softmax defines nothing: F3 only (F2 in a helper file).
  const Recognition calls = recognise_exercise(data("calls_f2_only.cpp"));
  INFO(calls.message);
  REQUIRE(calls.status == Status::recognised);
  CHECK(calls.exercise == "F3");
  CHECK(calls.defines == std::vector<std::string>{"F3"});
  CHECK(included_interfaces({data("calls_f2_only.cpp")}) == std::vector<std::string>{"F2", "F3"});
  // Unrelated entries stay ambiguous, both defined (one a qualified definition).
  const Recognition u = recognise_exercise(data("f1_and_f3_unrelated.cpp"));
  CHECK(u.status == Status::ambiguous);
  CHECK_THAT(u.message, Catch::Contains("namespace f1 (F1)") && Catch::Contains("f3::attention (F3)"));
  CHECK(u.defines == std::vector<std::string>{"F1", "F3"});
  // A namespace with no entry in it is still evidence, but defines nothing.
  CHECK(recognise_exercise(data("two_namespaces.cpp")).defines == std::vector<std::string>{"F1"});
}

// --- the answers files ---------------------------------------------------------

TEST_CASE("F2's printed weights agree with the oracle at the text's tolerance", "[answers]") {
  const attn::prop::DMatrix exact = f2_expected_weights();
  const attn::ref::textbook::F2 printed;
  REQUIRE(exact.rows() == 2);
  REQUIRE(exact.cols() == 3);
  for (Eigen::Index i = 0; i < 2; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) {
      INFO(i << ", " << j);
      CHECK(std::abs(exact(i, j) - printed.A(i, j)) <= kAnswersTolerance);
    }
  CHECK(exact(0, 2) == 0.0);  // the -inf logit
  // From the definition in double: e^2 / (1 + e^2) and e^-1 / (e + e^-1 + 1).
  CHECK(exact(0, 1) == Approx(std::exp(2.0) / (1 + std::exp(2.0))).epsilon(1e-15));
  CHECK(exact(1, 1) == Approx(std::exp(-1.0) / (std::exp(1.0) + std::exp(-1.0) + 1)).epsilon(1e-15));
}

TEST_CASE("F4's buggy row sum is the unmasked A(0, 0) of the lab example", "[answers]") {
  const double s1 = 1 / std::sqrt(2.0), s2 = std::sqrt(2.0);
  CHECK(f4_expected_buggy_row_sum() ==
        Approx(std::exp(s1) / (std::exp(s1) + std::exp(s2))).epsilon(1e-15));
  CHECK(std::abs(f4_expected_buggy_row_sum() - attn::ref::textbook::F4{}.buggy_row_sum) <=
        kAnswersTolerance);
}

TEST_CASE("the model answers pass, the skeleton answers fail", "[answers]") {
  for (const std::string id : {"F2", "F4"}) {
    INFO(id);
    const auto good = answers_verdict(id, source("solutions/" + id + "/answers.json"));
    CHECK(good.passed());
    CHECK(good.property_id == kAnswersItem);
    const auto skeleton = answers_verdict(id, source("exercises/" + id + "/answers_skeleton.json"));
    CHECK_FALSE(skeleton.passed());
    CHECK_FALSE(skeleton.skipped());
    REQUIRE(skeleton.failure);
    CHECK(skeleton.failure->worst);
  }
}

TEST_CASE("an answers file with a number too large for JSON fails, without an exception", "[answers]") {
  // The same fault as fuzz/fuzz_teacher_config found in the configuration.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "attnlab-answers-overflow.json";
  {
    std::ofstream(file) << R"({"exercise": "F4", "buggy_row_sum": 1e99999})";
  }
  const auto v = answers_verdict("F4", file);
  std::filesystem::remove(file);
  CHECK_FALSE(v.passed());
  CHECK_THAT(failure_summary(v), Catch::Contains("not valid JSON"));
}

TEST_CASE("wrong answers fail at the entry that is wrong", "[answers]") {
  const auto f4 = answers_verdict("F4", data("f4_wrong.json"));
  CHECK_FALSE(f4.passed());
  CHECK_THAT(failure_summary(f4), Catch::Contains("buggy_row_sum = 0.5") &&
                                      Catch::Contains("0.3302384"));
  // 0.33 is 2.4e-4 away: outside the text's 1e-4. More digits pass.
  CHECK_FALSE(answers_verdict("F4", data("f4_rounded_too_far.json")).passed());
  CHECK(answers_verdict("F4", data("f4_more_digits.json")).passed());

  const auto f2 = answers_verdict("F2", data("f2_wrong_entry.json"));
  CHECK_FALSE(f2.passed());
  REQUIRE(f2.failure);
  REQUIRE(f2.failure->worst);
  CHECK(f2.failure->worst->matrix == "A_with_shift");
  CHECK(f2.failure->worst->row == 1);
  CHECK(f2.failure->worst->col == 2);
  CHECK(f2.counterexample);  // the report shows F2's S
  // Forgetting the mask (softmax over all three logits) is caught.
  CHECK_FALSE(answers_verdict("F2", data("f2_unmasked.json")).passed());
  // A wrong number, and only a wrong number, is told to recompute it.
  for (const auto* v : {&f4, &f2}) {
    const auto h = hint_for(*v);
    REQUIRE(h);
    CHECK(h->key == "answers");
  }
}

TEST_CASE("a malformed answers file fails with what is wrong and the expected format",
          "[answers]") {
  struct Bad {
    const char* exercise;
    const char* file;
    const char* says;
  };
  for (const Bad& b : {Bad{"F4", "f4_not_json.json", "not valid JSON"},
                       Bad{"F4", "f4_string.json", "buggy_row_sum is \"0.3302\", expected a number"},
                       Bad{"F4", "f4_missing_member.json", "no \"buggy_row_sum\" member"},
                       Bad{"F2", "f2_wrong_shape.json", "A_without_shift is 2 x 2, expected 2 x 3"},
                       Bad{"F2", "f2_ragged.json", "A_without_shift row 1 has 2 entries"},
                       Bad{"F2", "f2_not_object.json", "not a JSON object"},
                       Bad{"F2", "no_exercise_member.json", "no \"exercise\" member"}}) {
    INFO(b.file);
    const auto v = answers_verdict(b.exercise, data(b.file));
    CHECK_FALSE(v.passed());
    CHECK_FALSE(v.skipped());
    CHECK_THAT(failure_summary(v), Catch::Contains(b.says));
    if (std::string(b.says).find("expected 2 x 3") == std::string::npos)
      CHECK_THAT(failure_summary(v), Catch::Contains("README.md"));
    // The hint says the file is malformed (a string for a number, a missing
    // member), not that a number is not the text's.
    const auto h = hint_for(v);
    REQUIRE(h);
    CHECK(h->key == "answers_malformed");
    CHECK_THAT(h->headline, Catch::Contains("malformed"));
    CHECK_THAT(h->headline + h->advice, !Catch::Contains("Recompute") &&
                                                 !Catch::Contains("is not the text's"));
  }
}

TEST_CASE("no answers file: the item is skipped and says how to give one", "[answers]") {
  const auto v = check_answers(load_exercise("F2"), std::nullopt);
  CHECK(v.skipped());
  CHECK_FALSE(v.passed());
  CHECK_THAT(v.error, Catch::Contains("--answers") && Catch::Contains("3 points"));
}

TEST_CASE("answers that cannot serve are usage problems", "[answers]") {
  const Exercise f2 = load_exercise("F2"), f3 = load_exercise("F3");
  CHECK_FALSE(answers_usage_problem(f2, source("solutions/F2/answers.json")));
  CHECK_FALSE(answers_usage_problem(f2, data("f4_not_json.json")));  // malformed: graded, fails
  CHECK_THAT(*answers_usage_problem(f2, source("solutions/F4/answers.json")),
             Catch::Contains("for exercise F4") && Catch::Contains("graded as F2"));
  CHECK_THAT(*answers_usage_problem(f2, data("does_not_exist.json")),
             Catch::Contains("no such answers file"));
  // A folder is said to be one, not "no such answers file".
  const auto folder = answers_usage_problem(f2, source("exercises/F2"));
  REQUIRE(folder);
  CHECK_THAT(*folder, Catch::Contains("is a directory, not an answers file") &&
                          !Catch::Contains("no such"));
  CHECK_THAT(*answers_usage_problem(f3, source("solutions/F2/answers.json")),
             Catch::Contains("F3 has no answers file"));
}

// --- the visible examples of F1 and F2 -------------------------------------------

TEST_CASE("the visible examples pass on the library and fail on a wrong softmax", "[examples]") {
  attn::prop::LibSubject<double> lib;
  attn::prop::RunConfig run;
  for (const auto& p : {attn::prop::softmax_textbook_example(attn::prop::Operation::softmax_rows), attn::prop::softmax_textbook_example(attn::prop::Operation::masked_softmax)}) {
    INFO(p.title);
    REQUIRE_FALSE(p.fixed_cases.empty());
    const auto good = attn::prop::run_property(p, lib, run);
    INFO((good.failure ? good.failure->summary : good.error));
    CHECK(good.passed());
    CHECK(good.cases == int(p.fixed_cases.size()));

    // Uniform weights are a distribution, but not the text's numbers.
    FnSubject uniform([](const attn::prop::DMatrix& S) {
      return attn::prop::DMatrix::Constant(S.rows(), S.cols(), 1.0 / double(S.cols()));
    });
    const auto bad = attn::prop::run_property(p, uniform, run);
    CHECK_FALSE(bad.passed());
    REQUIRE(bad.failure);
    CHECK_THAT(bad.failure->summary, Catch::Contains("the text prints"));
  }
}

TEST_CASE("F2's visible example sends the -inf form and the mask form", "[examples]") {
  const auto p = attn::prop::softmax_textbook_example(attn::prop::Operation::masked_softmax);
  REQUIRE(p.fixed_cases.size() == 2);
  CHECK(std::isinf(p.fixed_cases[0].S(0, 2)));
  CHECK_FALSE(p.fixed_cases[0].mask);
  CHECK(p.fixed_cases[1].S(0, 2) == 3.0);
  REQUIRE(p.fixed_cases[1].mask);
  CHECK((*p.fixed_cases[1].mask)(0, 2));
  // A softmax that ignores the mask gets the mask form wrong.
  FnSubject ignores_mask([](const attn::prop::DMatrix& S) {
    attn::prop::DMatrix A(S.rows(), S.cols());
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      const double m = S.row(i).maxCoeff();
      A.row(i) = (S.row(i).array() - m).exp().matrix();
      A.row(i) /= A.row(i).sum();
    }
    return A;
  });
  const auto v = attn::prop::run_property(p, ignores_mask, attn::prop::RunConfig{});
  CHECK_FALSE(v.passed());
  CHECK(v.cases == 1);  // the -inf form passed, the mask form failed
}
