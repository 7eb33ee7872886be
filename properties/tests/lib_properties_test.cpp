// The whole property list on the library itself, in float and double, for
// every operation. ATTNLAB_CASES_SCALE scales the number of cases (100 for
// a deep run).
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/lib_subject.hpp"

using namespace attn::prop;

namespace {

template <class T>
void check_all_properties(Operation op) {
  LibSubject<T> subject;
  RunConfig cfg;
  cfg.cases = default_case_count();
  for (const Property& p : library_properties(op)) {
    const Verdict v = run_property(p, subject, cfg);
    std::ostringstream report;
    print_verdict(report, v);
    print_regimes(report, v);
    INFO(report.str());
    CHECK(v.passed());
    CHECK(v.error.empty());
    CHECK(v.cases > 0);
    std::cout << operation_name(op) << " <" << subject.precision().name << "> " << report.str();
  }
}

}  // namespace

TEST_CASE("every property holds for attn::attention in double", "[properties][double]") {
  check_all_properties<double>(Operation::attention);
}
TEST_CASE("every property holds for attn::attention in float", "[properties][float]") {
  check_all_properties<float>(Operation::attention);
}
TEST_CASE("every property holds for attn::attention_tiled in double", "[properties][double]") {
  check_all_properties<double>(Operation::attention_tiled);
}
TEST_CASE("every property holds for attn::attention_tiled in float", "[properties][float]") {
  check_all_properties<float>(Operation::attention_tiled);
}
TEST_CASE("every property holds for attn::masked_softmax in double", "[properties][double]") {
  check_all_properties<double>(Operation::masked_softmax);
}
TEST_CASE("every property holds for attn::masked_softmax in float", "[properties][float]") {
  check_all_properties<float>(Operation::masked_softmax);
}
TEST_CASE("every property holds for attn::softmax_rows in double", "[properties][double]") {
  check_all_properties<double>(Operation::softmax_rows);
}
TEST_CASE("every property holds for attn::softmax_rows in float", "[properties][float]") {
  check_all_properties<float>(Operation::softmax_rows);
}

template <class T>
void check_multi_head_properties() {
  LibSubject<T> subject;
  RunConfig cfg;
  cfg.cases = default_case_count();
  for (const Property& p : multi_head_properties("FullyMaskedRowError")) {
    const Verdict v = run_property(p, subject, cfg);
    std::ostringstream report;
    print_verdict(report, v);
    print_regimes(report, v);
    INFO(report.str());
    CHECK(v.passed());
    CHECK(v.error.empty());
    CHECK(v.cases > 0);
  }
}

TEST_CASE("every multi-head property holds for attn::multi_head_attention in double",
          "[properties][double]") {
  check_multi_head_properties<double>();
}
TEST_CASE("every multi-head property holds for attn::multi_head_attention in float",
          "[properties][float]") {
  check_multi_head_properties<float>();
}

TEST_CASE("attn::causal_mask and attn::padding_mask match their definitions", "[properties]") {
  LibSubject<double> subject;
  RunConfig cfg;
  cfg.cases = default_case_count();
  for (const Property& p : {causal_mask_matches_definition(), padding_mask_matches_definition()}) {
    const Verdict v = run_property(p, subject, cfg);
    std::ostringstream report;
    print_verdict(report, v);
    print_regimes(report, v);
    INFO(report.str());
    CHECK(v.passed());
    CHECK(v.cases > 0);
    // Both alignments, and padding with and without padded keys, are reached.
    for (const char* tag : {"shape: T_q != T_v", "shape: T_q == T_v"}) CHECK(v.regimes.count(tag) == 1);
  }
}

TEST_CASE("the generators reach every regime", "[properties][generators]") {
  LibSubject<double> subject;
  RunConfig cfg;
  cfg.cases = 300;
  const Verdict v = run_property(oracle_agreement(), subject, cfg);
  REQUIRE(v.passed());
  for (const char* tag : {"shape: T_q != T_v", "shape: d_k = 1", "values: large logits (beyond exp's range unshifted)",
                          "values: rows of very different scale", "values: zero Q (uniform weights)",
                          "values: tied keys (equal logits)", "mask: causal", "mask: padding",
                          "mask: random", "mask: none"}) {
    INFO(tag);
    CHECK(v.regimes.count(tag) == 1);
  }
}
