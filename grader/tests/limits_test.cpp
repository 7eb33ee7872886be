// The grader's limits must never invent failures: the restart and timeout
// caps count per property, a property cut short shows the real failure it
// saw (or says it was not run), the time budget reports later properties as
// not run; a malformed answer from a live process costs no restart. Also the
// report's text for such verdicts (indentation, numbers, NaN), file names in
// any case, and the hints for C++ link errors and Eigen's exp(-inf).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "submission/cpp_build.hpp"
#include "diagnosis/feedback.hpp"
#include "grading/grade.hpp"
#include "protocol/reply.hpp"
#include "sandbox/sandbox.hpp"
#include "submission/submission.hpp"
#include "attn/prop/verdict.hpp"
#include "attn/prop/catalog.hpp"
#include "submission_fixtures.hpp"

namespace {

using attn::grader::GradeOptions;
using attn::grader::GradeResult;
using attn::prop::Outcome;
using attn::prop::Verdict;
using Kind = attn::prop::Outcome::Kind;
using namespace std::chrono_literals;
using fixtures::data;
using fixtures::textbook;

GradeOptions options_for(const std::string& file, int cases) {
  GradeOptions o;
  o.file = file;
  o.exercise = "F3";
  o.run.cases = cases;
  o.sandbox = std::make_shared<const attn::grader::Sandbox>(
      attn::grader::Sandbox::off({}, "off in this test"));
  return o;
}

struct Graded {
  GradeResult result;
  std::string text;
};

Graded grade(const GradeOptions& o) {
  std::ostringstream text;
  Graded g;
  g.result = attn::grader::grade_file(o, text);
  g.text = text.str();
  return g;
}

std::string printed(const Verdict& v) {
  std::ostringstream os;
  attn::prop::print_verdict(os, v);
  return os.str();
}

/// Every line but the first ("[FAIL] ...") is indented: nothing of a
/// verdict's block starts at column 0.
bool block_indented(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (!line.empty() && line[0] != ' ') return false;
  return true;
}

}  // namespace

// ------------------------------------------------- malformed answers, caps

TEST_CASE("limits: a malformed answer from a live process is a fault without a restart",
          "[limits]") {
  {
    // A reply of the wrong shape is an answer (score_shape judges it), from
    // a process that needs no restart either.
    auto s = fixtures::started(data("limits/wrong_shape.py"));
    for (int k = 0; k < 3; ++k) REQUIRE(s->run(textbook(false)).kind == Kind::result);
    CHECK(s->restarts() == 0);
    CHECK(s->faults() == 0);
  }
  {
    auto s = fixtures::started(data("limits/returns_none.py"));
    for (int k = 0; k < 3; ++k) REQUIRE(s->run(textbook(false)).kind == Kind::fault);
    CHECK(s->restarts() == 0);
    CHECK(s->faults() == 3);
  }
  // A reply that cannot be paired with its request still restarts the process.
  auto junk = fixtures::started(data("speaks_junk.sh"));
  CHECK(junk->run(textbook(false)).kind == Kind::fault);
  CHECK(junk->run(textbook(false)).kind == Kind::fault);
  CHECK(junk->restarts() == 1);
}

TEST_CASE("limits: the restart cap counts per run, and says why it stopped", "[limits]") {
  attn::grader::SubjectOptions opt;
  opt.max_restarts = 2;
  auto s = fixtures::started(data("crash.py"), opt);
  for (int k = 0; k < 3; ++k) CHECK_THAT(s->run(textbook(false)).message, Catch::Contains("SIGABRT"));
  CHECK(s->stop_reason().empty());
  CHECK_THAT(s->run(textbook(false)).message, Catch::Contains("not run"));
  CHECK(s->not_run() == 1);
  CHECK_THAT(s->stop_reason(), Catch::Contains("restarted 2 times after faults in this property"));
  s->begin_run();  // the next property: fresh caps
  CHECK(s->stop_reason().empty());
  CHECK_THAT(s->run(textbook(false)).message, Catch::Contains("SIGABRT"));
  CHECK(s->not_run() == 1);
  CHECK(s->restarts() == 3);  // the total goes on
}

TEST_CASE("limits: past the restart cap no property shows a made-up counterexample",
          "[limits]") {
  // Crashes (SIGABRT) on every case with T_q >= 5 and T_v >= 5, answers the
  // others correctly; a small cap, so shrinking runs into it.
  GradeOptions o = options_for(data("limits/abort_when_large.py"), 150);
  o.subject.max_restarts = 3;
  const Graded g = grade(o);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  int failed = 0, capped = 0, passed = 0;
  for (const auto& v : g.result.verdicts) {
    INFO(v.property_id << "\n" << printed(v));
    if (v.passed() || v.skipped()) {
      passed += v.passed();
      continue;
    }
    ++failed;
    // Every failure is a real crash on a case that crashes.
    REQUIRE(v.failure);
    REQUIRE(v.failure->outcome);
    CHECK_THAT(v.failure->outcome->message, Catch::Contains("crashed with signal 6 (SIGABRT)"));
    CHECK_THAT(v.failure->summary, !Catch::Contains("not run"));
    REQUIRE(v.counterexample);
    CHECK(v.counterexample->Q.rows() >= 5);
    CHECK(v.counterexample->K.rows() >= 5);
    if (!v.stop_reason.empty()) {
      ++capped;
      CHECK_THAT(v.stop_reason, Catch::Contains("restarted 3 times"));
    }
  }
  CHECK(failed > 0);
  CHECK(capped > 0);  // the scenario did hit the cap
  CHECK(passed > 0);  // properties that never meet a large case pass
  CHECK_THAT(g.text, !Catch::Contains("not run: the submission"));
  CHECK_THAT(g.text, Catch::Contains("stopped early: the submission was restarted 3 times"));
}

