// (a) Every key: an independently written subject with that bug is
// diagnosed as exactly that key.
#include <catch2/catch.hpp>
#include <iostream>
#include <set>

#include "attn/mis/catalogue.hpp"
#include "attn/mis/diagnose.hpp"
#include "subjects.hpp"

using namespace mis_test;

TEST_CASE("each key's independent subject is diagnosed as that key", "[keys]") {
  for (const KeyedSubject& k : keyed_subjects()) {
    DYNAMIC_SECTION(k.key) {
      FnSubject s(k.key, k.op, k.run, k.precision);
      const attn::mis::Diagnosis d =
          attn::mis::diagnose(s, small_case(k.op), "oracle_agreement", {});
      INFO(attn::mis::to_json(d));
      REQUIRE(d.verdict == attn::mis::Diagnosis::Verdict::misconception);
      REQUIRE(d.fits.size() == 1);
      CHECK(d.fits[0].key == k.key);
    }
  }
}

TEST_CASE("every catalogue key has a subject in the key test", "[keys]") {
  std::set<std::string> tested;
  for (const KeyedSubject& k : keyed_subjects()) tested.insert(k.key);
  tested.insert("inverted_mask");
  std::vector<std::string> missing;
  // The backward pass's keys are judged in backward_test.cpp and, one
  // mutant each, by grader/tests/backward_mutants_run.py --keys.
  for (const auto& f : attn::mis::catalogue())
    if (!tested.count(f.key) && !f.applies_to(attn::prop::Operation::attention_backward))
      missing.push_back(f.key);
  INFO("keys without a subject: " << missing.size());
  for (const auto& m : missing) UNSCOPED_INFO(m);
  CHECK(missing.empty());
}
