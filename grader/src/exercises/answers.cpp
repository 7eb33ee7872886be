// The answers files (exercises/registry.json's "answers" forms), checked against the oracle at 1e-4.
#include "exercises/answers.hpp"
#include "exercises/registry.hpp"
#include "exercises/strict_json.hpp"
#include "sandbox/file_problem.hpp"
#include "sandbox/no_follow.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attn/ref/oracle.hpp"
#include "attn/ref/textbook.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Failure;
using attn::prop::Verdict;
using attn::prop::VerdictStatus;
using attn::prop::WorstEntry;
namespace textbook = attn::ref::textbook;

/// The answers file could not be read as the format says; the message is for the student.
struct Malformed {
  std::string why;
  bool refused = false;  ///< not read at all (a link, a FIFO, too large: no_follow.hpp)
};

nlohmann::json parse_file(const fs::path& file, const fs::path& root) {
  std::string text;
  try {
    text = read_no_follow(file, root, kAnswersMaxBytes);
  } catch (const RefusedFile& e) {
    throw Malformed{e.what(), true};
  } catch (const std::exception&) {
    throw Malformed{"it cannot be read"};
  }
  try {
    return parse_json_unique_members(text);
  } catch (const DuplicateMember& e) {  // which of the two is the answer? (strict_json.hpp)
    throw Malformed{std::string("it is not valid JSON (") + e.what() + ")"};
  } catch (const nlohmann::json::exception& e) {  // also a number too large (out_of_range)
    throw Malformed{"it is not valid JSON (" + json_error_text(e) + ")"};
  }
}

const nlohmann::json& member(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) throw Malformed{"it is not a JSON object {...}"};
  const auto it = j.find(name);
  if (it == j.end()) throw Malformed{std::string("it has no \"") + name + "\" member"};
  return *it;
}

double number(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number()) {
    throw Malformed{where + " is " + v.dump() + ", expected a number (like 0.1192)"};
  }
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Malformed{where + " is not a finite number"};
  return x;
}

DMatrix matrix(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = member(j, name);
  const std::string n(name);
  if (!v.is_array() || v.empty()) {
    throw Malformed{n + " is " + std::string(v.type_name()) +
                    ", expected a matrix: an array of rows, each an array of numbers"};
  }
  const std::size_t cols = v[0].is_array() ? v[0].size() : 0;
  DMatrix M(Eigen::Index(v.size()), Eigen::Index(cols));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_array()) {
      throw Malformed{n + " row " + std::to_string(i) + " is " + v[i].dump() +
                      ", expected an array of numbers"};
    }
    if (v[i].size() != cols) {
      throw Malformed{n + " row " + std::to_string(i) + " has " + std::to_string(v[i].size()) +
                      " entries but row 0 has " + std::to_string(cols)};
    }
    for (std::size_t k = 0; k < cols; ++k) {
      M(Eigen::Index(i), Eigen::Index(k)) =
          number(v[i][k], n + "[" + std::to_string(i) + "][" + std::to_string(k) + "]");
    }
  }
  return M;
}

/// The expected shape of a file, for messages.
std::string format_of(const Exercise& exercise) {
  if (exercise.answers_form == kShiftAnswers)
    return "{\"exercise\": \"" + exercise.id + "\", \"A_without_shift\": [[a, b, c], [d, e, f]], "
           "\"A_with_shift\": [[a, b, c], [d, e, f]]}";
  return "{\"exercise\": \"" + exercise.id + "\", \"buggy_row_sum\": x}";
}

Verdict blank_verdict(const Exercise& e, const std::string& subject) {
  Verdict v;
  v.property_id = kAnswersItem;
  v.subject = subject;
  v.generated = false;
  v.hint = {"a number in the answers file is not the text's",
            "Recompute it from the statement; the report shows the expected value and the "
            "tolerance.",
            "section 32.2.8"};
  if (e.answers_form == kShiftAnswers) {
    v.title = "the answers file gives " + e.id + "'s masked softmax without and with the max shift";
    v.source = e.id + ", sections 32.2.8-32.2.9";
  } else {
    v.title = "the answers file gives the buggy row sum of " + e.id;
    v.source = e.id + ", sections 32.2.8-32.2.9; Lemma 2";
  }
  return v;
}

