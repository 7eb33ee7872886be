// Reports: points and partial credit, Gradescope's results.json, JUnit XML,
// the teacher configuration, student mode.
#include <fstream>
#include <memory>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "grading/batch.hpp"
#include "grading/gradebook.hpp"
#include "grading/student_names.hpp"
#include "exercises/exercise.hpp"
#include "report/junit_report.hpp"
#include "attn/grader/paths.hpp"
#include "report/results_json.hpp"
#include "grading/scoring_rules.hpp"
#include "grading/teacher_config.hpp"
#include "sandbox/temp_dir.hpp"
#include "attn/prop/catalog.hpp"

namespace {

using attn::grader::GradeOptions;
using attn::grader::GradeResult;
namespace fs = std::filesystem;

std::string source(const std::string& relative) {
  return std::string(attn::grader::paths::source_dir) + "/" + relative;
}

GradeOptions options_for(const std::string& file, int cases = 15) {
  GradeOptions o;
  o.file = file;
  o.exercise = "F3";
  o.run.cases = cases;
  o.sandbox = std::make_shared<const attn::grader::Sandbox>(
      attn::grader::Sandbox::off({}, "off in this test"));
  return o;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

struct Graded {
  GradeResult result;
  std::string text;
  nlohmann::json results;
  std::string junit_path;
};

Graded grade(const GradeOptions& o, const attn::grader::TempDir& dir) {
  Graded g;
  attn::grader::ReportFiles files;
  files.results_json = dir.path() / "results.json";
  files.junit = dir.path() / "junit.xml";
  std::ostringstream text;
  g.result = attn::grader::grade_and_report(o, text, files);
  g.text = text.str();
  g.results = read_json(*files.results_json);
  g.junit_path = files.junit->string();
  return g;
}

double f3_points(const std::string& id) { return attn::grader::load_exercise("F3").points.at(id); }

}  // namespace

TEST_CASE("results.json of a passing submission: full marks, every field", "[reports]") {
  attn::grader::TempDir dir("attnlab-test-");
  const Graded g = grade(options_for(source("solutions/F3/attention.py")), dir);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  const auto exercise = attn::grader::load_exercise("F3");
  const nlohmann::json& j = g.results;
  CHECK(j.at("score").get<double>() == exercise.max_points());
  CHECK(j.at("max_score").get<double>() == exercise.max_points());
  CHECK(j.at("output").get<std::string>().find("Score: ") != std::string::npos);
  REQUIRE(j.at("tests").size() == exercise.properties.size());
  for (const auto& t : j.at("tests")) {
    const std::string name = t.at("name").get<std::string>();
    const std::string id = name.substr(0, name.find(':'));
    INFO(name);
    CHECK(t.at("status") == "passed");
    CHECK(t.at("score").get<double>() == f3_points(id));
    CHECK(t.at("max_score").get<double>() == f3_points(id));
    CHECK(t.at("output").get<std::string>().find("[PASS] " + id) != std::string::npos);
    // The text's example is visible; generated tests only once grades are published.
    CHECK(t.at("visibility") == (id == "textbook_example" ? "visible" : "after_published"));
  }
  // The text report shows points per property and the total.
  const std::string oa = attn::grader::format_points(f3_points("oracle_agreement"));
  CHECK(g.text.find("points: " + oa + " / " + oa) != std::string::npos);
  CHECK(g.text.find("score: " + attn::grader::format_points(exercise.max_points()) + " / " +
                    attn::grader::format_points(exercise.max_points()) + " points") !=
        std::string::npos);
}

TEST_CASE("results.json of the F4 variant: partial credit, verdict text and hint", "[reports]") {
  attn::grader::TempDir dir("attnlab-test-");
  const Graded g = grade(options_for(source("exercises/F4/post_softmax_mask.py")), dir);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  const nlohmann::json& j = g.results;
  double expected = 0, max = 0;
  bool saw_row_stochastic = false;
  for (const auto& t : j.at("tests")) {
    const std::string name = t.at("name").get<std::string>();
    const std::string id = name.substr(0, name.find(':'));
    max += f3_points(id);
    if (t.at("status") == "passed") {
      expected += f3_points(id);
      CHECK(t.at("score").get<double>() == f3_points(id));
    } else {
      CHECK(t.at("status") == "failed");
      CHECK(t.at("score").get<double>() == 0);
      CHECK(t.at("output").get<std::string>().find("hint: ") != std::string::npos);
    }
    if (id == "row_stochastic") {
      saw_row_stochastic = true;
      const std::string out = t.at("output").get<std::string>();
      CHECK(t.at("status") == "failed");
      CHECK(out.find("sums to") != std::string::npos);              // the failure
      CHECK(out.find("<- row") != std::string::npos);               // the marked row
      CHECK(out.find("worst entry") != std::string::npos);          // expected vs actual
      CHECK(out.find("seed 20261129 replays") != std::string::npos);
      CHECK(out.find("diagnosis: misconception post_softmax_mask") != std::string::npos);
      CHECK(t.at("extra_data").at("misconceptions") == nlohmann::json::array({"post_softmax_mask"}));
    }
  }
  CHECK(saw_row_stochastic);
  CHECK(j.at("score").get<double>() == expected);
  CHECK(j.at("max_score").get<double>() == max);
  CHECK(expected < max);
  CHECK(g.result.score == expected);
  // Generated tests are not visible, so the seed is not in the visible summary.
  CHECK(j.at("output").get<std::string>().find("20261129") == std::string::npos);
}

TEST_CASE("JUnit XML parses back, with a failure per failing property", "[reports]") {
  attn::grader::TempDir dir("attnlab-test-");
  const Graded g = grade(options_for(source("exercises/F4/post_softmax_mask.py")), dir);
  pugi::xml_document doc;
  REQUIRE(doc.load_file(g.junit_path.c_str()));
  const auto suites = doc.child("testsuites");
  REQUIRE(std::distance(suites.children("testsuite").begin(), suites.children("testsuite").end()) == 1);
  const auto suite = suites.child("testsuite");
  CHECK(suite.attribute("failures").as_int() == g.result.failed);
  CHECK(suite.attribute("tests").as_int() == static_cast<int>(g.result.items.size()));
  int failures = 0;
  bool row_stochastic = false;
  for (auto tc : suite.children("testcase")) {
    if (auto f = tc.child("failure")) {
      ++failures;
      if (std::string(tc.attribute("name").value()).rfind("row_stochastic", 0) == 0) {
        row_stochastic = true;
        CHECK(std::string(f.attribute("message").value()).find("diagnosis: misconception post_softmax_mask") != std::string::npos);
        CHECK(std::string(f.text().get()).find("<- row") != std::string::npos);
      }
    }
  }
  CHECK(failures == g.result.failed);
  CHECK(row_stochastic);
}

TEST_CASE("JUnit XML stays well formed with hostile text", "[reports]") {
  const std::string nasty = std::string("a\x01<b>&\"'\xff\xfe ]]> \xc3\xa9") + '\0' + "end";
  const std::string safe = attn::grader::xml_safe(nasty);
  CHECK(safe.find('\x01') == std::string::npos);
  CHECK(safe.find("\\x01") != std::string::npos);
  CHECK(safe.find("\xc3\xa9") != std::string::npos);  // valid UTF-8 kept

  GradeResult r;
  r.status = GradeResult::Status::not_gradable;
  r.header.submission = "evil<&>.cpp";
  r.not_gradable_headline = "did not compile";
  r.details = nasty;
  r.stderr_tail = nasty;
  const std::string xml = attn::grader::junit_xml({&r});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(xml.c_str()));
  const auto error = doc.child("testsuites").child("testsuite").child("testcase").child("error");
  REQUIRE(error);
  CHECK(std::string(error.attribute("message").value()) == "not gradable: the submission did not compile");
  CHECK(doc.child("testsuites").attribute("errors").as_int() == 1);
}

