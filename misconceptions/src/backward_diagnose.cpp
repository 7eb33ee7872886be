// The diagnosis of the backward pass (backward_diagnose.hpp): the forward's
// rules (README.md, "How it decides") on the gradients dQ, dK, dV.
#include "backward_diagnose.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "attn/mis/catalogue.hpp"
#include "backward_models.hpp"
#include "explain.hpp"

namespace attn::mis::detail {
namespace {

Prediction bw_safe(const Model& m, const Case& c, const Precision& p) {
  try {
    return m.predict(c, p);
  } catch (const std::exception&) {
    Prediction none;
    none.no_claim = true;
    return none;
  }
}

bool bw_fully_forbidden_row(const Case& c) {
  if (!c.mask) return false;
  for (Index i = 0; i < c.mask->rows(); ++i)
    if (c.mask->cols() > 0 && c.mask->row(i).all()) return true;
  return false;
}

/// Inputs and outputs: Q, K, V, dO, the mask, dQ, dK, dV.
std::size_t bw_entries(const Case& c) {
  return std::size_t(2 * (c.Q.size() + c.K.size() + c.V.size()) + c.dO.size() +
                     (c.mask ? c.mask->size() : 0));
}

/// The three (answer, model, tolerance) matrices of one gradient.
struct bw_Triple {
  const DMatrix& got;
  const DMatrix& want;
  const DMatrix& tol;
};

/// An answer agrees with a prediction: a refusal or a crash where the
/// model may refuse, otherwise every entry within its tolerance (a
/// non-finite model entry asks for a non-finite answer).
bool bw_agrees(const Outcome& o, const Prediction& p) {
  if (p.no_claim) return true;
  if (o.kind != Outcome::Kind::result) return p.may_refuse;
  if (!p.has_answer) return false;
  const bw_Triple t[] = {{o.dQ, p.answer.dQ, p.tol_dQ}, {o.dK, p.answer.dK, p.tol_dK},
                      {o.dV, p.answer.dV, p.tol_dV}};
  for (const bw_Triple& x : t) {
    if (x.got.rows() != x.want.rows() || x.got.cols() != x.want.cols()) return false;
    for (Index i = 0; i < x.want.size(); ++i) {
      const double g = x.got.data()[i], w = x.want.data()[i];
      if (!std::isfinite(w)) {
        if (std::isfinite(g)) return false;
      } else if (!std::isfinite(g) || !(std::abs(g - w) <= x.tol.data()[i])) {
        return false;
      }
    }
  }
  return true;
}

/// Two predictions are told apart by a case: one refuses where the other
/// answers, one is non-finite where the other is finite, or an entry
/// differs by more than kSeparationFactor times the larger tolerance.
bool bw_separated(const Prediction& a, const Prediction& b) {
  if (a.no_claim || b.no_claim) return false;
  if (a.has_answer != b.has_answer) return true;
  if (!a.has_answer) return false;
  const DMatrix* am[] = {&a.answer.dQ, &a.answer.dK, &a.answer.dV};
  const DMatrix* bm[] = {&b.answer.dQ, &b.answer.dK, &b.answer.dV};
  // A narrower accumulation is told apart at the declared precision's tolerance.
  const DMatrix* at[] = {&a.tol_dQ, &a.tol_dK, a.separation_tol_dV.size() ? &a.separation_tol_dV : &a.tol_dV};
  const DMatrix* bt[] = {&b.tol_dQ, &b.tol_dK, b.separation_tol_dV.size() ? &b.separation_tol_dV : &b.tol_dV};
  for (int g = 0; g < 3; ++g)
    for (Index i = 0; i < am[g]->size(); ++i) {
      const double x = am[g]->data()[i], y = bm[g]->data()[i];
      if (std::isfinite(x) != std::isfinite(y)) return true;
      if (std::isfinite(x) &&
          std::abs(x - y) > kSeparationFactor * std::max(at[g]->data()[i], bt[g]->data()[i]))
        return true;
    }
  return false;
}

}  // namespace

std::vector<Model> backward_models(const Precision& declared) {
  std::vector<Model> v = {backward_correct_model()};
  for (const Family* f : families_for(Operation::attention_backward))
    for (Model& m : f->members(Operation::attention_backward)) {
      // A narrow accumulation no narrower than the declared one is no mistake.
      if (m.key == "backward_low_precision_accumulation" && !m.params.empty() &&
          ref::format_unit_roundoff(declared.accumulate) >=
              ref::format_unit_roundoff(NumberFormat(int(m.params[0].value))))
        continue;
      v.push_back(std::move(m));
    }
  return v;
}

Battery backward_battery(const Precision& declared, const Case* counterexample, const Options& options) {
  const std::size_t max_cases = std::min(options.max_cases, kMaxBatteryCases);
  const std::size_t max_entries = std::min(options.max_entries, kMaxBatteryEntries);
  const std::vector<Model> models = backward_models(declared);
  const std::size_t n = models.size();
  Battery b;
  if (counterexample && !bw_fully_forbidden_row(*counterexample) &&
      bw_entries(*counterexample) <= max_entries / 4) {
    b.cases.push_back(*counterexample);
    b.entries += bw_entries(*counterexample);
  }
  auto predict_all = [&](const Case& c) {
    std::vector<Prediction> p;
    for (const Model& m : models) p.push_back(bw_safe(m, c, declared));
    return p;
  };
  std::vector<char> done(n * n, 0);
  auto mark = [&](const std::vector<Prediction>& p) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (!done[i * n + j] && bw_separated(p[i], p[j])) done[i * n + j] = 1;
  };
  for (const Case& c : b.cases) mark(predict_all(c));
  const std::vector<Case> pool = backward_candidate_cases(declared);
  std::vector<std::vector<Prediction>> pred;
  for (const Case& c : pool) pred.push_back(predict_all(c));
  std::vector<char> used(pool.size(), 0);
  while (b.cases.size() < max_cases) {
    std::size_t best = pool.size(), best_gain = 0;
    for (std::size_t k = 0; k < pool.size(); ++k) {
      if (used[k] || b.entries + bw_entries(pool[k]) > max_entries) continue;
      std::size_t gain = 0;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
          if (!done[i * n + j] && bw_separated(pred[k][i], pred[k][j])) ++gain;
      if (gain > best_gain) {
        best_gain = gain;
        best = k;
      }
    }
    if (best == pool.size()) break;
    used[best] = 1;
    mark(pred[best]);
    b.cases.push_back(pool[best]);
    b.entries += bw_entries(pool[best]);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (!done[i * n + j] && models[i].key != models[j].key)
        b.unseparated.push_back(models[i].label() + " ~ " + models[j].label());
  for (std::size_t j = 1; j < n; ++j)
    if (!done[j]) b.like_definition.push_back(models[j].label());
  return b;
}

Diagnosis diagnose_backward(attn::prop::Subject& subject, const Case& counterexample,
                            const std::string& failed_property, const Options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const Precision declared = subject.precision();
  Diagnosis d;
  d.failed_property = failed_property;
  d.counterexample = counterexample;
  auto finish = [&]() {
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    d.explanation = explanation(d, options.language, declared);
    return d;
  };
  const Battery b = backward_battery(declared, &counterexample, options);
  d.unseparated = b.unseparated;
  const std::vector<Model> models = backward_models(declared);
  std::vector<std::vector<Prediction>> pred(b.cases.size());
  for (std::size_t k = 0; k < b.cases.size(); ++k)
    for (const Model& m : models) pred[k].push_back(bw_safe(m, b.cases[k], declared));
  // Send the cases; a fault (a crash, a timeout) that no model foresees
  // (only a product whose shapes do not fit may end so) is a fault.
  std::vector<Outcome> answers;
  for (std::size_t k = 0; k < b.cases.size(); ++k) {
    answers.push_back(subject.run(b.cases[k]));
    ++d.cases_sent;
    d.entries_sent += bw_entries(b.cases[k]);
    const Outcome& o = answers.back();
    bool foreseen = false;
    for (const Prediction& p : pred[k]) foreseen = foreseen || (p.may_refuse && !p.has_answer);
    if (o.kind == Outcome::Kind::fault && !foreseen) {
      d.verdict = Diagnosis::Verdict::fault;
      d.error_type = o.error_type;
      d.message = o.message;
      return finish();
    }
  }
  bool all_refused = !answers.empty();
  for (const Outcome& o : answers) all_refused = all_refused && o.kind == Outcome::Kind::refusal;
  if (all_refused) {
    d.verdict = Diagnosis::Verdict::raises_on_every_call;
    d.error_type = answers.front().error_type;
    d.message = answers.front().message;
    return finish();
  }
  const char* debug = std::getenv("ATTNLAB_MIS_DEBUG");
  auto fits = [&](std::size_t m) {
    bool claims_departure = m == 0;
    for (std::size_t k = 0; k < answers.size(); ++k) {
      if (!bw_agrees(answers[k], pred[k][m])) {
        if (debug && models[m].key == debug) {
          std::cerr << models[m].label() << " misses case " << k << " ("
                    << (b.cases[k].tags.empty() ? "" : b.cases[k].tags[0]) << ")\n";
          attn::prop::print_matrix(std::cerr, "dQ", answers[k].dQ);
          attn::prop::print_matrix(std::cerr, "model dQ", pred[k][m].answer.dQ);
          attn::prop::print_matrix(std::cerr, "dK", answers[k].dK);
          attn::prop::print_matrix(std::cerr, "model dK", pred[k][m].answer.dK);
          attn::prop::print_matrix(std::cerr, "dV", answers[k].dV);
          attn::prop::print_matrix(std::cerr, "model dV", pred[k][m].answer.dV);
          attn::prop::print_matrix(std::cerr, "tol dV", pred[k][m].tol_dV);
        }
        return false;
      }
      if (!pred[k][m].no_claim && !bw_agrees(answers[k], pred[k][0])) claims_departure = true;
    }
    return claims_departure;
  };
  if (fits(0)) {
    d.verdict = Diagnosis::Verdict::consistent;
    return finish();
  }
  for (std::size_t m = 1; m < models.size(); ++m) {
    if (std::find(b.like_definition.begin(), b.like_definition.end(), models[m].label()) !=
            b.like_definition.end() ||
        !fits(m))
      continue;
    std::string said;
    for (const Param& p : models[m].params) said += (said.empty() ? "" : ", ") + p.said("=");
    if (!d.fits.empty() && d.fits.back().key == models[m].key)
      d.fits.back().also_fits.push_back(said);
    else
      d.fits.push_back(Fit{models[m].key, models[m].params, {}});
  }
  set_verdict_from_fits(d);
  return finish();
}

}  // namespace attn::mis::detail