/// F2's case, for the report's "on the text's example" block.
Case f2_case() {
  Case c;
  c.op = attn::prop::Operation::masked_softmax;
  c.S = textbook::F2{}.S;
  return c;
}

/// The lab's two-token example with the causal mask, for F4's report.
Case f4_case() {
  const textbook::TwoToken ex;
  Case c;
  c.op = attn::prop::Operation::attention;
  c.Q = ex.Q;
  c.K = ex.K;
  c.V = ex.V;
  c.mask = ex.causal;
  return c;
}

/// nullopt if every entry of `given` is within the tolerance of `expected`;
/// otherwise a failure at the worst entry.
std::optional<Failure> compare_matrix(const std::string& name, const DMatrix& given,
                                      const DMatrix& expected) {
  if (given.rows() != expected.rows() || given.cols() != expected.cols()) {
    Failure f;
    std::ostringstream os;
    os << name << " is " << given.rows() << " x " << given.cols() << ", expected "
       << expected.rows() << " x " << expected.cols() << " (the shape of F2's S)";
    f.summary = os.str();
    return f;
  }
  Eigen::Index wi = 0, wj = 0;
  double worst = -1;
  for (Eigen::Index i = 0; i < given.rows(); ++i)
    for (Eigen::Index j = 0; j < given.cols(); ++j) {
      const double err = std::abs(given(i, j) - expected(i, j));
      if (err > worst) {
        worst = err;
        wi = i;
        wj = j;
      }
    }
  if (worst <= kAnswersTolerance) return std::nullopt;
  Failure f;
  std::ostringstream os;
  os << std::setprecision(8) << name << "(" << wi << ", " << wj << ") = " << given(wi, wj)
     << " but the masked softmax of F2's S gives " << expected(wi, wj)
     << std::setprecision(2) << " (off by " << worst << " > " << kAnswersTolerance << ")";
  f.summary = os.str();
  f.marked_row = wi;
  f.worst = WorstEntry{name, wi, wj, expected(wi, wj), given(wi, wj), worst, kAnswersTolerance};
  f.outcome = attn::prop::Outcome::make_result(DMatrix(), given);
  return f;
}

/// Fills v from the F2 answers in j.
void check_f2(const nlohmann::json& j, Verdict& v) {
  const DMatrix expected = f2_expected_weights();
  for (const char* name : {"A_without_shift", "A_with_shift"}) {
    const DMatrix given = matrix(j, name);
    if (auto f = compare_matrix(name, given, expected)) {
      v.counterexample = f2_case();
      v.failure = std::move(f);
      return;
    }
    ++v.cases;
  }
  v.status = VerdictStatus::passed;
}

/// Fills v from the F4 answer in j.
void check_f4(const nlohmann::json& j, Verdict& v) {
  const double given = number(member(j, "buggy_row_sum"), "buggy_row_sum");
  const double expected = f4_expected_buggy_row_sum();
  const double err = std::abs(given - expected);
  if (err <= kAnswersTolerance) {
    v.cases = 1;
    v.status = VerdictStatus::passed;
    return;
  }
  Failure f;
  std::ostringstream os;
  os << std::setprecision(8) << "buggy_row_sum = " << given
     << " but masking after the softmax leaves row 0 of the lab example summing to " << expected
     << std::setprecision(2) << " (off by " << err << " > " << kAnswersTolerance << ")";
  f.summary = os.str();
  f.marked_row = 0;
  f.worst = WorstEntry{"buggy row sum", 0, -1, expected, given, err, kAnswersTolerance};
  v.counterexample = f4_case();
  v.failure = std::move(f);
}

}  // namespace

DMatrix f2_expected_weights() {
  return attn::ref::to_double(attn::ref::exact_masked_softmax(textbook::F2{}.S, std::nullopt).A);
}