TEST_CASE("limits: the timeout cap shows the real timeout, in plain words", "[limits]") {
  GradeOptions o = options_for(data("limits/hangs.py"), 5);
  o.subject.call_timeout = 300ms;
  o.subject.max_timeouts = 1;
  const Graded g = grade(o);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  CHECK(g.result.passed == 0);
  for (const auto& v : g.result.verdicts) {
    if (v.skipped()) continue;
    INFO(v.property_id << "\n" << printed(v));
    REQUIRE(v.failure);
    CHECK_THAT(v.failure->summary, Catch::Contains("timed out after 300 ms"));
    CHECK_THAT(v.failure->summary, !Catch::Contains("crashed") && !Catch::Contains("not run"));
  }
  const auto it = std::find_if(g.result.verdicts.begin(), g.result.verdicts.end(),
                               [](const Verdict& v) { return v.property_id == "fully_forbidden_refused"; });
  REQUIRE(it != g.result.verdicts.end());
  CHECK_THAT(it->failure->summary, Catch::StartsWith("did not refuse row"));
  CHECK_THAT(g.text, !Catch::Contains("crashed instead of refusing"));
  CHECK_THAT(g.text, !Catch::Contains("already timed out"));
}

TEST_CASE("limits: past the time budget later properties are NOT RUN, without counterexample",
          "[limits]") {
  GradeOptions o = options_for(data("sandbox/slow.py"), 5);
  o.submission_timeout = 2s;
  const Graded g = grade(o);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  int not_run = 0;
  for (std::size_t k = 0; k < g.result.verdicts.size(); ++k) {
    const Verdict& v = g.result.verdicts[k];
    const auto& item = g.result.items[k];
    INFO(v.property_id << "\n" << item.text);
    if (v.passed() || v.skipped() || v.property_id == "answers") continue;
    // slow.py is correct: whatever did not pass was cut short by the budget.
    CHECK_THAT(v.stop_reason, Catch::Contains("time budget of 2 s"));
    if (v.failure) continue;
    ++not_run;
    CHECK_FALSE(v.counterexample);
    CHECK(item.status == "failed");
    CHECK(item.counted);
    CHECK(item.points == 0);
    CHECK_FALSE(item.hint);
    CHECK_THAT(item.text, Catch::StartsWith("[NOT RUN] "));
    CHECK_THAT(item.text, Catch::Contains(v.cases > 0 ? "not run to the end: " : "not run because "));
    CHECK_THAT(item.text, Catch::Contains("the submission used up its time budget of 2 s"));
    CHECK_THAT(item.text, !Catch::Contains("seed") && !Catch::Contains("counterexample"));
  }
  CHECK(not_run > 0);
  CHECK_THAT(g.text, Catch::Contains("of them not run)"));
}

// ------------------------------------------------------------ the report

TEST_CASE("report: a malformed reply's text stays inside its verdict block", "[limits]") {
  attn::prop::Case c = textbook(false);
  const Outcome o = attn::grader::parse_reply(
      R"({"v":1,"id":1,"ok":true,"O":[[0,0,0],[0,0,0]],"A":[[1,0],[0,1,0]]})", 1, c);
  REQUIRE(o.kind == Kind::fault);
  Verdict v;
  v.property_id = "row_stochastic";
  v.title = "rows sum to 1";
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "no answer: " + o.message;
  f.outcome = o;
  v.failure = f;
  const std::string text = printed(v);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("not rectangular"));
  CHECK_THAT(text, Catch::Contains("    reply: {"));
  CHECK(block_indented(text));
}

TEST_CASE("report: worst entries in the shortest form, NaN said plainly", "[limits]") {
  Verdict v;
  v.property_id = "answers";
  v.title = "the buggy row sum";
  v.generated = false;
  attn::prop::Failure f;
  f.summary = "wrong";
  f.worst = attn::prop::WorstEntry{"buggy row sum", 0, -1, 0.3302384506733431, 0.3302, 2.4e-5, 1e-4};
  v.failure = f;
  std::string text = printed(v);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("expected 0.3302384506733431, got 0.3302;"));
  CHECK_THAT(text, !Catch::Contains("0.33019999999999999"));

  v.failure->worst = attn::prop::WorstEntry{"A", 0, 1, 0.25, std::nan(""), std::nan(""), 1e-4};
  text = printed(v);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("expected 0.25, got NaN; the answer is NaN"));
  CHECK_THAT(text, !Catch::Contains("nan"));
}