TEST_CASE("a refused file of the student's folder is said in results.json and JUnit", "[reports]") {
  GradeResult r;
  r.status = GradeResult::Status::graded;
  r.header.submission = "bob/attention.py";
  r.refused = "ignored notes.py: a symbolic link to a file outside the student's folder (not followed)";
  const std::string output = attn::grader::results_json(r).at("output").get<std::string>();
  CHECK(output.find("Not read: " + r.refused + "\n") != std::string::npos);
  pugi::xml_document doc;
  REQUIRE(doc.load_string(attn::grader::junit_xml({&r}).c_str()));
  const auto suite = doc.child("testsuites").child("testsuite");
  CHECK(std::string(suite.child("system-out").text().get()) == "attnlab: note: " + r.refused + "\n");
  // Nothing refused: no such line, no suite <system-out>.
  r.refused.clear();
  CHECK(attn::grader::results_json(r).at("output").get<std::string>().find("Not read") ==
        std::string::npos);
  REQUIRE(doc.load_string(attn::grader::junit_xml({&r}).c_str()));
  CHECK(!doc.child("testsuites").child("testsuite").child("system-out"));
}

TEST_CASE("points: overrides from the configuration, skipped items not counted", "[reports]") {
  const auto exercise = attn::grader::load_exercise("F3");
  const auto config = attn::grader::parse_teacher_config(
      R"({"visibility": {"generated": "hidden"},
          "exercises": {"F3": {"points": {"oracle_agreement": 10},
                               "visibility": {"row_stochastic": "visible"}}}})",
      "test");
  const auto rules = attn::grader::scoring_rules(exercise, &config);
  CHECK(rules.points_for("oracle_agreement") == 10);
  CHECK(rules.points_for("row_stochastic") == exercise.points.at("row_stochastic"));
  attn::prop::Verdict v;
  v.property_id = "row_stochastic";
  v.status = attn::prop::VerdictStatus::passed;
  CHECK(rules.visibility_for(v) == "visible");
  v.property_id = "exact_zeros";
  CHECK(rules.visibility_for(v) == "hidden");
  v.generated = false;
  CHECK(rules.visibility_for(v) == "visible");

  attn::prop::Verdict skipped;
  skipped.property_id = "exact_zeros";
  skipped.status = attn::prop::VerdictStatus::skipped;
  const auto item = attn::grader::score_verdict(skipped, rules);
  CHECK_FALSE(item.counted);
  CHECK(item.max_points == 0);
  attn::prop::Verdict failed;
  failed.property_id = "oracle_agreement";
  const auto f = attn::grader::score_verdict(failed, rules);
  CHECK(f.points == 0);
  CHECK(f.max_points == 10);
}

