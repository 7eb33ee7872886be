// MemoSubject (attn/prop/memo_subject.hpp): a case asked before is answered
// from the memo with exactly the first answer; a case differing from every
// earlier one in any input the subject reads (one entry by one ulp, the sign
// of a zero, one mask entry, the tiles, the batched scale, causal flag or
// alignment) reaches the submission; faults reach it every time.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "attn/prop/memo_subject.hpp"

using namespace attn;
using namespace attn::prop;

namespace {

/// Answers O = Q scaled by the number of calls so far, so a memo hit is told
/// from a fresh call by its value; a case whose Q(0, 0) is 7 is refused, 9 a
/// fault.
class CountingSubject : public Subject {
 public:
  std::string name() const override { return "counting"; }
  Precision precision() const override { return Precision{}; }
  bool supports(Operation) const override { return true; }
  Outcome run(const Case& c) override {
    ++calls;
    if (c.Q.size() > 0 && c.Q(0, 0) == 7) return Outcome::make_refusal("ValueError", "seven");
    if (c.Q.size() > 0 && c.Q(0, 0) == 9) return Outcome::make_fault("nine");
    return Outcome::make_result(c.Q * double(calls), DMatrix::Zero(c.Q.rows(), c.K.rows()));
  }
  int calls = 0;
};

Case small_case() {
  Case c;
  c.Q = DMatrix::Constant(2, 3, 0.5);
  c.K = DMatrix::Constant(4, 3, -0.25);
  c.V = DMatrix::Constant(4, 2, 1.0);
  c.mask = Mask::Zero(2, 4);
  return c;
}

}  // namespace

TEST_CASE("memo subject: a case asked again is answered from the memo, as first answered") {
  CountingSubject inner;
  MemoSubject memo(inner);
  const Case c = small_case();
  const Outcome first = memo.run(c);
  Case again = small_case();
  again.params = {1.0, 2.0};  // knobs and tags are not inputs
  again.tags = {"large logits"};
  const Outcome second = memo.run(again);
  CHECK(inner.calls == 1);
  CHECK(memo.asked() == 1);
  CHECK(memo.reused() == 1);
  REQUIRE(second.kind == Outcome::Kind::result);
  CHECK(second.O == first.O);
}

TEST_CASE("memo subject: a case differing in any input reaches the submission") {
  const std::vector<std::pair<std::string, std::function<void(Case&)>>> changes = {
      {"one ulp of K", [](Case& c) { c.K(3, 2) = std::nextafter(c.K(3, 2), 1.0); }},
      {"the sign of a zero in V", [](Case& c) { c.V(0, 0) = 0.0; }},
      {"one mask entry", [](Case& c) { (*c.mask)(1, 3) = true; }},
      {"no mask", [](Case& c) { c.mask.reset(); }},
      {"the tiles", [](Case& c) { c.tile_q = 1; }},
      {"the operation", [](Case& c) { c.op = Operation::attention_tiled; }},
      {"the batched scale", [](Case& c) { c.batched.scale = 0.5; }},
      {"the causal flag", [](Case& c) { c.batched.causal = true; }},
      {"the mask shape to build", [](Case& c) { c.mask_shape.key_length = 2; }},
  };
  for (const auto& [what, change] : changes) {
    CAPTURE(what);
    CountingSubject inner;
    MemoSubject memo(inner);
    Case base = small_case();
    if (what == "the sign of a zero in V") base.V(0, 0) = -0.0;
    memo.run(base);
    Case other = base;
    change(other);
    memo.run(other);
    CHECK(inner.calls == 2);
    CHECK(case_key(other) != case_key(base));
  }
  Case tl = small_case(), br = small_case();
  tl.batched.causal = br.batched.causal = true;
  br.batched.bottom_right = true;
  CHECK(case_key(tl) != case_key(br));
}

TEST_CASE("memo subject: refusals are remembered, faults are asked again") {
  CountingSubject inner;
  MemoSubject memo(inner);
  Case refused = small_case();
  refused.Q(0, 0) = 7;
  CHECK(memo.run(refused).kind == Outcome::Kind::refusal);
  const Outcome again = memo.run(refused);
  CHECK(again.kind == Outcome::Kind::refusal);
  CHECK(again.message == "seven");
  CHECK(inner.calls == 1);
  Case faulty = small_case();
  faulty.Q(0, 0) = 9;
  CHECK(memo.run(faulty).kind == Outcome::Kind::fault);
  CHECK(memo.run(faulty).kind == Outcome::Kind::fault);
  CHECK(inner.calls == 3);
}
