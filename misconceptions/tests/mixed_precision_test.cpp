// A kernel that stores in bfloat16 and declares float32 accumulation (as
// FlashAttention computes) but accumulates in bfloat16 is diagnosed
// low_precision(bfloat16); the correct emulated kernel is consistent with
// the definition in its declared precision (reference/TOLERANCE.md, "Storage
// and accumulation types").
#include <catch2/catch.hpp>

#include "attn/mis/diagnose.hpp"
#include "attn/prop/catalog.hpp"
#include "emulated_kernels.hpp"

using attn::prop::NumberFormat;
using attn::prop::Operation;
using attn::prop::testing::EmulatedFlaw;
using attn::prop::testing::EmulatedSubject;

TEST_CASE("accumulating in bfloat16 while declaring float32 accumulation is low_precision",
          "[keys][precision]") {
  EmulatedSubject s(NumberFormat::bfloat16, EmulatedFlaw::accumulates_in_storage);
  attn::prop::RunConfig cfg;
  cfg.cases = attn::prop::default_case_count();
  const attn::prop::Verdict v = attn::prop::run_property(attn::prop::oracle_agreement(), s, cfg);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  const attn::mis::Diagnosis d = attn::mis::diagnose(s, *v.counterexample, "oracle_agreement", {});
  INFO(attn::mis::to_json(d));
  REQUIRE(d.verdict == attn::mis::Diagnosis::Verdict::misconception);
  REQUIRE(d.fits.size() == 1);
  CHECK(d.fits[0].key == "low_precision");
  REQUIRE_FALSE(d.fits[0].params.empty());
  CHECK(d.fits[0].params[0].text == "bfloat16");
}

TEST_CASE("the correct emulated bfloat16 and float16 kernels fit the definition",
          "[clean][precision]") {
  for (NumberFormat f : {NumberFormat::bfloat16, NumberFormat::float16}) {
    EmulatedSubject s(f);
    // A small case with a real spread of logits.
    attn::prop::Case c;
    c.op = Operation::attention;
    c.Q = attn::prop::DMatrix(2, 2);
    c.K = attn::prop::DMatrix(3, 2);
    c.V = attn::prop::DMatrix(3, 2);
    c.Q << 1, 2, -3, 0.5;
    c.K << 2, 1, 0, -1, 3, 3;
    c.V << 1, -2, 0.25, 4, -1, 1;
    const attn::mis::Diagnosis d = attn::mis::diagnose(s, c, "oracle_agreement", {});
    INFO(attn::mis::to_json(d));
    CHECK(d.verdict == attn::mis::Diagnosis::Verdict::consistent);
  }
}