TEST_CASE("teacher configuration: typos and bad values are errors", "[reports]") {
  using attn::grader::ConfigError;
  using attn::grader::parse_teacher_config;
  CHECK_THROWS_AS(parse_teacher_config(R"({"sead": 1})", "t"), ConfigError);
  // "attempts" and "entry": each bad value names its member.
  CHECK_THROWS_WITH(parse_teacher_config(R"({"attempts": "first"})", "t"),
                    Catch::Contains("t: attempts is \"first\"; it must be \"latest\""));
  CHECK_THROWS_WITH(parse_teacher_config(R"({"attempts": 3})", "t"), Catch::Contains("t: attempts is 3"));
  CHECK_THROWS_WITH(parse_teacher_config(R"({"attempts": "named"})", "t"),
                    Catch::Contains("attempts is \"named\" but there is no \"entry\""));
  for (const char* bad : {R"({"entry": "../bob/attention.py"})", R"({"entry": "/etc/passwd"})",
                          R"({"entry": ""})", R"({"entry": 7})"})
    CHECK_THROWS_WITH(parse_teacher_config(bad, "t"), Catch::Contains("t: entry is"));
  using attn::grader::Attempts;
  CHECK(attn::grader::attempt_policy(nullptr) == Attempts::latest);
  const auto named = parse_teacher_config(R"({"entry": "attention.py"})", "t");
  CHECK(attempt_policy(&named) == Attempts::named);
  const auto best = parse_teacher_config(R"({"entry": "attention.py", "attempts": "best"})", "t");
  CHECK(attempt_policy(&best) == Attempts::best);
  CHECK_THROWS_AS(parse_teacher_config(R"({"cases": 0})", "t"), ConfigError);
  CHECK_THROWS_AS(parse_teacher_config(R"({"visibility": {"generated": "secret"}})", "t"), ConfigError);
  CHECK_THROWS_AS(parse_teacher_config(R"({"exercises": {"F9": {}}})", "t"), ConfigError);
  CHECK_THROWS_AS(parse_teacher_config(R"({"exercises": {"F3": {"points": {"row_stochastc": 1}}}})", "t"),
                  ConfigError);
  CHECK_THROWS_AS(parse_teacher_config("{not json", "t"), ConfigError);
  // Found by fuzz/fuzz_teacher_config: a number too large for the JSON
  // reader escaped as nlohmann's out_of_range.
  CHECK_THROWS_AS(parse_teacher_config("80e880{52t9", "t"), ConfigError);
  CHECK_THROWS_AS(parse_teacher_config(R"({"seed": 1e999})", "t"), ConfigError);
  // The configuration fixes the exercise: by "exercise", or one exercise named.
  CHECK(*attn::grader::fixed_exercise(parse_teacher_config(R"({"exercise": "F3"})", "t")) == "F3");
  CHECK(*attn::grader::fixed_exercise(parse_teacher_config(R"({"exercises": {"C1": {}}})", "t")) == "C1");
  CHECK_FALSE(attn::grader::fixed_exercise(
      parse_teacher_config(R"({"exercises": {"C1": {}, "F3": {}}})", "t")));
  CHECK_THROWS_AS(parse_teacher_config(R"({"exercise": "F9"})", "t"), ConfigError);
  const auto c = parse_teacher_config(
      R"({"seed": 7, "cases": 12, "limits": {"timeout_s": 2.5, "max_processes": 0}})", "t");
  CHECK(*c.seed == 7);
  CHECK(*c.cases == 12);
  CHECK(*c.limits.timeout_s == 2.5);
  CHECK(*c.limits.max_processes == 0);
}

