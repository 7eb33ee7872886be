// Python submissions through the harness: prints kept off the protocol,
// crashes, timeouts, exits, restarts, refusals, load errors, exact doubles.
#include <chrono>

#include <catch2/catch.hpp>

#include "sandbox/python_finder.hpp"
#include "submission_fixtures.hpp"

using namespace attn::grader;
using namespace fixtures;
using namespace std::chrono_literals;
using Kind = attn::prop::Outcome::Kind;

TEST_CASE("a Python interpreter with NumPy is found", "[python]") {
  const PythonSearch s = find_python(std::nullopt);
  std::string rejected;
  for (const auto& r : s.rejected) rejected += r + "\n";
  INFO("rejected:\n" << rejected << "install python3-numpy for these tests");
  REQUIRE(s.found);
  CHECK_FALSE(s.found->numpy_version.empty());
  CHECK_FALSE(s.found->python_version.empty());

  const PythonSearch fake = find_python(data("python_without_numpy.sh"));
  CHECK_FALSE(fake.found);
  REQUIRE(fake.rejected.size() == 1);
  CHECK_THAT(fake.rejected[0], Catch::Contains("numpy"));
}

TEST_CASE("the model solution answers the text's example", "[python]") {
  auto s = started(source("solutions/F3/attention.py"));
  CHECK(s->hello().entry == "scaled_dot_product_attention");
  CHECK(s->supports(attn::prop::Operation::attention));

  const auto plain = s->run(textbook(false));
  REQUIRE(plain.kind == Kind::result);
  CHECK(plain.A(0, 0) == Approx(textbook_a00()).epsilon(1e-14));
  CHECK(plain.O(1, 0) == Approx(1 - textbook_a00()).epsilon(1e-14));

  const auto masked = s->run(textbook(true));
  REQUIRE(masked.kind == Kind::result);
  CHECK(masked.A(0, 0) == 1.0);
  CHECK(masked.A(0, 1) == 0.0);

  auto all_forbidden = textbook(true);
  (*all_forbidden.mask)(1, 0) = (*all_forbidden.mask)(1, 1) = true;
  const auto refused = s->run(all_forbidden);
  REQUIRE(refused.kind == Kind::refusal);
  CHECK(refused.error_type == "ValueError");
  CHECK_THAT(refused.message, Catch::Contains("row 1"));
}

TEST_CASE("the F4 variant's masked row sums to A(0, 0), not 1", "[python]") {
  auto s = started(source("exercises/F4/post_softmax_mask.py"));
  const auto o = s->run(textbook(true));
  REQUIRE(o.kind == Kind::result);
  CHECK(o.A.row(0).sum() == Approx(textbook_a00()).epsilon(1e-14));
  CHECK(o.A(0, 1) == 0.0);
}

TEST_CASE("doubles travel to Python and back bit-exactly", "[python]") {
  auto s = started(data("echo.py"));
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
}

TEST_CASE("prints from the submission do not reach the protocol", "[python]") {
  auto s = started(data("noisy.py"));
  CHECK(s->hello().entry == "attention");
  for (int round = 0; round < 3; ++round) {
    const auto o = s->run(textbook(false));
    REQUIRE(o.kind == Kind::result);
    CHECK(o.A(0, 0) == Approx(textbook_a00()).epsilon(1e-14));
  }
  CHECK(s->faults() == 0);
  const std::string err = s->stderr_tail();
  CHECK_THAT(err, Catch::Contains("junk at import time"));
  CHECK_THAT(err, Catch::Contains("junk from print()"));
  CHECK_THAT(err, Catch::Contains("junk from os.write(1)"));
  CHECK_THAT(err, Catch::Contains("\"ok\":true,\"O\":[[0]]"));  // the forged reply, harmless
}

TEST_CASE("a crash is a fault naming the signal", "[python]") {
  auto s = started(data("crash.py"));
  const auto o = s->run(textbook(false));
  REQUIRE(o.kind == Kind::fault);
  CHECK_THAT(o.message, Catch::Contains("crashed with signal 6 (SIGABRT)"));
}

TEST_CASE("a submission that loops forever times out", "[python]") {
  SubjectOptions opt;
  opt.call_timeout = 1s;
  opt.max_timeouts = 2;
  auto s = started(data("loop.py"), opt);
  const auto t0 = std::chrono::steady_clock::now();
  const auto first = s->run(textbook(false));
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE(first.kind == Kind::fault);
  CHECK_THAT(first.message, Catch::Contains("timed out after 1 s"));
  CHECK(took >= 1s);
  CHECK(took < 8s);

  const auto second = s->run(textbook(false));  // a fresh process, timing out again
  CHECK_THAT(second.message, Catch::Contains("timed out after 1 s"));
  CHECK(s->restarts() == 1);

  const auto t1 = std::chrono::steady_clock::now();
  const auto third = s->run(textbook(false));  // past max_timeouts: not run at all
  CHECK(std::chrono::steady_clock::now() - t1 < 500ms);
  CHECK_THAT(third.message, Catch::Contains("not run"));
}

