// C++ submissions: compiled against exercises/F3/attention.hpp and linked
// with the prebuilt harness; compile errors are "not gradable".
#include <catch2/catch.hpp>

#include "attn/grader/paths.hpp"
#include "submission/cpp_build.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission_fixtures.hpp"

using namespace attn::grader;
using namespace fixtures;
using Kind = attn::prop::Outcome::Kind;

namespace {

/// Compiled once for every test that uses it.
const Launch& echo_or_segfault() {
  static const Launch launch = prepare_submission(data("echo_or_segfault.cpp"), f3_launch());
  return launch;
}

}  // namespace

TEST_CASE("a C++ submission compiles and speaks the protocol", "[cpp]") {
  const Launch& l = echo_or_segfault();
  INFO(l.message);
  REQUIRE(l.status == Launch::Status::ready);
  CHECK(l.language == Language::cpp);
  auto s = started(l, "echo_or_segfault.cpp");
  CHECK(s->hello().language == "c++");
  CHECK(s->hello().entry == "f3::attention");

  const auto c = special_values_case();
  const auto o = s->run(c);
  REQUIRE(o.kind == Kind::result);
  for (Eigen::Index i = 0; i < c.Q.rows(); ++i) {
    for (Eigen::Index j = 0; j < c.Q.cols(); ++j) {
      INFO("(" << i << ", " << j << ")");
      CHECK(same_bits(o.O(i, j), c.Q(i, j)));
      CHECK(same_bits(o.A(i, j), c.K(i, j)));
    }
  }
  // Prints from static initialisers and from the function went to stderr.
  CHECK_THAT(s->stderr_tail(), Catch::Contains("junk from a static initialiser") &&
                                   Catch::Contains("junk from std::cout") &&
                                   Catch::Contains("junk from printf"));
}

TEST_CASE("a segfault is a fault, and the next case runs in a fresh process", "[cpp]") {
  auto s = started(echo_or_segfault(), "echo_or_segfault.cpp");
  const auto crash = s->run(special_values_case(1234));
  REQUIRE(crash.kind == Kind::fault);
  CHECK_THAT(crash.message, Catch::Contains("crashed with signal 11 (SIGSEGV)"));
  CHECK(s->run(special_values_case()).kind == Kind::result);
  CHECK(s->restarts() == 1);
}

TEST_CASE("a C++ exception is a refusal named by its type", "[cpp]") {
  auto s = started(echo_or_segfault(), "echo_or_segfault.cpp");
  const auto o = s->run(special_values_case(4321));
  REQUIRE(o.kind == Kind::refusal);
  CHECK(o.error_type == "std::domain_error");
  CHECK(o.message == "row 0: every key is forbidden");
}

TEST_CASE("the C++ model solution and the F4 variant on the text's example", "[cpp]") {
  auto good = started(source("solutions/F3/attention.cpp"));
  const auto plain = good->run(textbook(false));
  REQUIRE(plain.kind == Kind::result);
  CHECK(plain.A(0, 0) == Approx(textbook_a00()).epsilon(1e-14));
  const auto masked = good->run(textbook(true));
  REQUIRE(masked.kind == Kind::result);
  CHECK(masked.A(0, 0) == 1.0);
  CHECK(masked.A(0, 1) == 0.0);
  auto all_forbidden = textbook(true);
  (*all_forbidden.mask)(0, 0) = true;
  const auto refused = good->run(all_forbidden);
  REQUIRE(refused.kind == Kind::refusal);
  CHECK(refused.error_type == "std::domain_error");
  auto mismatch = textbook(false);
  mismatch.K.conservativeResize(2, 3);
  const auto shape = good->run(mismatch);
  REQUIRE(shape.kind == Kind::refusal);
  CHECK(shape.error_type == "std::invalid_argument");

  LaunchOptions f4;
  f4.exercise = "F4";  // it implements f4::attention (exercises/F4/masked_attention.hpp)
  auto bad = started(prepare_submission(source("exercises/F4/post_softmax_mask.cpp"), f4),
                     "post_softmax_mask.cpp");
  const auto wrong = bad->run(textbook(true));
  REQUIRE(wrong.kind == Kind::result);
  CHECK(wrong.A.row(0).sum() == Approx(textbook_a00()).epsilon(1e-14));
}

TEST_CASE("a file of F2 and F3 builds as either, with both interface headers", "[cpp]") {
  const std::string exercises = attn::grader::paths::exercises_dir;
  const CppToolchain t = toolchain_for("F2", {"F2", "F3"});
  CHECK(t.other_interface_dirs == std::vector<std::string>{exercises + "/F3"});
  CHECK(t.interface_headers ==
        std::vector<std::string>{exercises + "/F2/masked_softmax.hpp", exercises + "/F3/attention.hpp"});
  CHECK_THAT(reproduction_build_command("F2", {"f2_and_f3.cpp"}, {"F2", "F3"}),
             Catch::Contains("-I" + exercises + "/F2 -I" + exercises + "/F3 "));
  for (const std::string id : {"F2", "F3"}) {
    INFO(id);
    LaunchOptions o;
    o.exercise = id;
    const Launch l = prepare_submission(data("cpp/f2_and_f3.cpp"), o);
    INFO(l.message);
    REQUIRE(l.status == Launch::Status::ready);
    CHECK(l.cpp_other_interfaces == std::vector<std::string>{"F2", "F3"});
  }
  // The F3 built from it answers the text's example as the model solution does.
  LaunchOptions f3;
  f3.exercise = "F3";
  auto s = started(prepare_submission(data("cpp/f2_and_f3.cpp"), f3), "f2_and_f3.cpp");
  const auto plain = s->run(textbook(false));
  REQUIRE(plain.kind == Kind::result);
  CHECK(plain.A(0, 0) == Approx(textbook_a00()).epsilon(1e-14));
}

TEST_CASE("a compile error makes the submission not gradable, with the message", "[cpp]") {
  const Launch l = prepare_submission(data("compile_error.cpp"), f3_launch());
  CHECK(l.status == Launch::Status::not_gradable);
  CHECK_THAT(l.message, Catch::Contains("this_is_not_declared"));
  CHECK_THAT(l.build_command, Catch::Contains("-std=c++20"));
}

TEST_CASE("a missing compiler is an infrastructure error", "[cpp]") {
  TempDir dir;
  CppToolchain t = toolchain_for("F3");
  t.compiler = "/nonexistent/g++";
  const CppBuild b = build_cpp_submission(data("echo_or_segfault.cpp"), dir.path(), t);
  CHECK(b.status == CppBuild::Status::compiler_missing);
  CHECK_THAT(b.diagnostics, Catch::Contains("/nonexistent/g++"));
}

TEST_CASE("trim_diagnostics keeps the first lines and says what it cut", "[cpp]") {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "error line " + std::to_string(i) + "\n";
  const std::string t = trim_diagnostics(text, 10, 100000);
  CHECK_THAT(t, Catch::StartsWith("error line 0\n"));
  CHECK_THAT(t, Catch::Contains("error line 9\n"));
  CHECK_THAT(t, !Catch::Contains("error line 10\n"));
  CHECK_THAT(t, Catch::Contains("90 more lines cut"));
}