double f4_expected_buggy_row_sum() {
  const textbook::TwoToken ex;
  const auto exact = attn::ref::exact_attention(ex.Q, ex.K, ex.V, std::nullopt);
  // The buggy code keeps the unmasked weights of the allowed keys and zeroes the rest.
  attn::ref::Real sum = 0;
  for (Eigen::Index j = 0; j < ex.causal.cols(); ++j)
    if (!ex.causal(0, j)) sum += exact.A(0, j);
  return static_cast<double>(sum);
}

AnswersExercise read_answers_exercise(const fs::path& file, const fs::path& root) {
  AnswersExercise r;
  try {
    const nlohmann::json j = parse_file(file, root);
    const nlohmann::json& e = member(j, "exercise");
    if (!e.is_string()) throw Malformed{"its \"exercise\" member is " + e.dump() + ", not a string"};
    r.exercise = e.get<std::string>();
  } catch (const Malformed& m) {
    r.problem = m.refused ? "it is not read: " + m.why : m.why;
    if (m.refused) r.refused = m.why;
  }
  return r;
}

std::string answers_refused_message(const std::string& shown, const std::string& refused) {
  return "the answers file " + shown + " is not read: " + refused +
         "; attnlab reads an answers file only as the regular file itself (give that file)";
}

std::optional<std::string> answers_usage_problem(const Exercise& exercise, const fs::path& file,
                                                 const fs::path& root) {
  if (!exercise.has_answers()) {
    std::string with_answers;
    const auto& specs = exercise_specs();
    for (std::size_t i = 0, n = 0; i < specs.size(); ++i)
      if (!specs[i].answers_form.empty())
        with_answers += (n++ == 0 ? "" : " and ") + specs[i].id;
    return "exercise " + exercise.id + " has no answers file (only " + with_answers + " do)";
  }
  if (const auto problem = not_a_file(file, "answers file")) return *problem;
  const AnswersExercise a = read_answers_exercise(file, root);
  if (!a.refused.empty()) return answers_refused_message(file.string(), a.refused);
  if (a.exercise && *a.exercise != exercise.id) {
    return "the answers file " + file.string() + " is for exercise " + *a.exercise +
           ", but the submission is graded as " + exercise.id;
  }
  return std::nullopt;
}

Verdict check_answers(const Exercise& exercise, const std::optional<fs::path>& file,
                      const fs::path& root) {
  Verdict v = blank_verdict(exercise, file ? file->string() : std::string());
  if (!file) {
    v.status = VerdictStatus::skipped;
    std::ostringstream os;
    os << "skipped: no answers file was given; pass --answers FILE with " << format_of(exercise)
       << " (exercises/" << exercise.id << "/README.md)";
    if (auto it = exercise.points.find(kAnswersItem); it != exercise.points.end())
      os << "; it is worth " << it->second << " points";
    v.error = os.str();
    return v;
  }
  try {
    const nlohmann::json j = parse_file(*file, root);
    const nlohmann::json& e = member(j, "exercise");
    if (!e.is_string() || e.get<std::string>() != exercise.id) {
      throw Malformed{"its \"exercise\" member is " + e.dump() + ", expected \"" + exercise.id +
                      "\""};
    }
    if (exercise.answers_form == kShiftAnswers) {
      check_f2(j, v);
    } else {
      check_f4(j, v);
    }
  } catch (const Malformed& m) {
    Failure f;
    f.summary = "the answers file " + file->filename().string() +
                (m.refused ? " is not read: " : " is malformed: ") + m.why + ". Expected " +
                format_of(exercise) + " (exercises/" + exercise.id + "/README.md)";
    v.failure = std::move(f);
    v.status = VerdictStatus::failed;
  } catch (const std::exception& e) {  // the oracle or the JSON library, unexpectedly
    v.error = std::string("error while checking the answers: ") + e.what();
    v.status = VerdictStatus::error;
  }
  return v;
}

}  // namespace attn::grader
