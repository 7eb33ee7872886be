#pragma once
// Helpers shared by the submission tests: fixture paths, cases, subjects.

#include <cmath>
#include <limits>
#include <cstring>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "attn/grader/paths.hpp"
#include "submission/process_subject.hpp"
#include "submission/submission.hpp"

namespace fixtures {

inline std::string data(const std::string& name) {
  return std::string(ATTNLAB_GRADER_TEST_DATA) + "/" + name;
}

inline std::string source(const std::string& relative) {
  return std::string(attn::grader::paths::source_dir) + "/" + relative;
}

/// The text's two-token example (32.2.6): Q = I, K = [[1,1],[2,0]], V = [[1,0,0],[0,1,0]].
inline attn::prop::Case textbook(bool causal) {
  attn::prop::Case c;
  c.op = attn::prop::Operation::attention;
  c.Q.resize(2, 2);
  c.Q << 1, 0, 0, 1;
  c.K.resize(2, 2);
  c.K << 1, 1, 2, 0;
  c.V.resize(2, 3);
  c.V << 1, 0, 0, 0, 1, 0;
  if (causal) {
    attn::Mask m(2, 2);
    m << false, true, false, false;
    c.mask = m;
  }
  return c;
}

/// A(0, 0) of the unmasked example, from the definition: e^{1/sqrt2} / (e^{1/sqrt2} + e^{sqrt2}).
inline double textbook_a00() {
  const double s1 = 1 / std::sqrt(2.0), s2 = std::sqrt(2.0);
  return std::exp(s1) / (std::exp(s1) + std::exp(s2));
}

/// n x n matrices Q and K full of doubles that are hard to carry exactly
/// (for echo fixtures that return O = Q and A = K).
inline attn::prop::Case special_values_case(double q00 = 0.1) {
  const double values[] = {0.1,
                           -0.0,
                           1e308,
                           -1e308,
                           std::numeric_limits<double>::denorm_min(),
                           std::nextafter(std::numeric_limits<double>::min(), 0.0),
                           std::numeric_limits<double>::max(),
                           std::nan(""),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           1.0 / 3.0,
                           2.0,
                           9007199254740993.0,
                           -2.5e-310,
                           0.30000000000000004,
                           3.0};
  const int n = 4;
  attn::prop::Case c;
  c.Q.resize(n, n);
  c.K.resize(n, n);
  c.V = attn::Matrix<double>::Zero(n, n);
  for (int k = 0; k < n * n; ++k) {
    c.Q(k / n, k % n) = values[k];
    c.K(k / n, k % n) = -values[(k + 5) % (n * n)];
  }
  c.Q(0, 0) = q00;
  return c;
}

inline bool same_bits(double a, double b) {
  if (std::isnan(a)) return std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Launch options for a submission of exercise F3 (the fixtures' files
/// answer F3's interface).
inline attn::grader::LaunchOptions f3_launch() {
  attn::grader::LaunchOptions o;
  o.exercise = "F3";
  return o;
}

/// A started ProcessSubject for a prepared submission; REQUIREs that it starts.
inline std::unique_ptr<attn::grader::ProcessSubject> started(
    const attn::grader::Launch& launch, const std::string& name,
    attn::grader::SubjectOptions options = {}) {
  REQUIRE(launch.status == attn::grader::Launch::Status::ready);
  auto s = std::make_unique<attn::grader::ProcessSubject>(name, launch.command, options);
  const auto why = s->start();
  INFO((why ? *why : std::string()));
  REQUIRE_FALSE(why);
  return s;
}

inline std::unique_ptr<attn::grader::ProcessSubject> started(
    const std::string& file, attn::grader::SubjectOptions options = {}) {
  return started(attn::grader::prepare_submission(file, f3_launch()), file, options);
}

}  // namespace fixtures
