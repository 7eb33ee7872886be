// The backward pass's models (src/backward_models.hpp) and their diagnosis:
// each mistake departs from the definition on the battery by far more than
// its tolerance; without the mistake a model equals the 50-digit oracle
// within the a-priori bound; a correct backward is named nothing; a
// backward written here with plain loops and one mistake is named by its
// key; the battery keeps the forward's cost limits.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "attn/mis/catalogue.hpp"
#include "attn/mis/diagnose.hpp"
#include "attn/prop/lib_subject.hpp"
#include "attn/ref/backward_bound.hpp"
#include "attn/ref/oracle_backward.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {

/// The largest |a - b| / tol over dQ, dK, dV (finite entries; +inf where
/// one is finite and the other not), the tolerance the larger of the two.
double worst_ratio(const attn::mis::Prediction& a, const attn::mis::Prediction& b) {
  const DMatrix* x[] = {&a.answer.dQ, &a.answer.dK, &a.answer.dV};
  const DMatrix* y[] = {&b.answer.dQ, &b.answer.dK, &b.answer.dV};
  // A narrower accumulation is judged at the declared precision's tolerance.
  const DMatrix* t[] = {&a.tol_dQ, &a.tol_dK, a.separation_tol_dV.size() ? &a.separation_tol_dV : &a.tol_dV};
  const DMatrix* s[] = {&b.tol_dQ, &b.tol_dK, b.separation_tol_dV.size() ? &b.separation_tol_dV : &b.tol_dV};
  double worst = 0;
  for (int g = 0; g < 3; ++g)
    for (Index i = 0; i < x[g]->size(); ++i) {
      const double p = x[g]->data()[i], q = y[g]->data()[i];
      if (std::isfinite(p) != std::isfinite(q)) return INFINITY;
      if (!std::isfinite(p)) continue;
      const double tol = std::max(t[g]->data()[i], s[g]->data()[i]);
      worst = std::max(worst, std::abs(p - q) / tol);
    }
  return worst;
}

bool masked_at(const Case& c, Index i, Index j) { return c.mask && (*c.mask)(i, j); }

/// dS, the gradients, with plain loops; `mistake` picks one.
Outcome loops_backward(const Case& c, const std::string& mistake) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  const double scale = 1.0 / std::sqrt(double(d_k));
  DMatrix P(T_q, T_v), dQ = DMatrix::Zero(T_q, d_k), dK = DMatrix::Zero(T_v, d_k),
                      dV = DMatrix::Zero(T_v, d_v);
  for (Index i = 0; i < T_q; ++i) {
    double m = -INFINITY;
    std::vector<double> s(std::size_t(T_v), 0.0);
    for (Index j = 0; j < T_v; ++j) {
      for (Index l = 0; l < d_k; ++l) s[std::size_t(j)] += c.Q(i, l) * c.K(j, l);
      s[std::size_t(j)] *= scale;
      if (c.mask && (*c.mask)(i, j) && mistake != "backward_mask_not_in_recompute")
        s[std::size_t(j)] = -INFINITY;
      m = std::max(m, s[std::size_t(j)]);
    }
    double sum = 0;
    for (Index j = 0; j < T_v; ++j) sum += std::exp(s[std::size_t(j)] - m);
    for (Index j = 0; j < T_v; ++j) P(i, j) = std::exp(s[std::size_t(j)] - m) / sum;
  }
  for (Index i = 0; i < T_q; ++i) {
    // D_i = sum_j P_ij dP_ij, over the allowed keys (the masked softmax's own weights).
    double D = 0;
    std::vector<double> dP(std::size_t(T_v), 0.0);
    for (Index j = 0; j < T_v; ++j) {
      for (Index l = 0; l < d_v; ++l) dP[std::size_t(j)] += c.dO(i, l) * c.V(j, l);
      const bool masked = c.mask && (*c.mask)(i, j);
      if (!masked || mistake != "backward_mask_not_in_recompute") D += P(i, j) * dP[std::size_t(j)];
    }
    if (mistake == "backward_mask_not_in_recompute") {
      // The forward's D (masked weights): recompute it from a masked row.
      double m = -INFINITY, sum = 0, Dm = 0;
      std::vector<double> s(std::size_t(T_v), 0.0);
      for (Index j = 0; j < T_v; ++j) {
        for (Index l = 0; l < d_k; ++l) s[std::size_t(j)] += scale * c.Q(i, l) * c.K(j, l);
        if (!masked_at(c, i, j)) m = std::max(m, s[std::size_t(j)]);
      }
      for (Index j = 0; j < T_v; ++j)
        if (!masked_at(c, i, j)) sum += std::exp(s[std::size_t(j)] - m);
      for (Index j = 0; j < T_v; ++j) {
        const double w = masked_at(c, i, j) ? 0.0 : std::exp(s[std::size_t(j)] - m) / sum;
        Dm += w * dP[std::size_t(j)];
        // The backward's weight ignores the mask: exp(s - L) with the forward's L.
        P(i, j) = std::exp(s[std::size_t(j)] - (m + std::log(sum)));
      }
      D = Dm;
    }
    if (mistake == "backward_d_term_dropped") D = 0;
    for (Index j = 0; j < T_v; ++j) {
      const double dS = P(i, j) * (dP[std::size_t(j)] - D);
      const double cq = mistake == "backward_scale_missing" ? 1.0 : scale;
      for (Index l = 0; l < d_k; ++l) {
        dQ(i, l) += cq * dS * c.K(j, l);
        dK(j, l) += scale * dS * c.Q(i, l);
      }
      for (Index l = 0; l < d_v; ++l) dV(j, l) += P(i, j) * c.dO(i, l);
    }
  }
  return Outcome::make_gradients(dQ, dK, dV);
}