TEST_CASE("report: a property not run says so, with no seed and no hint", "[limits]") {
  Verdict v;
  v.property_id = "row_stochastic";
  v.title = "rows sum to 1";
  v.status = attn::prop::VerdictStatus::not_run;
  v.stop_reason = "the submission used up its time budget of 2 s (--submission-timeout)";
  const std::string text = printed(v);
  CHECK_THAT(text, Catch::StartsWith("[NOT RUN] row_stochastic"));
  CHECK_THAT(text, Catch::Contains("not run because the submission used up its time budget"));
  CHECK_THAT(text, !Catch::Contains("seed"));
  CHECK_FALSE(attn::grader::hint_for(v));
  v.cases = 4;
  CHECK_THAT(printed(v), Catch::Contains("not run to the end: 4 cases passed, then the submission"));
}

// ------------------------------------------------------ submissions, hints

TEST_CASE("submissions: extensions in any case", "[limits]") {
  using attn::grader::Language;
  CHECK(attn::grader::detect_language("x/SOL.PY") == Language::python);
  CHECK(attn::grader::detect_language("x/A.CPP") == Language::cpp);
  CHECK(attn::grader::detect_language("x/b.Cc") == Language::cpp);
  CHECK(attn::grader::detect_language("x/c.C") == Language::cpp);
  CHECK_FALSE(attn::grader::detect_language("x/does_not_exist.c"));  // C, not C++
  CHECK(attn::grader::is_answers_file("x/ANSWERS.JSON"));
}

TEST_CASE("submissions: link errors get a one-line hint in the student's terms", "[limits]") {
  const auto t = attn::grader::toolchain_for("F3");
  CHECK(attn::grader::link_error_hint(
            "/usr/bin/ld: submission.o: in function `main':\nsubmission.cpp:(.text+0x0): "
            "multiple definition of `main'; harness.a(cpp_harness_main.o):(.text+0x0): first "
            "defined here\ncollect2: error: ld returned 1 exit status\n",
            t) == "your file defines main(); the grader supplies main \u2014 remove it");
  CHECK_THAT(attn::grader::link_error_hint(
                 "/usr/bin/ld: libattnlab_cpp_harness_f3.a(cpp_harness_f3.cpp.o): in function "
                 "`answer': undefined reference to `f3::attention(Eigen::Matrix<double, -1, -1, "
                 "1, -1, -1> const&, ...)'\n",
                 t),
             Catch::StartsWith("the file does not define f3::attention(...) as declared in "
                               "exercises/F3/attention.hpp"));
  CHECK(attn::grader::link_error_hint("undefined reference to `cblas_dgemm'", t).empty());
  // An exercise with two functions: the hint names the one that is missing.
  CHECK_THAT(attn::grader::link_error_hint(
                 "/usr/bin/ld: libattnlab_cpp_harness_c1.a(cpp_harness_c1.cpp.o): in function "
                 "`answer': undefined reference to `c1::padding_mask(long, long, long)'\n",
                 attn::grader::toolchain_for("C1")),
             Catch::StartsWith("the file does not define c1::padding_mask(...) as declared in "
                               "exercises/C1/masks.hpp"));
}

TEST_CASE("feedback: a subnormal weight at a forbidden position gets the property's hint",
          "[limits][feedback]") {
  // Eigen's exp(-inf) stand-in is the diagnosis stage's to name
  // (tiny_positive_exp); the hint only says what exact_zeros asks.
  attn::prop::Case c = textbook(true);  // key 1 forbidden for query 0
  const double s = 1 / std::sqrt(2.0);
  attn::prop::DMatrix A(2, 2);
  const double a10 = std::exp(s) / (std::exp(s) + std::exp(std::sqrt(2.0)));
  A << 1.0, 5.5555294837733886e-309, a10, 1 - a10;
  const attn::prop::Property p = attn::prop::exact_zeros();
  Verdict v;
  v.property_id = p.id;
  v.hint = p.hint;
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "A(0, 1) is forbidden but not 0";
  f.outcome = Outcome::make_result(A * c.V, A);
  v.failure = f;
  const auto h = attn::grader::hint_for(v);
  REQUIRE(h);
  CHECK(h->key == "exact_zeros");
  CHECK_FALSE(h->from_shape);
}

TEST_CASE("feedback: a crash gets no hint about the values", "[limits][feedback]") {
  Verdict v;
  v.property_id = "row_stochastic";
  v.counterexample = textbook(false);
  attn::prop::Failure f;
  f.summary = "no answer: crashed with signal 6 (SIGABRT) before replying";
  f.outcome = Outcome::make_fault("crashed with signal 6 (SIGABRT) before replying");
  v.failure = f;
  const auto h = attn::grader::hint_for(v);
  REQUIRE(h);
  CHECK(h->key == "fault");
}