TEST_CASE("the configuration's seed and case count are the ones used", "[reports]") {
  attn::grader::TempDir dir("attnlab-test-");
  GradeOptions o = options_for(source("solutions/F3/attention.py"));
  // As main() does with --config: seed and cases from the file.
  const auto config = attn::grader::parse_teacher_config(R"({"seed": 4242, "cases": 7})", "t");
  o.run.seed = *config.seed;
  o.run.cases = *config.cases;
  o.settings_from = "the teacher configuration";
  const Graded g = grade(o, dir);
  REQUIRE(g.result.status == GradeResult::Status::graded);
  for (const auto& v : g.result.verdicts) {
    INFO(v.property_id);
    CHECK(v.seed == 4242);
    if (v.generated) CHECK(v.cases == 7);
  }
  CHECK(g.text.find("seed:        4242") != std::string::npos);
  CHECK(g.text.find("cases:       7 per property") != std::string::npos);
}

TEST_CASE("not gradable and usage errors still give a results.json", "[reports]") {
  attn::grader::TempDir dir("attnlab-test-");
  const Graded bad = grade(options_for(std::string(ATTNLAB_GRADER_TEST_DATA) + "/compile_error.cpp"), dir);
  CHECK(bad.result.status == GradeResult::Status::not_gradable);
  CHECK(bad.results.at("score").get<double>() == 0);
  CHECK(bad.results.at("max_score").get<double>() == attn::grader::load_exercise("F3").max_points());
  CHECK(bad.results.at("tests").empty());
  CHECK(bad.results.at("output").get<std::string>().find("NOT GRADABLE") != std::string::npos);
  CHECK(bad.results.at("output").get<std::string>().find("this_is_not_declared") != std::string::npos);

  attn::grader::TempDir dir2("attnlab-test-");
  const Graded missing = grade(options_for(std::string(ATTNLAB_GRADER_TEST_DATA) + "/does_not_exist.py"), dir2);
  CHECK(missing.result.status == GradeResult::Status::usage_error);
  CHECK(missing.results.at("score").get<double>() == 0);
  CHECK(missing.results.at("output").get<std::string>().find("could not grade") != std::string::npos);
}

