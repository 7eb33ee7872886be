// The storage/accumulation bound, two-sided (reference/TOLERANCE.md,
// "Storage and accumulation types"): emulated float16 and bfloat16 kernels
// that follow FlashAttention's scheme pass every property that applies; the
// same kernels accumulating in the 16-bit type, or skipping the max shift,
// are caught.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "attn/prop/catalog.hpp"
#include "attn/ref/number_format.hpp"
#include "attn/ref/error_bound.hpp"
#include "emulated_kernels.hpp"

using namespace attn::prop;
using attn::prop::testing::EmulatedFlaw;
using attn::prop::testing::EmulatedSubject;
using attn::ref::NumberFormat;

namespace {

/// The library's list for op, without textbook_example: that compares with
/// the text's printed 4 decimals at 1e-4, which no 16-bit kernel (about 3
/// significant digits) can be held to.
std::vector<Property> applicable(Operation op) {
  std::vector<Property> v;
  for (Property& p : library_properties(op))
    if (p.id != "textbook_example") v.push_back(std::move(p));
  return v;
}

std::string report_of(const Verdict& v) {
  std::ostringstream os;
  print_verdict(os, v);
  return os.str();
}

void check_passes_all(NumberFormat storage, Operation op) {
  EmulatedSubject s(storage);
  RunConfig cfg;
  cfg.cases = default_case_count();
  for (const Property& p : applicable(op)) {
    const Verdict v = run_property(p, s, cfg);
    INFO(s.name() << " " << operation_name(op) << ": " << report_of(v));
    CHECK(v.passed());
    CHECK(v.error.empty());
  }
}

/// True if some property of op's list fails the flawed kernel.
bool caught(NumberFormat storage, EmulatedFlaw flaw, Operation op, const std::string& only = "") {
  EmulatedSubject s(storage, flaw);
  RunConfig cfg;
  cfg.cases = default_case_count();
  for (const Property& p : applicable(op)) {
    if (!only.empty() && p.id != only) continue;
    const Verdict v = run_property(p, s, cfg);
    if (!v.passed()) {
      UNSCOPED_INFO(s.name() << " caught by " << report_of(v));
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("the declared precision: storage and accumulation types", "[precision]") {
  const Precision bf = Precision::of(NumberFormat::bfloat16);
  CHECK(bf.accumulate == NumberFormat::float32);
  CHECK(bf.name == "bfloat16 (accumulating in float32)");
  CHECK(Precision::of(NumberFormat::float16, NumberFormat::float16).name == "float16");
  CHECK(Precision::of(NumberFormat::float64).accumulate == NumberFormat::float64);
  CHECK_THROWS_AS(Precision::of(NumberFormat::bfloat16, NumberFormat::float16), std::invalid_argument);
  CHECK_THROWS_AS(Precision::of(NumberFormat::float32, NumberFormat::bfloat16), std::invalid_argument);
  CHECK(attn::ref::parse_format("bf16") == NumberFormat::bfloat16);
  CHECK(attn::ref::parse_format("half") == NumberFormat::float16);
  CHECK_FALSE(attn::ref::parse_format("float8").has_value());
  // The presets' models are the old ones, term for term.
  const auto f = Precision::of(NumberFormat::float32).model(), F = attn::ref::PrecisionModel::for_float();
  CHECK(f.unit_roundoff == F.unit_roundoff);
  CHECK(f.smallest_normal == F.smallest_normal);
  CHECK(f.storage_roundoff == 0);
  const auto m = bf.model();
  CHECK(m.unit_roundoff == 0x1p-24);
  CHECK(m.storage_roundoff == 0x1p-8);
  CHECK(m.storage_underflow == 0x1p-134);
  CHECK(Precision::of(NumberFormat::float16).model().storage_underflow == 0x1p-25);
}

TEST_CASE("the storage roundings widen the bound, and only with a narrower storage type", "[precision]") {
  // One row, logits 0 and -1 (Q = [1], K = [0; -1]), V = [1; 2].
  attn::ref::DMatrix Q(1, 1), K(2, 1), V(2, 1);
  Q << 1;
  K << 0, -1;
  V << 1, 2;
  const auto exact = attn::ref::exact_attention(Q, K, V, std::nullopt);
  const auto f32 = attn::ref::attention_error_bound(Q, K, V, exact, attn::ref::PrecisionModel::for_float());
  const auto bf = attn::ref::attention_error_bound(
      Q, K, V, exact, attn::ref::PrecisionModel::for_formats(NumberFormat::bfloat16, NumberFormat::float32));
  // The weights and outputs take about 3 and 2 bfloat16 roundings more (safety factor 2).
  CHECK(bf.A(0, 0) > 4 * 0x1p-8 * 0.7);
  CHECK(bf.A(0, 0) < 2 * 4 * 0x1p-8);
  CHECK(bf.O(0, 0) > f32.O(0, 0) + 2 * 0x1p-8);
  CHECK(bf.S(0, 0) == f32.S(0, 0));  // logits are in float32 either way
}

TEST_CASE("emulated bfloat16 attention passes every property", "[precision][bfloat16]") {
  check_passes_all(NumberFormat::bfloat16, Operation::attention);
}
TEST_CASE("emulated float16 attention passes every property", "[precision][float16]") {
  check_passes_all(NumberFormat::float16, Operation::attention);
}
TEST_CASE("emulated bfloat16 tiled attention passes every property", "[precision][bfloat16]") {
  check_passes_all(NumberFormat::bfloat16, Operation::attention_tiled);
}
TEST_CASE("emulated float16 tiled attention passes every property", "[precision][float16]") {
  check_passes_all(NumberFormat::float16, Operation::attention_tiled);
}
TEST_CASE("emulated bfloat16 and float16 softmax pass every property", "[precision]") {
  for (NumberFormat f : {NumberFormat::bfloat16, NumberFormat::float16}) {
    check_passes_all(f, Operation::masked_softmax);
    check_passes_all(f, Operation::softmax_rows);
  }
}

TEST_CASE("a kernel accumulating in bfloat16 or float16 while declaring float32 is caught",
          "[precision][mutants]") {
  for (NumberFormat f : {NumberFormat::bfloat16, NumberFormat::float16}) {
    INFO(attn::ref::format_name(f));
    CHECK(caught(f, EmulatedFlaw::accumulates_in_storage, Operation::attention, "oracle_agreement"));
    CHECK(caught(f, EmulatedFlaw::accumulates_in_storage, Operation::attention_tiled, "oracle_agreement"));
    CHECK(caught(f, EmulatedFlaw::accumulates_in_storage, Operation::masked_softmax, "oracle_agreement"));
  }
}

TEST_CASE("a 16-bit kernel that skips the max shift is caught", "[precision][mutants]") {
  for (NumberFormat f : {NumberFormat::bfloat16, NumberFormat::float16}) {
    INFO(attn::ref::format_name(f));
    CHECK(caught(f, EmulatedFlaw::no_max_shift, Operation::attention, "oracle_agreement"));
    CHECK(caught(f, EmulatedFlaw::no_max_shift, Operation::attention_tiled, "oracle_agreement"));
    CHECK(caught(f, EmulatedFlaw::no_max_shift, Operation::softmax_rows, "oracle_agreement"));
  }
}
