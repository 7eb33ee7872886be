// (b) correct implementations get no key; (c) faults are faults.
#include <catch2/catch.hpp>

#include "attn/mis/diagnose.hpp"
#include "attn/prop/lib_subject.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {
const Operation kOps[] = {Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
                          Operation::attention_tiled, Operation::multi_head_attention,
                          Operation::causal_mask, Operation::padding_mask};
}

TEST_CASE("the library in double and float gets no key", "[clean]") {
  for (Operation op : kOps) {
    DYNAMIC_SECTION(attn::prop::operation_name(op)) {
      attn::prop::LibSubject<double> d;
      attn::prop::LibSubject<float> f;
      for (attn::prop::Subject* s : {static_cast<attn::prop::Subject*>(&d), static_cast<attn::prop::Subject*>(&f)}) {
        // masked_softmax in lib takes the mask; softmax_rows cases carry none.
        const Diagnosis g = attn::mis::diagnose(*s, small_case(op), "oracle_agreement");
        INFO(s->name() << ": " << attn::mis::to_json(g));
        CHECK(g.verdict == Diagnosis::Verdict::consistent);
        CHECK(g.fits.empty());
      }
    }
  }
}

TEST_CASE("correct loops in double get no key", "[clean]") {
  for (Operation op : kOps) {
    DYNAMIC_SECTION(attn::prop::operation_name(op)) {
      FnSubject s("correct loops", op, correct_loops(op));
      const Diagnosis g = attn::mis::diagnose(s, small_case(op), "oracle_agreement");
      INFO(attn::mis::to_json(g));
      CHECK(g.verdict == Diagnosis::Verdict::consistent);
    }
  }
}

TEST_CASE("a fault subject gets the fault verdict, never a key", "[fault]") {
  FnSubject s("crashes", Operation::attention,
              [](const Case&) { return Outcome::make_fault("the submission exited with signal 11"); });
  const Diagnosis g = attn::mis::diagnose(s, small_case(Operation::attention), "row_stochastic");
  CHECK(g.verdict == Diagnosis::Verdict::fault);
  CHECK(g.fits.empty());
  CHECK(g.cases_sent == 1);
}

TEST_CASE("AttributeError on every call is 'raises on every call', never inverted_mask", "[fault]") {
  FnSubject s("typo", Operation::masked_softmax, [](const Case&) {
    return Outcome::make_refusal("AttributeError", "'numpy.ndarray' object has no attribute 'maxx'");
  });
  const Diagnosis g = attn::mis::diagnose(s, small_case(Operation::masked_softmax),
                                          "fully_forbidden_refused");
  INFO(attn::mis::to_json(g));
  CHECK(g.verdict == Diagnosis::Verdict::raises_on_every_call);
  CHECK(g.error_type == "AttributeError");
  CHECK(g.fits.empty());
}

TEST_CASE("a float32-declared correct subject gets no key", "[clean]") {
  attn::prop::LibSubject<float> f;
  const Diagnosis g = attn::mis::diagnose(f, small_case(Operation::attention), "oracle_agreement");
  CHECK(g.verdict == Diagnosis::Verdict::consistent);
}
