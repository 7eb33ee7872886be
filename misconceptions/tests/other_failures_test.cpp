// (g) Another failure's counterexample as evidence (Options::other_failures):
// a model is contradicted there only where it makes a determined claim that
// the answers contradict. A refused valid input, or an input the model says
// nothing about (past float32's range), is evidence about the refusal only:
// a value mistake whose refusals are the definition's makes no claim on it.
// The subjects are plain loops (subjects.cpp, or written here), not models.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <limits>
#include <string>

#include "attn/mis/diagnose.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {

KeyedSubject keyed(const std::string& key) {
  for (const KeyedSubject& k : keyed_subjects())
    if (k.key == key) return k;
  FAIL("no keyed subject " << key);
  return {};
}

bool named_alone(const Diagnosis& d, const std::string& key) {
  return d.verdict == Diagnosis::Verdict::misconception && d.fits.size() == 1 && d.fits[0].key == key;
}

}  // namespace

TEST_CASE("a refused valid input of another failure does not contradict a value mistake",
          "[other_failures]") {
  // exercises/mutants/f2_inverted_mask.py: no mask is taken as all False,
  // which the inverted reading makes all forbidden, so a valid case without a
  // mask is refused (textbook_example's counterexample).
  FnSubject s("inverted, no mask refused", Operation::masked_softmax, [](const Case& c) {
    const KeyedSubject k = keyed("inverted_mask");
    if (c.mask) return k.run(c);
    throw std::invalid_argument("a row has every key forbidden");
  });
  Case no_mask;
  no_mask.op = Operation::masked_softmax;
  no_mask.S = DMatrix(2, 3);
  no_mask.S << 0, 2, 1, 1, -1, 0;
  REQUIRE(s.run(no_mask).kind == Outcome::Kind::refusal);
  const Case c = small_case(Operation::masked_softmax);
  attn::mis::Options options;
  options.other_failures = {no_mask};
  const Diagnosis d = attn::mis::diagnose(s, c, "exact_zeros", options);
  INFO(attn::mis::to_json(d));
  CHECK(named_alone(d, "inverted_mask"));
  // The refusal itself is still the refusal's evidence: diagnosed on its
  // own, no value mistake reproduces it.
  const Diagnosis own = attn::mis::diagnose(s, no_mask, "textbook_example", {});
  INFO(attn::mis::to_json(own));
  CHECK_FALSE(named_alone(own, "inverted_mask"));
}

TEST_CASE("another failure's input past float32's range does not contradict low_precision",
          "[other_failures]") {
  const KeyedSubject k = keyed("low_precision");
  FnSubject s("float32 loops", k.op, k.run, k.precision);
  // score_shape's shrunk counterexample for float32 code declaring float64:
  // allowed logits at the lowest double become -inf in float32, the row is
  // left with no allowed key and the code refuses a valid input. The
  // float32 model makes no claim on an input its type cannot hold.
  const double lowest = std::numeric_limits<double>::lowest();
  const Case past = two_allowed_one_forbidden(lowest);
  REQUIRE(s.run(past).kind == Outcome::Kind::refusal);
  attn::mis::Options options;
  options.other_failures = {past};
  const Diagnosis d = attn::mis::diagnose(s, small_case(Operation::attention), "oracle_agreement", options);
  INFO(attn::mis::to_json(d));
  CHECK(named_alone(d, "low_precision"));
}

TEST_CASE("a name another failure's battery answers contradict is withdrawn, naming that failure",
          "[other_failures]") {
  const KeyedSubject k = keyed("wrong_scale");
  FnSubject wrong("wrong scale", k.op, k.run);
  Diagnosis d = attn::mis::diagnose(wrong, small_case(Operation::attention), "scale_off");
  INFO(attn::mis::to_json(d));
  REQUIRE(named_alone(d, "wrong_scale"));
  // Another failure's battery of the same mistake leaves the name.
  const Diagnosis same = attn::mis::diagnose(wrong, small_case(Operation::attention), "textbook_example");
  Diagnosis kept = d;
  CHECK_FALSE(attn::mis::withdraw_contradicted(kept, {&d, &same}, wrong, attn::mis::Language::numpy));
  CHECK(named_alone(kept, "wrong_scale"));
  CHECK(kept.withdrawn.empty());
  // A battery answered as the definition answers (a kernel whose mistake
  // shows on one failure's cases only would give such a report)
  // contradicts it: the name is withdrawn and the report says whose answers.
  FnSubject right("correct loops", Operation::attention, correct_loops(Operation::attention));
  const Diagnosis other = attn::mis::diagnose(right, small_case(Operation::attention), "oracle_agreement");
  REQUIRE(other.verdict == Diagnosis::Verdict::consistent);
  REQUIRE(other.answers.size() == other.battery.cases.size());
  CHECK(attn::mis::withdraw_contradicted(d, {&same, &other}, wrong, attn::mis::Language::numpy));
  CHECK(d.verdict == Diagnosis::Verdict::no_known_mistake);
  CHECK(d.fits.empty());
  REQUIRE(d.withdrawn.size() == 1);
  CHECK(d.withdrawn[0].first.rfind("wrong_scale", 0) == 0);
  CHECK(d.withdrawn[0].second == "oracle_agreement");
  CHECK(d.explanation.find("not the answers to the cases sent for oracle_agreement") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(attn::mis::to_json(d));
  REQUIRE(j.at("withdrawn").size() == 1);
  CHECK(j.at("withdrawn")[0].at("name") == d.withdrawn[0].first);
  CHECK(j.at("withdrawn")[0].at("ruled_out_by") == "oracle_agreement");
}
