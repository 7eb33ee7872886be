// batched_attention (batched.hpp): the (n, h) slices, the kv head of a query
// head, the broadcast mask and the shape checks; and the operation's kernel
// properties on in-process kernels: a correct one (per head: logits
// scale Q K^T, the library's masked_softmax, A V) passes every one, and each
// kernel with one mistake fails the property about it.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "attn/masked_softmax.hpp"
#include "attn/prop/batched.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/property.hpp"

using namespace attn::prop;
using attn::Index;

namespace {

Case two_by_two() {
  Case c;
  c.op = Operation::batched_attention;
  c.batched.Q = {1, 4, 3, 2};
  c.batched.K = {1, 2, 2, 2};
  c.batched.V = {1, 2, 2, 1};
  c.Q = DMatrix::Ones(12, 2);
  c.K = DMatrix::Ones(4, 2);
  c.V = DMatrix::Ones(4, 1);
  return c;
}

/// Grouped-query attention computed head by head in double; `mistake`
/// injects one error: "modulo" (kv head h % H_kv), "top_left" (always the
/// top-left causal mask), "no_scale" (1/sqrt(d_k) whatever is asked).
class BatchedKernel : public Subject {
 public:
  explicit BatchedKernel(std::string mistake = "") : mistake_(std::move(mistake)) {}
  std::string name() const override { return "batched kernel " + mistake_; }
  Precision precision() const override { return Precision::of_double(); }
  bool supports(Operation op) const override { return op == Operation::batched_attention; }
  Outcome run(const Case& c) override {
    if (auto why = batched_shape_problem(c)) return Outcome::make_refusal("ValueError", *why);
    const auto& b = c.batched;
    Case read = c;
    if (mistake_ == "top_left") read.batched.bottom_right = false;
    const Shape4 out = batched_output_shape(c);
    DMatrix O = stacked_zeros(out);
    try {
      for (Index n = 0; n < out[0]; ++n)
        for (Index h = 0; h < out[1]; ++h) {
          HeadSlice s = batched_head(read, n, h);
          if (mistake_ == "modulo") {
            s.K = tensor_slice(c.K, b.K, n, h % b.K[1]);
            s.V = tensor_slice(c.V, b.V, n, h % b.K[1]);
          }
          const double scale = b.scale && mistake_ != "no_scale" ? *b.scale
                                                                 : 1 / std::sqrt(double(b.Q[3]));
          const DMatrix S = s.Q * s.K.transpose() * scale;
          const attn::Mask none = attn::Mask::Constant(S.rows(), S.cols(), false);
          const DMatrix A = attn::masked_softmax<double>(S, s.mask ? *s.mask : none);
          set_tensor_slice(O, out, n, h, A * s.V);
        }
    } catch (const std::exception& e) {
      return Outcome::make_refusal("FullyMaskedRowError", e.what());
    }
    return Outcome::make_result(O, DMatrix());
  }

 private:
  std::string mistake_;
};

Verdict run(const std::string& id, Subject& s) {
  for (const Property& p : kernel_properties_for(Operation::batched_attention)) {
    if (p.id != id) continue;
    RunConfig cfg;
    cfg.cases = 40;
    return run_property(p, s, cfg);
  }
  FAIL("no property " << id);
  return {};
}

}  // namespace

TEST_CASE("batched: consecutive query heads share a kv head", "[batched]") {
  // H = 6, H_kv = 2: heads 0-2 use kv head 0, heads 3-5 kv head 1 (np.repeat's order).
  for (Index h = 0; h < 6; ++h) CHECK(kv_head_of(h, 6, 2) == h / 3);
  CHECK(kv_head_of(5, 6, 1) == 0);
  CHECK(kv_head_of(5, 6, 6) == 5);
}

