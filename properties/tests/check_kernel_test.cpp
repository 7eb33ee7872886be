// check_kernel, kernel_subject, check_kernel_main and the JUnit writer:
// a correct kernel passes, wrong ones fail and say so, a kernel's exception
// is a refusal, and the exit codes and JUnit file are as documented.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "attn/attn.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/check_kernel.hpp"
#include "attn/prop/junit.hpp"
#include "attn/prop/kernel_subject.hpp"

using namespace attn::prop;

namespace {

/// The library's attention (O and A), as a user would wrap it.
KernelSubject library_kernel() {
  return kernel_subject<double>("attn::attention", [](const auto& Q, const auto& K, const auto& V,
                                                      const auto& mask) {
    return attn::attention<double>(Q, K, V, mask);
  });
}

/// O only, in float, taking column-major Eigen matrices (as a user's kernel may).
Eigen::MatrixXf o_only(const Eigen::MatrixXf& Q, const Eigen::MatrixXf& K, const Eigen::MatrixXf& V,
                       const std::optional<attn::Mask>& mask) {
  return attn::attention<float>(Q, K, V, mask).O;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("attnlab-check-kernel-test-" + name);
}

}  // namespace

TEST_CASE("check_kernel passes the library's attention and writes one testcase per property") {
  KernelSubject kernel = library_kernel();
  REQUIRE(kernel.returns_weights());
  std::ostringstream out;
  CheckOptions o;
  o.cases = 10;
  o.out = &out;
  o.junit_path = temp_file("pass.xml").string();
  REQUIRE(check_kernel(kernel, o) == 0);
  CHECK(out.str().find("[PASS] oracle_agreement") != std::string::npos);
  CHECK(out.str().find("10 cases each") != std::string::npos);
  // Every property of the catalogue's kernel list ran and passed.
  const std::string all = std::to_string(attn::prop::kernel_properties().size());
  CHECK(out.str().find(all + " passed, 0 failed, 0 skipped") != std::string::npos);

  pugi::xml_document doc;
  REQUIRE(doc.load_file(o.junit_path.c_str()));
  const auto suite = doc.child("testsuites").child("testsuite");
  CHECK(std::string(suite.attribute("tests").value()) == all);
  CHECK(std::string(suite.attribute("failures").value()) == "0");
  std::vector<std::string> names;
  for (auto tc : suite.children("testcase")) names.push_back(tc.attribute("name").value());
  CHECK(names.front() == "textbook_example");
  CHECK(std::find(names.begin(), names.end(), "shape_mismatch_refused") != names.end());
  std::filesystem::remove(o.junit_path);
}

TEST_CASE("check_kernel fails a kernel that forgets the 1/sqrt(d_k) scale, in report and JUnit") {
  KernelSubject kernel = kernel_subject<double>(
      "unscaled", [](const auto& Q, const auto& K, const auto& V, const auto& mask) {
        const double root = std::sqrt(double(Q.cols()));
        return attn::attention<double>(Q * root, K, V, mask);
      });
  std::ostringstream out;
  CheckOptions o;
  o.cases = 20;
  o.out = &out;
  o.property = "oracle_agreement";
  o.junit_path = temp_file("fail.xml").string();
  REQUIRE(check_kernel(kernel, o) == 1);
  CHECK(out.str().find("[FAIL] oracle_agreement") != std::string::npos);
  CHECK(out.str().find("replay with --seed") != std::string::npos);
  pugi::xml_document doc;
  REQUIRE(doc.load_file(o.junit_path.c_str()));
  const auto suite = doc.child("testsuites").child("testsuite");
  CHECK(std::string(suite.attribute("tests").value()) == "1");
  CHECK(std::string(suite.attribute("failures").value()) == "1");
  CHECK(suite.child("testcase").child("failure"));
  std::filesystem::remove(o.junit_path);
}

TEST_CASE("kernel_subject: an O-only float kernel skips the properties about A") {
  KernelSubject kernel = kernel_subject<float>("o_only", o_only);
  CHECK(kernel.precision().name == Precision::of_float().name);
  CHECK_FALSE(kernel.returns_weights());
  std::ostringstream out;
  CheckOptions o;
  o.cases = 5;
  o.out = &out;
  REQUIRE(check_kernel(kernel, o) == 0);
  CHECK(out.str().find("[SKIP] row_stochastic") != std::string::npos);
  CHECK(out.str().find("[SKIP] exact_zeros") != std::string::npos);
  // The catalogue's properties about A are skipped, the others pass.
  const auto every = attn::prop::kernel_properties();
  const auto about_a = std::count_if(every.begin(), every.end(),
                                     [](const attn::prop::Property& p) { return p.needs_weights; });
  REQUIRE(about_a > 0);
  const std::string tally = std::to_string(every.size() - std::size_t(about_a)) + " passed, 0 failed, " +
                            std::to_string(about_a) + " skipped";
  CHECK(out.str().find(tally) != std::string::npos);
}