TEST_CASE("an exit inside the function is a fault with its status", "[python]") {
  auto s = started(data("exit_in_call.py"));
  const auto o = s->run(textbook(false));
  REQUIRE(o.kind == Kind::fault);
  CHECK_THAT(o.message, Catch::Contains("exited with status 3 before replying"));
}

TEST_CASE("after a crash the next case runs in a fresh process", "[python]") {
  auto s = started(data("crash_on_negative.py"));
  auto bad = textbook(false);
  bad.Q(0, 0) = -1;
  CHECK(s->run(bad).kind == Kind::fault);
  const auto good = s->run(textbook(false));
  REQUIRE(good.kind == Kind::result);
  CHECK(good.A(0, 0) == 0.5);
  CHECK(s->restarts() == 1);
  CHECK(s->faults() == 1);
}

TEST_CASE("restarts are capped", "[python]") {
  SubjectOptions opt;
  opt.max_restarts = 2;
  auto s = started(data("crash.py"), opt);
  for (int k = 0; k < 3; ++k) {
    CHECK_THAT(s->run(textbook(false)).message, Catch::Contains("SIGABRT"));
  }
  const auto capped = s->run(textbook(false));
  CHECK_THAT(capped.message, Catch::Contains("not run") && Catch::Contains("restarted 2 times"));
  CHECK(s->restarts() == 2);
}

TEST_CASE("an exception is a refusal with its type and message", "[python]") {
  auto s = started(data("raises.py"));
  const auto o = s->run(textbook(false));
  REQUIRE(o.kind == Kind::refusal);
  CHECK(o.error_type == "ValueError");
  CHECK(o.message == "every key of row 0 is forbidden");
  CHECK(s->run(textbook(false)).kind == Kind::refusal);  // the process lives on
  CHECK(s->restarts() == 0);
}

TEST_CASE("a wrong return value is a fault", "[python]") {
  auto s = started(data("bad_return.py"));
  const auto o = s->run(textbook(false));
  REQUIRE(o.kind == Kind::fault);
  CHECK_THAT(o.message, Catch::Contains("expected the pair (O, A)"));
}

TEST_CASE("submissions that cannot start are not gradable", "[python]") {
  auto start = [](const std::string& file) {
    const Launch l = prepare_submission(file, f3_launch());
    REQUIRE(l.status == Launch::Status::ready);
    ProcessSubject s(file, l.command);
    const auto why = s.start();
    REQUIRE(why);
    return *why + "\n" + s.stderr_tail();
  };
  CHECK_THAT(start(data("load_error.py")), Catch::Contains("SyntaxError"));
  CHECK_THAT(start(data("no_entry.py")),
             Catch::Contains("scaled_dot_product_attention()") && Catch::Contains("attention()"));
  CHECK_THAT(start(data("exit_immediately.sh")),
             Catch::Contains("exited with status 3 before saying hello") &&
                 Catch::Contains("about to exit"));
}

TEST_CASE("an executable that answers junk gets faults, then a fresh process", "[python]") {
  auto s = started(data("speaks_junk.sh"));
  const auto o = s->run(textbook(false));
  REQUIRE(o.kind == Kind::fault);
  CHECK_THAT(o.message, Catch::Contains("malformed reply") && Catch::Contains("not JSON"));
  CHECK(s->run(textbook(false)).kind == Kind::fault);
  CHECK(s->restarts() == 1);
}

TEST_CASE("files of no known kind and missing files are usage errors", "[python]") {
  CHECK(prepare_submission(data("does_not_exist.py"), {}).status == Launch::Status::usage_error);
  CHECK(prepare_submission(std::string(ATTNLAB_GRADER_TEST_DATA) + "/../CMakeLists.txt", {})
            .status == Launch::Status::usage_error);
  LaunchOptions no_numpy = f3_launch();
  no_numpy.python = data("python_without_numpy.sh");
  const Launch l = prepare_submission(source("solutions/F3/attention.py"), no_numpy);
  CHECK(l.status == Launch::Status::infrastructure_error);
  CHECK_THAT(l.message, Catch::Contains("python3-numpy"));
}