TEST_CASE("batched: shapes that do not fit are named", "[batched]") {
  Case c = two_by_two();
  CHECK_FALSE(batched_shape_problem(c));
  Case three = c;
  three.batched.K[1] = three.batched.V[1] = 3;
  REQUIRE(batched_shape_problem(three));
  CHECK(batched_shape_problem(three)->find("H_kv = 3 (K, V) does not divide H = 4") != std::string::npos);
  Case dk = c;
  dk.batched.K[3] = 3;
  REQUIRE(batched_shape_problem(dk));
  CHECK(batched_shape_problem(dk)->find("d_k") != std::string::npos);
  Case mask = c;
  mask.batched.mask_dims = {1, 2, 3, 2};  // H_kv heads where H = 4 (or 1) broadcasts
  REQUIRE(batched_shape_problem(mask));
  CHECK(batched_shape_problem(mask)->find("neither 1 nor H = 4") != std::string::npos);
  mask.batched.mask_dims = {1, 1, 3, 2};
  CHECK_FALSE(batched_shape_problem(mask));
  mask.batched.mask_dims = {3};
  CHECK(batched_shape_problem(mask));
}

TEST_CASE("batched: a (N, 1, 1, T_v) mask pads keys per sequence, for every head and query",
          "[batched]") {
  Case c = two_by_two();
  c.batched.Q[0] = c.batched.K[0] = c.batched.V[0] = 2;
  c.batched.mask_dims = {2, 1, 1, 2};
  attn::Mask m(2, 2);
  m << false, true,  // sequence 0: key 1 is padding
      false, false;  // sequence 1: none
  c.mask = m;
  for (Index h = 0; h < 4; ++h)
    for (Index i = 0; i < 3; ++i) {
      CHECK(mask_forbids(c, 0, h, i, 1));
      CHECK_FALSE(mask_forbids(c, 0, h, i, 0));
      CHECK_FALSE(mask_forbids(c, 1, h, i, 1));
    }
}

TEST_CASE("batched: bottom-right causal with T_q > T_v leaves the first T_q - T_v rows without a key",
          "[batched]") {
  Case c = two_by_two();  // T_q = 3, T_v = 2
  c.batched.causal = true;
  c.batched.bottom_right = true;
  const HeadSlice s = batched_head(c, 0, 1);
  REQUIRE(s.mask);
  CHECK(s.mask->row(0).all());                       // j > 0 + 2 - 3 for every key
  CHECK((*s.mask)(1, 0) == false);
  CHECK((*s.mask)(1, 1) == true);
  CHECK_FALSE(s.mask->row(2).any());
  c.batched.bottom_right = false;                    // top-left: j > i
  const HeadSlice t = batched_head(c, 0, 1);
  CHECK((*t.mask)(0, 0) == false);
  CHECK((*t.mask)(0, 1) == true);
  CHECK_FALSE(t.mask->row(2).any());
}

TEST_CASE("batched: a correct kernel passes every property", "[batched]") {
  BatchedKernel good;
  for (const Property& p : kernel_properties_for(Operation::batched_attention)) {
    RunConfig cfg;
    cfg.cases = 40;
    const Verdict v = run_property(p, good, cfg);
    INFO(p.id << ": " << (v.failure ? v.failure->summary : v.error));
    CHECK(v.passed());
  }
}

TEST_CASE("batched: each mistake fails its property, naming head and row", "[batched]") {
  struct Expectation {
    const char* mistake;
    const char* property;
    const char* fact;
  };
  for (const Expectation& e :
       {Expectation{"modulo", "kv_heads_grouped", "kv head h % H_kv"},
        Expectation{"top_left", "causal_alignment", "the top_left causal mask, where bottom_right was asked"},
        Expectation{"no_scale", "scale_honoured", "the given scale was ignored"}}) {
    BatchedKernel bad(e.mistake);
    const Verdict v = run(e.property, bad);
    INFO(e.mistake << " on " << e.property);
    REQUIRE_FALSE(v.passed());
    REQUIRE(v.failure);
    CHECK(v.failure->summary.find(e.fact) != std::string::npos);
    CHECK(v.failure->summary.find("query head h = ") != std::string::npos);
  }
}