Case backward_counterexample() {
  Case c;
  c.op = Operation::attention_backward;
  c.Q = DMatrix{{0.5, -1}, {1, 0.25}};
  c.K = DMatrix{{1, -0.5}, {0.25, 0.75}, {-1, 1}};
  c.V = DMatrix{{1}, {-0.5}, {0.25}};
  c.dO = DMatrix{{1}, {-1}};
  return c;
}

}  // namespace

TEST_CASE("backward: every model departs from the definition on the battery", "[backward]") {
  for (const Precision& p : {Precision::of_double(), Precision::of_float()}) {
    const attn::mis::Battery b =
        attn::mis::build_battery(Operation::attention_backward, p, true, nullptr);
    INFO(p.name);
    for (const auto& l : b.like_definition) UNSCOPED_INFO("like the definition: " << l);
    // In float32 a fill of -1e9 needs logits below -1e9, whose argument
    // error u W (about 120) leaves the tolerance no claim: never named there.
    const std::vector<std::string> blind =
        p.accumulate == attn::prop::NumberFormat::float32
            ? std::vector<std::string>{"backward_finite_mask_value(fill=-1e9)"}
            : std::vector<std::string>{};
    CHECK(b.like_definition == blind);
    const auto models = attn::mis::candidate_models(Operation::attention_backward, p);
    REQUIRE(models.front().key == "correct");
    for (std::size_t m = 1; m < models.size(); ++m) {
      double worst = 0;
      for (const Case& c : b.cases) {
        const auto a = models[m].predict(c, p), d = models.front().predict(c, p);
        if (a.no_claim || d.no_claim) continue;
        if (a.has_answer != d.has_answer) worst = INFINITY;
        else if (a.has_answer) worst = std::max(worst, worst_ratio(a, d));
      }
      INFO(models[m].label());
      if (std::find(blind.begin(), blind.end(), models[m].label()) == blind.end())
        CHECK(worst > 10.0);  // kSeparationFactor: far more than the tolerance
    }
  }
}

TEST_CASE("backward: without a mistake the model is the oracle", "[backward]") {
  const Precision p = Precision::of_double();
  const attn::mis::Battery b = attn::mis::build_battery(Operation::attention_backward, p, true, nullptr);
  REQUIRE(b.cases.size() >= 3);
  const auto def = attn::mis::candidate_models(Operation::attention_backward, p).front();
  for (const Case& c : b.cases) {
    INFO(c.tags.at(0));
    const auto x = attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask);
    const auto bound = attn::ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, x, p.model());
    const auto pred = def.predict(c, p);
    REQUIRE(pred.has_answer);
    const DMatrix* got[] = {&pred.answer.dQ, &pred.answer.dK, &pred.answer.dV};
    const DMatrix exact[] = {attn::ref::to_double(x.dQ), attn::ref::to_double(x.dK),
                             attn::ref::to_double(x.dV)};
    const DMatrix* bd[] = {&bound.dQ, &bound.dK, &bound.dV};
    for (int g = 0; g < 3; ++g)
      CHECK(((*got[g] - exact[g]).cwiseAbs().array() <= bd[g]->array()).all());
  }
}

TEST_CASE("backward: a correct backward is named nothing", "[backward]") {
  attn::prop::LibSubject<double> lib64;
  attn::prop::LibSubject<float> lib32;
  for (attn::prop::Subject* s : {static_cast<attn::prop::Subject*>(&lib64),
                                 static_cast<attn::prop::Subject*>(&lib32)}) {
    const Diagnosis d = attn::mis::diagnose(*s, backward_counterexample(), "backward_oracle_agreement");
    INFO(attn::mis::to_json(d));
    CHECK(d.verdict == Diagnosis::Verdict::consistent);
    CHECK(d.fits.empty());
  }
  FnSubject loops("loops", Operation::attention_backward,
                  [](const Case& c) { return loops_backward(c, ""); });
  const Diagnosis d = attn::mis::diagnose(loops, backward_counterexample(), "backward_oracle_agreement");
  INFO(attn::mis::to_json(d));
  CHECK(d.verdict == Diagnosis::Verdict::consistent);
}

TEST_CASE("backward: a mistake written with loops is named by its key", "[backward]") {
  for (const char* key : {"backward_d_term_dropped", "backward_scale_missing",
                          "backward_mask_not_in_recompute"}) {
    DYNAMIC_SECTION(key) {
      FnSubject s(key, Operation::attention_backward,
                  [key](const Case& c) { return loops_backward(c, key); });
      const Diagnosis d = attn::mis::diagnose(s, backward_counterexample(), "backward_oracle_agreement");
      INFO(attn::mis::to_json(d));
      REQUIRE(d.verdict == Diagnosis::Verdict::misconception);
      CHECK(d.fits.at(0).key == key);
      CHECK(attn::mis::has_advice(key));
    }
  }
}

TEST_CASE("backward: the battery keeps the cost limits", "[backward][cost]") {
  for (const Precision& p : {Precision::of_double(), Precision::of_float()}) {
    const Case cx = backward_counterexample();
    const attn::mis::Battery b = attn::mis::build_battery(Operation::attention_backward, p, true, &cx);
    CHECK(b.cases.size() <= attn::mis::kMaxBatteryCases);
    CHECK(b.entries <= attn::mis::kMaxBatteryEntries);
    attn::prop::LibSubject<double> lib;
    const Diagnosis d = attn::mis::diagnose(lib, cx, "backward_oracle_agreement");
    CHECK(d.seconds < 1.0);
    WARN("backward battery (" << p.name << "): " << b.cases.size() << " cases, " << b.entries
                              << " entries; diagnosis " << d.seconds << " s");
  }
}