TEST_CASE("kernel_subject: what the kernel throws is a refusal with its type") {
  KernelSubject kernel = kernel_subject<double>(
      "thrower", Precision::of_double(),
      [](const auto&, const auto&, const auto&, const auto&) -> attn::Matrix<double> {
        throw std::out_of_range("no such row");
      });
  Case c;
  c.Q = DMatrix::Ones(1, 1);
  c.K = DMatrix::Ones(1, 1);
  c.V = DMatrix::Ones(1, 1);
  const Outcome r = kernel.run(c);
  CHECK(r.kind == Outcome::Kind::refusal);
  CHECK(r.error_type == "std::out_of_range");
  CHECK(r.message == "no such row");
  // Refusing everything fails the properties that need an answer.
  std::ostringstream out;
  CheckOptions o;
  o.cases = 5;
  o.out = &out;
  CHECK(check_kernel(kernel, o) == 1);
}

TEST_CASE("check_kernel: an unknown property is a usage error naming the ones that apply") {
  KernelSubject kernel = library_kernel();
  std::ostringstream out;
  CheckOptions o;
  o.out = &out;
  o.property = "no_such_property";
  CHECK(check_kernel(kernel, o) == 2);
  CHECK(out.str().find("no property 'no_such_property'") != std::string::npos);
  CHECK(out.str().find("oracle_agreement") != std::string::npos);
}

TEST_CASE("check_kernel_main: --list, --property, the skip code, usage errors") {
  KernelSubject weights = library_kernel();
  KernelSubject o_only_kernel = kernel_subject<float>("o_only", o_only);
  {
    std::ostringstream captured;
    std::streambuf* saved = std::cout.rdbuf(captured.rdbuf());
    const char* argv[] = {"check", "--list"};
    const int rc = check_kernel_main(2, argv, weights);
    std::cout.rdbuf(saved);
    CHECK(rc == 0);
    std::vector<std::string> ids;
    std::istringstream in(captured.str());
    for (std::string line; std::getline(in, line);) ids.push_back(line);
    std::vector<std::string> expected;
    for (const Property& p : kernel_properties()) expected.push_back(p.id);
    CHECK(ids == expected);
  }
  std::ostringstream sink;
  std::streambuf* saved = std::cout.rdbuf(sink.rdbuf());
  const char* one[] = {"check", "--property", "score_shape", "--cases", "5", "--seed", "7"};
  CHECK(check_kernel_main(7, one, weights) == 0);
  const char* skipped[] = {"check", "--property", "exact_zeros"};
  CHECK(check_kernel_main(3, skipped, o_only_kernel) == 77);
  const char* bad[] = {"check", "--cases", "0"};
  CHECK(check_kernel_main(3, bad, weights) == 2);
  const char* unknown[] = {"check", "--frobnicate"};
  CHECK(check_kernel_main(2, unknown, weights) == 2);
  std::cout.rdbuf(saved);
  CHECK(sink.str().find("seed 7") != std::string::npos);
}

TEST_CASE("junit_xml: counts, order of elements, XML-safe text") {
  JunitSuite s;
  s.name = "suite";
  JunitTestcase pass, fail, skip;
  pass.name = "a";
  fail.name = "b";
  fail.status = JunitTestcase::Status::failure;
  fail.message = "bad\x01value";
  fail.text = "details";
  fail.system_out = "points: 0 / 1";
  skip.name = "c";
  skip.status = JunitTestcase::Status::skipped;
  s.cases = {pass, fail, skip};
  const std::string xml = junit_xml({s});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(xml.c_str()));
  const auto root = doc.child("testsuites");
  CHECK(std::string(root.attribute("tests").value()) == "3");
  CHECK(std::string(root.attribute("failures").value()) == "1");
  CHECK(std::string(root.attribute("skipped").value()) == "1");
  const auto b = root.child("testsuite").find_child_by_attribute("testcase", "name", "b");
  CHECK(std::string(b.first_child().name()) == "failure");
  CHECK(std::string(b.last_child().name()) == "system-out");
  CHECK(std::string(b.child("failure").attribute("message").value()) == "bad\\x01value");
}

TEST_CASE("check_kernel holds a kernel to its documented answer for a fully forbidden row") {
  // The library's attention, but a row with every key forbidden gives zeros
  // (flash-attention's convention) instead of an error.
  KernelSubject zeros = kernel_subject<double>(
      "zeros for a fully forbidden row",
      [](const auto& Q, const auto& K, const auto& V, const std::optional<attn::Mask>& mask) {
        if (!mask) return attn::attention<double>(Q, K, V, mask);
        attn::Mask m = *mask;
        std::vector<attn::Index> empty;
        for (attn::Index i = 0; i < m.rows(); ++i)
          if (m.row(i).all()) {
            empty.push_back(i);
            m.row(i).setConstant(false);
          }
        auto r = attn::attention<double>(Q, K, V, m);
        for (const attn::Index i : empty) {
          r.O.row(i).setZero();
          r.A.row(i).setZero();
        }
        return r;
      });
  std::ostringstream out;
  CheckOptions o;
  o.cases = 30;
  o.out = &out;
  o.property = "fully_forbidden_refused";
  CHECK(check_kernel(zeros, o) == 1);  // the text's rule: an error
  o.fully_forbidden = FullyForbidden::zeros;
  o.property = "fully_forbidden_zeros";
  CHECK(check_kernel(zeros, o) == 0);
  o.fully_forbidden = FullyForbidden::nan;
  o.property = "fully_forbidden_nan";
  CHECK(check_kernel(zeros, o) == 1);
}