TEST_CASE("summary rows and CSV", "[reports]") {
  GradeResult r;
  r.status = GradeResult::Status::graded;
  r.exercise = "F3";
  r.score = 3;
  r.max_score = 5;
  r.failed = 1;
  attn::grader::ScoredItem a, b, c;
  a.id = "x";
  a.points = 3;
  a.max_points = 3;
  b.id = "y";
  b.max_points = 2;
  c.id = "z";
  c.counted = false;
  r.items = {a, b, c};
  const auto row = attn::grader::summary_row("dir/a,b.py", r);
  CHECK(row.status == "graded");
  REQUIRE(row.points.size() == 2);  // the skipped item is not a column value
  attn::grader::TempDir dir("attnlab-test-");
  attn::grader::Gradebook book;
  book.submissions = {row};
  book.submissions[0].student = "dir";
  book.submissions[0].graded_at = "2026-01-01T00:00:00Z";
  book.submissions[0].version = "0.1.0";
  book.submissions[0].seed = 7;
  book.submissions[0].settings_hash = "abc";
  // The class's fixed columns: F3 with its two counted items (x 3, y 2).
  book.columns = {attn::grader::ExerciseColumns{"F3", 5, {{"x", 3}, {"y", 2}}}};
  book.students = attn::grader::student_rows(book.submissions, book.columns);
  attn::grader::write_gradebook(dir.path(), book);
  std::ifstream in(dir.path() / "summary.csv");
  std::string header, line;
  std::getline(in, header);
  std::getline(in, line);
  INFO(header);
  INFO(line);
  // Per exercise its total (of its maximum) and status, then its items.
  CHECK_THAT(header, Catch::StartsWith("student,score,max_score,status,exercises,files,"));
  CHECK_THAT(header, Catch::Contains("F3 (5),F3 status,F3:x (3),F3:y (2)"));
  CHECK_THAT(header, Catch::EndsWith("misconceptions,graded_at,attnlab_version,seed,settings_hash,note"));
  CHECK_THAT(line, Catch::StartsWith("dir,3,5,graded,F3,\"dir/a,b.py\","));
  CHECK_THAT(line, Catch::Contains(",3,graded,3,0,"));
  CHECK_THAT(line, Catch::EndsWith(",2026-01-01T00:00:00Z,0.1.0,7,abc,\"dir/a,b.py: 1 failed\""));
  CHECK(attn::grader::report_stem("dir/.hidden/a.py") == "dir%2F.hidden%2Fa.py");
}

TEST_CASE("report stems are reversible, short and never hidden", "[reports]") {
  using attn::grader::report_stem;
  // '/' and "__", '%' and an escape, a leading '.': distinct names, distinct stems.
  CHECK(report_stem("x/sub/attention.py") == "x%2Fsub%2Fattention.py");
  CHECK(report_stem("x__sub/attention.py") == "x__sub%2Fattention.py");
  CHECK(report_stem("a%2Fb") != report_stem("a/b"));
  CHECK(report_stem("..") == "%2E.");
  CHECK(attn::grader::report_path("summary") == "students/summary.txt");
  // Long names: under the limit, distinct, and never the stem of a short name.
  const std::string a(300, 'a'), b = std::string(299, 'a') + "b";
  CHECK(report_stem(a).size() <= 200);
  CHECK(report_stem(a) != report_stem(b));
  CHECK(report_stem(a).find("%h") != std::string::npos);
  // A cut never splits a UTF-8 character or a %XX escape.
  const std::string e = std::string(159, 'e') + "\xc3\xa9" + std::string(100, 'e');
  const std::string cut = report_stem(e);
  CHECK(cut.substr(0, cut.find("%h")) == std::string(159, 'e'));
  const std::string p = std::string(158, 'p') + std::string(60, '%');
  const std::string pc = report_stem(p);
  CHECK(pc.substr(0, pc.find("%h")) == std::string(158, 'p'));  // not "...%2"
}

TEST_CASE("CSV cells cannot run as formulas (OWASP)", "[reports]") {
  using attn::grader::csv_cell;
  CHECK(csv_cell("=1+2") == "'=1+2");
  CHECK(csv_cell("+sum") == "'+sum");
  CHECK(csv_cell("-x") == "'-x");
  CHECK(csv_cell("@at") == "'@at");
  CHECK(csv_cell("\tx") == "'\tx");
  CHECK(csv_cell("=a,b") == "\"'=a,b\"");
  CHECK(csv_cell("alice") == "alice");
  CHECK(csv_cell("") == "");
}

TEST_CASE("look-alike student names", "[reports]") {
  using attn::grader::look_alike_key;
  CHECK(look_alike_key("Jos\xc3\xa9") == look_alike_key("Jose\xcc\x81"));   // NFC, NFD
  CHECK(look_alike_key("ana") == look_alike_key("a\xe2\x80\x8bna"));          // U+200B
  CHECK(look_alike_key("ana") == look_alike_key("\xef\xbb\xbf" "ana"));        // U+FEFF
  CHECK(look_alike_key("ana") == look_alike_key("an\xe2\x81\xa0" "a"));        // U+2060
  CHECK(look_alike_key("ana") == look_alike_key("\xd0\xb0" "na"));        // Cyrillic U+0430 (UTS #39)
  CHECK(look_alike_key("ana") != look_alike_key("anna"));
  const auto groups = attn::grader::look_alike_groups({"ana", "bob", "a\xe2\x80\x8bna", "ana"});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].size() == 2);
  CHECK(attn::grader::visible_name("a\xe2\x80\x8bna") == "a<U+200B>na");
}
