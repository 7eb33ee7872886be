// The differential diagnosis engine (diagnose.hpp).
#include "attn/mis/diagnose.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/mis/catalogue.hpp"
#include "attn/prop/operation_table.hpp"
#include "backward_diagnose.hpp"
#include "battery_cases.hpp"
#include "explain.hpp"
#include "pipeline.hpp"
#include "tolerance.hpp"

namespace attn::mis {
namespace {

using detail::agrees;
using detail::separated;

Prediction safe_predict(const Model& m, const Case& c, const Precision& p) {
  try {
    return m.predict(c, p);
  } catch (const std::exception&) {
    Prediction none;
    none.no_claim = true;
    return none;
  }
}

/// Error types that say the code is broken, not that it refused an input.
bool non_domain_error(const std::string& t) {
  static const std::set<std::string> kinds = {
      "AttributeError", "NameError",       "TypeError",     "ImportError", "ModuleNotFoundError",
      "UnboundLocalError", "SyntaxError",  "IndentationError", "NotImplementedError",
      "KeyError",       "IndexError",      "RecursionError", "AssertionError",
      "std::bad_alloc", "std::logic_error", "std::out_of_range", "std::bad_function_call"};
  return kinds.count(t) > 0;
}

/// Key j is forbidden for query i: the mask says so, or (the softmax
/// operations) the logit is -inf.
bool forbidden_at(const Case& c, Index i, Index j) {
  if (c.mask && (*c.mask)(i, j)) return true;
  return takes_logits(c.op) && c.S(i, j) == -std::numeric_limits<double>::infinity();
}

/// Under a kernel's documented answer for a query row with every key
/// forbidden (NaN or zeros, `attnlab check --fully-forbidden`), that answer
/// is the definition's, and what a mistake does to such a row tells nothing
/// about it: the case is sent without its fully forbidden query rows (rows
/// of Q, or of S, and of the mask), or not at all where no row is left or
/// the rows are not independent (multi-head self-attention: X is queries
/// and keys at once). Mask builders take no rows.
std::optional<Case> without_fully_forbidden_rows(const Case& c) {
  if (builds_mask(c.op)) return c;
  const bool logits = takes_logits(c.op);
  const attn::prop::CaseSizes sizes = attn::prop::case_sizes(c);
  const Index T_q = sizes.T_q, T_v = sizes.T_v;
  if (c.mask && (c.mask->rows() != T_q || c.mask->cols() != T_v)) return c;  // a shape case
  if (!c.mask && !logits) return c;
  std::vector<Index> keep;
  for (Index i = 0; i < T_q; ++i) {
    bool all = T_v > 0;
    for (Index j = 0; j < T_v && all; ++j) all = forbidden_at(c, i, j);
    if (!all) keep.push_back(i);
  }
  if (Index(keep.size()) == T_q) return c;
  if (keep.empty() || detail::takes_projections(c.op)) return std::nullopt;
  Case out = c;
  auto rows = [&](const DMatrix& M) {
    DMatrix R(Index(keep.size()), M.cols());
    for (std::size_t k = 0; k < keep.size(); ++k) R.row(Index(k)) = M.row(keep[k]);
    return R;
  };
  if (logits) out.S = rows(c.S); else out.Q = rows(c.Q);
  if (c.mask) {
    attn::Mask M(Index(keep.size()), c.mask->cols());
    for (std::size_t k = 0; k < keep.size(); ++k) M.row(Index(k)) = c.mask->row(keep[k]);
    out.mask = M;
  }
  out.tags.push_back("fully forbidden rows removed");
  return out;
}

/// The engine that diagnoses an operation's counterexamples: the forward
/// one (this file: the models of families_for, the cases of
/// battery_cases.cpp) or the backward pass's (backward_diagnose.cpp).
enum class Engine { forward, backward };

struct EngineRow {
  Operation op;
  Engine engine;
};

constexpr EngineRow kEngineRows[] = {
    {Operation::softmax_rows, Engine::forward},
    {Operation::masked_softmax, Engine::forward},
    {Operation::attention, Engine::forward},
    {Operation::attention_tiled, Engine::forward},
    {Operation::multi_head_attention, Engine::forward},
    {Operation::causal_mask, Engine::forward},
    {Operation::padding_mask, Engine::forward},
    // Not diagnosed (its spec's `diagnosed`): no family and no case of the
    // forward engine is over it.
    {Operation::batched_attention, Engine::forward},
    {Operation::attention_backward, Engine::backward},
};
static_assert(attn::prop::detail::one_row_per_operation(kEngineRows),
              "kEngineRows: one row per OperationSpec, in the enumerator's order");

bool backward_engine(Operation op) {
  return attn::prop::detail::row_of(kEngineRows, op).engine == Engine::backward;
}

}  // namespace

const char* verdict_name(Diagnosis::Verdict v) {
  switch (v) {
    case Diagnosis::Verdict::misconception: return "misconception";
    case Diagnosis::Verdict::several: return "several";
    case Diagnosis::Verdict::no_known_mistake: return "no_known_mistake";
    case Diagnosis::Verdict::consistent: return "consistent";
    case Diagnosis::Verdict::fault: return "fault";
    case Diagnosis::Verdict::raises_on_every_call: return "raises_on_every_call";
    case Diagnosis::Verdict::combined: return "combined";
  }
  return "?";
}

std::vector<Model> candidate_models(Operation op, const Precision& declared) {
  if (backward_engine(op)) return detail::backward_models(declared);
  std::vector<Model> v = {correct_model()};
  for (const Family* f : families_for(op))
    for (Model& m : f->members(op)) {
      // "Low precision" in the declared accumulation type (or a wider one) is
      // no mistake: float32 for a float subject or a 16-bit one accumulating in float32.
      if (m.key == "low_precision" && !m.params.empty() &&
          ref::format_unit_roundoff(declared.accumulate) >= std::ldexp(1.0, -int(m.params[0].value)))
        continue;
      v.push_back(std::move(m));
    }
  return v;
}

/// Models a and b together (knobs composed), keyed "a+b" with both parameter
/// lists (ATTNLAB_MIS_DEBUG=wrong_scale+finite_fill shows why a pair misses);
/// none when their knobs do not compose.
std::optional<Model> composed(const Model& a, const Model& b) {
  const std::optional<detail::Knobs> k = detail::compose(*a.knobs, *b.knobs);
  if (!k) return std::nullopt;
  std::vector<Param> params = a.params;
  params.insert(params.end(), b.params.begin(), b.params.end());
  return detail::knob_model(a.key + "+" + b.key, params, *k);
}

/// The models the battery's cases are chosen to tell apart: the operation's
/// candidates, then (under a declared float64) the finite fills composed
/// with float32 arithmetic; `n_single` is set to the number of candidates
/// (the composed pairs follow them).
std::vector<Model> battery_models(Operation op, const Precision& declared, std::size_t& n_single) {
  std::vector<Model> models = candidate_models(op, declared);
  n_single = models.size();
  // Under a declared float64, the fills composed with float32 arithmetic
  // (public code in float32 with a finite fill) are told apart only by
  // cases float32 holds: the float64-only levels leave them no claim, and a
  // fill of float lowest is told from -inf (with an empty row answered
  // uniform) by allowed logits at float lowest alone. These pairs take part
  // in choosing the cases (after the single models, which alone are named
  // or reported as unseparated).
  if (declared.storage == NumberFormat::float64 && declared.accumulate == NumberFormat::float64) {
    const Model* f32 = nullptr;
    for (const Model& m : models)
      if (m.key == "low_precision" && m.knobs && m.knobs->narrow && m.knobs->arith == NumberFormat::float32)
        f32 = &m;
    std::vector<Model> pairs;
    if (f32)
      for (const Model& m : models)
        if (m.key == "finite_fill" && m.knobs)
          if (std::optional<Model> both = composed(m, *f32)) pairs.push_back(std::move(*both));
    for (Model& m : pairs) models.push_back(std::move(m));
  }
  return models;
}

/// The pairs of the single models (the first `n_single`) no case of `b`
/// separates (`done`: n x n, set where one does), and the members the
/// battery cannot tell from the definition (models[0]: never named).
void record_unseparated(Battery& b, const std::vector<Model>& models, std::size_t n_single,
                        const std::vector<char>& done) {
  const std::size_t n = models.size();
  for (std::size_t i = 0; i < n_single; ++i)
    for (std::size_t j = i + 1; j < n_single; ++j)
      if (!done[i * n + j] && models[i].key != models[j].key)
        b.unseparated.push_back(models[i].label() + " ~ " + models[j].label());
  for (std::size_t j = 1; j < n_single; ++j)
    if (!done[j]) b.like_definition.push_back(models[j].label());
}

namespace {

/// The float-lowest tie (battery_cases.cpp) joins the battery wherever there
/// is room, even when another case already told the fills apart among the
/// models: that other case (levels of forbidden logits) tells them apart
/// only at the right scale, while the tie's single key dimension leaves
/// 1/sqrt(d_k) and 1/sqrt(d_v) both 1, so a fill composed with a wrong scale
/// (GPT-2's sqrt(d_v)) is still told float lowest from -0.7 float max.
void add_float_lowest_tie(const std::vector<Case>& pool, std::vector<char>& used, Battery& b,
                          std::size_t max_cases, std::size_t max_entries) {
  for (std::size_t k = 0; k < pool.size(); ++k)
    if (!used[k] && !pool[k].tags.empty() && pool[k].tags[0] == detail::kFloatLowestTie &&
        b.cases.size() < max_cases && b.entries + detail::case_entries(pool[k]) <= max_entries) {
      used[k] = 1;
      b.cases.push_back(pool[k]);
      b.entries += detail::case_entries(pool[k]);
    }
}

}  // namespace

Battery build_battery(Operation op, const Precision& declared, bool returns_weights,
                      const Case* counterexample, const Options& options) {
  const std::size_t max_cases = std::min(options.max_cases, kMaxBatteryCases);
  const std::size_t max_entries = std::min(options.max_entries, kMaxBatteryEntries);
  if (backward_engine(op)) return detail::backward_battery(declared, counterexample, options);
  std::size_t n_single = 0;
  std::vector<Model> models = battery_models(op, declared, n_single);
  std::vector<Case> pool;
  Battery b;
  const bool convention = options.fully_forbidden != attn::prop::FullyForbidden::error;
  // Predictions of every model on every case.
  auto predict_all = [&](const Case& c) {
    std::vector<Prediction> p;
    p.reserve(models.size());
    for (const Model& m : models) p.push_back(safe_predict(m, c, declared));
    return p;
  };
  const std::size_t n = models.size();
  std::vector<char> done(n * n, 0);
  auto mark = [&](const Case& c, const std::vector<Prediction>& p) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (!done[i * n + j] && separated(p[i], p[j], c, kSeparationFactor, returns_weights)) done[i * n + j] = 1;
  };
  // Pairs of models case c separates that no case so far does.
  auto gain_of = [&](const Case& c, const std::vector<Prediction>& p, std::size_t upto) {
    std::size_t gain = 0;
    for (std::size_t i = 0; i < upto; ++i)
      for (std::size_t j = i + 1; j < upto; ++j)
        if (!done[i * n + j] && separated(p[i], p[j], c, kSeparationFactor, returns_weights)) ++gain;
    return gain;
  };
  std::optional<Case> first;
  if (counterexample) first = convention ? without_fully_forbidden_rows(*counterexample) : *counterexample;
  if (first && detail::case_entries(*first) <= max_entries / 4) {
    b.cases.push_back(*first);
    b.entries += detail::case_entries(*first);
    mark(b.cases.back(), predict_all(b.cases.back()));
    // The other failures' counterexamples, while all take at most a quarter
    // of the entries and of the cases (the rest of the cases tell the
    // models apart, the composed fills' among them): those that separate
    // the most pairs of models still together first, then in report order.
    std::vector<Case> others;
    for (const Case& other : options.other_failures) {
      if (other.op != op) continue;
      if (std::optional<Case> kept = convention ? without_fully_forbidden_rows(other) : other)
        others.push_back(std::move(*kept));
    }
    std::vector<std::vector<Prediction>> other_pred;
    for (const Case& c : others) other_pred.push_back(predict_all(c));
    std::vector<char> taken(others.size(), 0);
    while (b.cases.size() < std::max<std::size_t>(max_cases / 4, 1)) {
      std::size_t best = others.size(), best_gain = 0;
      for (std::size_t k = 0; k < others.size(); ++k) {
        if (taken[k] || b.entries + detail::case_entries(others[k]) > max_entries / 4) continue;
        const std::size_t gain = gain_of(others[k], other_pred[k], n);
        if (best == others.size() || gain > best_gain) {
          best = k;
          best_gain = gain;
        }
      }
      if (best == others.size()) break;
      taken[best] = 1;
      mark(others[best], other_pred[best]);
      b.entries += detail::case_entries(others[best]);
      b.cases.push_back(std::move(others[best]));
    }
    b.counterexamples = b.cases.size();
  }
  for (Case& c : detail::candidate_cases(op, declared)) {
    if (!convention) {
      pool.push_back(std::move(c));
    } else if (std::optional<Case> kept = without_fully_forbidden_rows(c)) {
      pool.push_back(std::move(*kept));
    }
  }
  std::vector<std::vector<Prediction>> pool_pred;
  for (const Case& c : pool) pool_pred.push_back(predict_all(c));
  std::vector<char> used(pool.size(), 0);
  // Greedy: add the case that separates the most pairs still together; drop
  // the cases that separate none. The single models first, from the cases
  // but the two of the second round; then the composed fills (n_single
  // onwards) from every case, with what budget is left.
  std::size_t upto = n_single;
  while (b.cases.size() < max_cases) {
    std::size_t best = pool.size(), best_gain = 0;
    for (std::size_t k = 0; k < pool.size(); ++k) {
      if (used[k] || b.entries + detail::case_entries(pool[k]) > max_entries) continue;
      const bool second = !pool[k].tags.empty() && (pool[k].tags[0] == detail::kAddedFillLevels ||
                                                     pool[k].tags[0] == detail::kFloatLowestTie);
      if (second && upto < n) continue;
      const std::size_t gain = gain_of(pool[k], pool_pred[k], upto);
      if (gain > best_gain) {
        best_gain = gain;
        best = k;
      }
    }
    if (best == pool.size() && upto < n) {
      upto = n;
      continue;
    }
    if (best == pool.size()) break;
    used[best] = 1;
    mark(pool[best], pool_pred[best]);
    b.cases.push_back(pool[best]);
    b.entries += detail::case_entries(pool[best]);
  }
  add_float_lowest_tie(pool, used, b, max_cases, max_entries);
  if (std::getenv("ATTNLAB_MIS_DEBUG")) {
    std::cerr << "battery (" << b.entries << " entries):";
    for (const Case& c : b.cases) std::cerr << " [" << (c.tags.empty() ? "" : c.tags[0]) << "]";
    std::cerr << "\n";
  }
  record_unseparated(b, models, n_single, done);
  return b;
}

namespace {

/// The battery's cases sent to the subject, one by one, counted in d; a
/// fault with no answer at all stops it (d.verdict fault, its message).
std::vector<Outcome> send_battery(attn::prop::Subject& subject, const Battery& b, Diagnosis& d) {
  std::vector<Outcome> answers;
  for (const Case& c : b.cases) {
    answers.push_back(subject.run(c));
    ++d.cases_sent;
    d.entries_sent += detail::case_entries(c);
    const Outcome& o = answers.back();
    if (o.kind == Outcome::Kind::fault && o.A.size() == 0 && o.O.size() == 0) {
      d.verdict = Diagnosis::Verdict::fault;
      d.message = o.message;
      break;
    }
  }
  return answers;
}

/// The subject's answers to the battery, and what judging them needs.
struct Answered {
  const attn::prop::Subject& subject;
  const Battery& b;
  const std::vector<Outcome>& answers;
  const Precision& declared;
  Model def = correct_model();                        ///< the definition
  const char* debug = std::getenv("ATTNLAB_MIS_DEBUG");  ///< a key: why it does not fit
  /// Leading cases that are the diagnosed failure's own counterexample: 1
  /// (case 0) when judging a diagnosis on its own battery; 0 when judging a
  /// name against another failure's battery, whose counterexample is then
  /// another failure's too.
  std::size_t own = 1;
  /// m's prediction for battery case k.
  Prediction predicted(const Model& m, std::size_t k) const {
    return safe_predict(m, b.cases[k], declared);
  }
  /// Whether case k is another failure's counterexample (after the
  /// diagnosed one, among Battery::counterexamples; from case 0 when `own`
  /// is 0) that is evidence about
  /// the refusal only: the subject refused it (a valid input refused), or
  /// the definition refuses it (an input that must be refused, answered).
  bool refusal_evidence(std::size_t k) const {
    if (k < own || k >= b.counterexamples || k >= answers.size()) return false;
    if (answers[k].kind == Outcome::Kind::refusal) return true;
    const Prediction d = predicted(def, k);
    return d.may_refuse && !d.has_answer;
  }
  /// Whether model m is judged on case k. Everywhere but on another
  /// failure's refusal evidence; there, only a model whose claim on the
  /// refusal is its own (it answers where the definition refuses, or may
  /// refuse where the definition answers: fully_forbidden_answered,
  /// inverted_mask on a row it leaves empty) is judged. A value mistake
  /// that refuses what the definition refuses and answers what it answers
  /// makes no claim on whether the subject refuses; the definition itself
  /// is judged on every case.
  bool judged(const Model& m, std::size_t k) const {
    if (m.key == def.key || !refusal_evidence(k)) return true;
    const Prediction p = predicted(m, k), d = predicted(def, k);
    if (p.no_claim) return false;
    return p.may_refuse != d.may_refuse || p.has_answer != d.has_answer ||
           p.any_finite_answer != d.any_finite_answer;
  }
};

/// True when the refusals decide (d's verdict set): every case refused,
/// valid ones included (raises on every call), or a non-domain error on a
/// valid case (a fault of the code, not a refusal).
bool refusals_decide(const Answered& x, Diagnosis& d) {
  const std::vector<Outcome>& answers = x.answers;
  bool all_refused = !answers.empty(), valid_refused = false;
  for (std::size_t k = 0; k < answers.size(); ++k) {
    if (answers[k].kind != Outcome::Kind::refusal) {
      all_refused = false;
      break;
    }
    const Prediction p = x.predicted(x.def, k);
    if (!p.may_refuse && !p.no_claim) valid_refused = true;
  }
  if (all_refused && valid_refused) {
    d.verdict = Diagnosis::Verdict::raises_on_every_call;
    d.error_type = answers.front().error_type;
    d.message = answers.front().message;
    return true;
  }
  for (std::size_t k = 0; k < answers.size(); ++k) {
    const Prediction p = x.predicted(x.def, k);
    if (answers[k].kind == Outcome::Kind::refusal && non_domain_error(answers[k].error_type) &&
        !p.may_refuse && !p.no_claim) {
      d.verdict = Diagnosis::Verdict::fault;
      d.error_type = answers[k].error_type;
      d.message = answers[k].message;
      return true;
    }
  }
  return false;
}

/// Model m agrees with every answer (ATTNLAB_MIS_DEBUG=m's key: the first
/// case it misses, on stderr).
bool fits_all(const Answered& x, const Model& m) {
  const std::vector<Outcome>& answers = x.answers;
  const Battery& b = x.b;
  for (std::size_t k = 0; k < answers.size(); ++k)
    if (x.judged(m, k) &&
        !agrees(answers[k], x.predicted(m, k), b.cases[k], x.subject.returns_weights())) {
      if (x.debug && m.key == x.debug) {
        const Prediction p = x.predicted(m, k);
        std::cerr << m.label() << " misses case " << k << " ("
                  << (b.cases[k].tags.empty() ? "" : b.cases[k].tags[0]) << ")\n";
        attn::prop::print_inputs(std::cerr, b.cases[k]);
        std::cerr << "subject: " << attn::prop::kind_name(answers[k].kind) << " "
                  << answers[k].error_type << "\n";
        attn::prop::print_matrix(std::cerr, "A", answers[k].A);
        attn::prop::print_matrix(std::cerr, "O", answers[k].O);
        std::cerr << "model: refuse " << p.may_refuse << " answer " << p.has_answer << "\n";
        attn::prop::print_matrix(std::cerr, "A", p.answer.A);
        attn::prop::print_matrix(std::cerr, "tol A", p.tol_A);
        attn::prop::print_matrix(std::cerr, "O", p.answer.O);
        attn::prop::print_matrix(std::cerr, "tol O", p.tol_O);
      }
      return false;
    }
  return true;
}

/// A fill (finite_fill, additive_fill) that the model's arithmetic rounds to
/// an infinity (-1e9 in float16, added or put in place) is that type's -inf,
/// the definition's mask: no finite fill is computed, and such a member is
/// never named (it would stand beside the same computation without it).
bool fill_vanishes(const Model& m, const Precision& declared) {
  if (!m.knobs) return false;
  const detail::Knobs& k = *m.knobs;
  if (k.mask != detail::MaskUse::finite_fill && k.mask != detail::MaskUse::additive_fill) return false;
  return !std::isfinite(ref::round_to_format(k.narrow ? k.arith : declared.accumulate, k.fill));
}

/// A model computed in a narrower type than declared (low_precision, alone
/// or in a pair).
bool narrow_model(const Model& m) { return m.knobs && m.knobs->narrow; }

/// The other types a narrow model may be computed in: those of
/// candidate_models (narrower than the declared accumulation), more precise
/// than `f` (most precise first) or less precise (`more` false).
std::vector<NumberFormat> other_formats(const Precision& declared, NumberFormat f, bool more) {
  std::vector<NumberFormat> v;
  const double u = ref::format_unit_roundoff(f), u_declared = ref::format_unit_roundoff(declared.accumulate);
  for (const ref::FormatInfo& g : ref::number_formats())
    if (g.unit_roundoff > u_declared && (more ? g.unit_roundoff < u : g.unit_roundoff > u)) v.push_back(g.format);
  std::sort(v.begin(), v.end(), [](NumberFormat a, NumberFormat b) {
    return ref::format_unit_roundoff(a) < ref::format_unit_roundoff(b);
  });
  return v;
}

/// Narrow model m computed in format f instead (its precision parameter with it).
Model in_format(const Model& m, NumberFormat f) {
  detail::Knobs k = *m.knobs;
  k.arith = f;
  std::vector<Param> params = m.params;
  for (Param& p : params)
    if (p.name == "precision") {
      p.value = double(ref::format_info(f).significand_bits);
      p.text = ref::format_info(f).name;
    }
  return detail::knob_model(m.key, params, k);
}

/// Tolerance tg is finite wherever tf is (same shapes; else left to agreement).
bool claims_as_much(const DMatrix& tg, const DMatrix& tf) {
  if (tg.rows() != tf.rows() || tg.cols() != tf.cols()) return true;
  for (Index i = 0; i < tf.rows(); ++i)
    for (Index j = 0; j < tf.cols(); ++j)
      if (tf(i, j) != detail::kAnyAnswer && std::isfinite(tf(i, j)) &&
          (tg(i, j) == detail::kAnyAnswer || !std::isfinite(tg(i, j))))
        return false;
  return true;
}

/// Model m_g reproduces every answer wherever model m_f makes a claim, and
/// claims there at least as much: on each case m_f claims (m_g judged
/// there), with m_g's tolerance opened
/// (kAnyAnswer) on the entries where m_f's is not finite. A narrow type's
/// a-priori bound is +Inf past a relative 1/4 (a bfloat16 row of logits
/// near 10): there it says nothing, and the answers are no evidence for it
/// over a more precise type.
bool reproduces_where_claimed(const Answered& x, const Model& m_g, const Model& m_f) {
  auto open = [](DMatrix& tol, const DMatrix& claimed) {
    if (tol.rows() != claimed.rows() || tol.cols() != claimed.cols()) return;
    for (Index i = 0; i < tol.rows(); ++i)
      for (Index j = 0; j < tol.cols(); ++j)
        if (claimed(i, j) == detail::kAnyAnswer || !std::isfinite(claimed(i, j))) tol(i, j) = detail::kAnyAnswer;
  };
  for (std::size_t k = 0; k < x.answers.size(); ++k) {
    if (!x.judged(m_g, k) || !x.judged(m_f, k)) continue;
    const Prediction pf = x.predicted(m_f, k);
    if (pf.no_claim) continue;
    Prediction pg = x.predicted(m_g, k);
    // m_g must claim at least what m_f claims: not where it says nothing
    // (an input past float16's range) or its bound is +Inf.
    if (pg.no_claim || !claims_as_much(pg.tol_A, pf.tol_A) || !claims_as_much(pg.tol_O, pf.tol_O) ||
        !claims_as_much(pg.tol_lse, pf.tol_lse))
      return false;
    if (pf.has_answer && pg.has_answer) {
      open(pg.tol_A, pf.tol_A);
      open(pg.tol_O, pf.tol_O);
      open(pg.tol_lse, pf.tol_lse);
    }
    if (!agrees(x.answers[k], pg, x.b.cases[k], x.subject.returns_weights())) return false;
  }
  return true;
}

/// Whether a model explains the answers: it fits every answer and makes a
/// claim where the answers depart from the definition, and (a narrower
/// precision) departs where it would.
class Explains {
 public:
  explicit Explains(const Answered& x) : x_(x), departs_(x.answers.size(), false) {
    for (std::size_t k = 0; k < x.answers.size(); ++k)
      departs_[k] = !agrees(x.answers[k], x.predicted(x.def, k), x.b.cases[k], x.subject.returns_weights());
  }

  bool operator()(const Model& m) const {
    if (fill_vanishes(m, x_.declared)) return false;
    if (!(narrow_model(m) ? fits_in_most_precise_type(m) : fits_all(x_, m))) return false;
    if (!claims_every_departure(m)) {
      if (x_.debug && m.key == x_.debug) std::cerr << m.label() << ": no determined claim on any departure\n";
      return false;
    }
    return claims_the_counterexample(m) && rounds_where_it_would(m);
  }

 private:
  /// Precision, most precise first: a narrow model (type g) fits when it
  /// reproduces every answer and no more precise type below the declared
  /// one reproduces them wherever it makes a claim. A lower precision is
  /// named only when no more precise type reproduces the answers: the next
  /// one up may not where a wider one does (float16 overflows past 65504,
  /// float32 and bfloat16 do not), so each is tried. Where g's bound is +Inf
  /// (bfloat16's on a row of logits near 10: it claims nothing) the answers
  /// are no evidence for g over the more precise type. That type is named
  /// only when it reproduces every answer itself (its own member).
  bool fits_in_most_precise_type(const Model& m) const {
    if (!fits_all(x_, m)) return false;
    for (NumberFormat h : other_formats(x_.declared, m.knobs->arith, true)) {
      const Model m_h = in_format(m, h);
      if (reproduces_where_claimed(x_, m_h, m)) {
        if (x_.debug && m.key == x_.debug)
          std::cerr << m.label() << ": " << m_h.label() << " reproduces the answers wherever it claims\n";
        return false;
      }
    }
    return true;
  }

  /// On the diagnosed failure's counterexample (the battery's first case,
  /// when Battery::counterexamples > 0), if the answers depart there, the
  /// model makes a claim, and a determined one on each entry where the
  /// answer departs from the definition: a finite tolerance, or a NaN value
  /// (an infinite tolerance, as a row of logits near float lowest in
  /// float32 gets, or kAnyAnswer, claims nothing there). A narrower
  /// precision's model needs a claim only. The other failures'
  /// counterexamples (Options::other_failures) are evidence, not a demand:
  /// a model is contradicted there only where it makes a determined claim
  /// the answers contradict (fits_all, on the cases it is judged on).
  bool claims_the_counterexample(const Model& m) const {
    if (x_.b.counterexamples == 0 || x_.answers.empty() || !departs_[0]) return true;
    const Prediction p = x_.predicted(m, 0), d = x_.predicted(x_.def, 0);
    if (p.no_claim) return false;
    const Outcome& s = x_.answers[0];
    // A narrower type's bound may be +Inf where its rounding shows: its
    // claim is judged where it is told apart (rounds_where_it_would).
    if (s.kind == Outcome::Kind::refusal || !p.has_answer || !d.has_answer || p.has_separation_tol) return true;
    if (!entries_claimed(s.A, d.answer.A, d.tol_A, p.answer.A, p.tol_A) ||
        !entries_claimed(s.O, d.answer.O, d.tol_O, p.answer.O, p.tol_O)) {
      if (x_.debug && m.key == x_.debug) std::cerr << m.label() << ": no determined claim on the counterexample\n";
      return false;
    }
    return true;
  }

  /// Each entry of `s` off the definition's `d` (beyond its tolerance `td`,
  /// or in NaN/infinity pattern) has a determined model claim (tm, mv).
  /// Shapes that differ are left to agreement (true).
  static bool entries_claimed(const DMatrix& s, const DMatrix& d, const DMatrix& td, const DMatrix& mv,
                              const DMatrix& tm) {
    if (s.size() == 0 || s.rows() != d.rows() || s.cols() != d.cols() || td.rows() != d.rows() ||
        td.cols() != d.cols() || mv.rows() != d.rows() || mv.cols() != d.cols() ||
        tm.rows() != d.rows() || tm.cols() != d.cols())
      return true;
    for (Index i = 0; i < s.rows(); ++i)
      for (Index j = 0; j < s.cols(); ++j) {
        const double a = s(i, j), b = d(i, j);
        const bool off = std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)
                             ? !(a == b || (std::isnan(a) && std::isnan(b)))
                             : td(i, j) != detail::kAnyAnswer && std::abs(a - b) > td(i, j);
        if (off && !std::isnan(mv(i, j)) && (tm(i, j) == detail::kAnyAnswer || !std::isfinite(tm(i, j))))
          return false;
      }
    return true;
  }

  /// An entry is determined when its tolerance is finite, or when the
  /// model's value there is NaN (0/0 is a definite prediction), unless the
  /// model leaves it open (kAnyAnswer). An infinite tolerance (a narrow
  /// format's bound past its range, as bfloat16's with a fill of -1e4 added
  /// to the logits) admits any answer: it claims nothing.
  static bool determined(const DMatrix& tol, const DMatrix& value) {
    for (Index i = 0; i < tol.rows(); ++i)
      for (Index j = 0; j < tol.cols(); ++j)
        if (tol(i, j) != detail::kAnyAnswer &&
            (std::isfinite(tol(i, j)) || (i < value.rows() && j < value.cols() && std::isnan(value(i, j)))))
          return true;
    return tol.size() == 0;
  }

  /// A model explains the answers only where it makes a claim: it must
  /// predict at least one case where the definition does not fit the answer
  /// (a precision model says nothing about a fully forbidden row, so it
  /// cannot be why that row was answered), and there with entries it
  /// determines.
  bool claims_every_departure(const Model& m) const {
    for (std::size_t k = 0; k < x_.answers.size(); ++k) {
      if (!departs_[k] || !x_.judged(m, k)) continue;
      const Prediction p = x_.predicted(m, k);
      if (p.no_claim) continue;
      if (p.may_refuse || !p.has_answer || (determined(p.tol_A, p.answer.A) && determined(p.tol_O, p.answer.O)))
        return true;
    }
    return false;
  }

  /// A narrower-precision model must also show where it is told apart from
  /// the definition (tolerance.hpp, departs_where_separated): the definition
  /// in the declared precision, and in each more precise type still
  /// narrower than it. Answers exact to float32's definition on a case where
  /// a bfloat16 model's own answer is visibly off it are float32's, not a
  /// bfloat16 computation whose +Inf bound admits them (nor a second
  /// mistake hidden in that bound).
  /// For a narrow model composed with other mistakes (wrong_axis computed in
  /// float32), the same mistakes computed in those wider types are held
  /// against it too: double code whose answers are exact to wrong_axis in
  /// double, where float32 would round visibly, is not float32 code.
  bool rounds_where_it_would(const Model& m) const {
    std::vector<Model> defs = {x_.def};
    if (narrow_model(m)) {
      detail::Knobs wide = *m.knobs;
      wide.narrow = false;
      wide.arith = detail::Knobs{}.arith;
      defs.push_back(detail::knob_model(m.key + " in the declared precision", {}, wide));
      for (NumberFormat h : other_formats(x_.declared, m.knobs->arith, true)) {
        detail::Knobs k;
        k.narrow = true;
        k.arith = h;
        defs.push_back(detail::knob_model("low_precision", {}, k));
        detail::Knobs same = *m.knobs;
        same.arith = h;
        defs.push_back(detail::knob_model(m.key + " in a wider type", {}, same));
      }
    }
    for (const Model& def : defs)
      for (std::size_t k = 0; k < x_.answers.size(); ++k)
        if (x_.judged(m, k) && !detail::departs_where_separated(x_.answers[k], x_.predicted(m, k), x_.predicted(def, k),
                                             x_.b.cases[k], x_.subject.returns_weights(),
                                             kSeparationFactor)) {
          if (x_.debug && m.key == x_.debug)
            std::cerr << m.label() << ": exact where it would round, case " << k << " (against " << def.label() << ")\n";
          return false;
        }
    return true;
  }

  const Answered& x_;
  std::vector<bool> departs_;
};

/// The members of the catalogue for `op` that explain the answers, grouped
/// by family (catalogue order): each explains them (Explains) and is told
/// apart from the definition by the battery.
std::vector<std::vector<Model>> fitting_groups(const Answered& x, Operation op) {
  const Explains explains(x);
  std::vector<std::vector<Model>> groups;
  for (const Model& m : candidate_models(op, x.declared)) {
    const bool like_def = std::find(x.b.like_definition.begin(), x.b.like_definition.end(), m.label()) !=
                          x.b.like_definition.end();
    if (like_def && x.debug && m.key == x.debug)
      std::cerr << m.label() << ": no battery case tells it from the definition\n";
    if (m.key == "correct" || like_def || !explains(m)) {
      if (x.debug && m.key == x.debug)
        std::cerr << m.label() << ": like the definition on the battery, or no claim where the answers depart\n";
      continue;
    }
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const std::vector<Model>& v) { return v.front().key == m.key; });
    if (g == groups.end()) groups.push_back({m});
    else g->push_back(m);
  }
  return groups;
}

/// A member's parameters as an also_fits entry: "fill=-1e10, 0/0 gives 0 (guarded)".
std::string params_said(const Model& m) {
  std::string t;
  for (const Param& p : m.params) t += (t.empty() ? "" : ", ") + p.said("=");
  return t;
}

/// Adds member m's parameters to fit.also_fits unless they are the named
/// member's, empty, or already there.
void add_also_fits(Fit& fit, const Model& named, const Model& m) {
  const std::string t = params_said(m);
  if (!t.empty() && t != params_said(named) &&
      std::find(fit.also_fits.begin(), fit.also_fits.end(), t) == fit.also_fits.end())
    fit.also_fits.push_back(t);
}

/// Whether model m_y's own answers lie within model m_x's tolerance on
/// every battery case (cases where either makes no claim, or both refuse,
/// left out).
bool answers_within(const Answered& x, const Model& m_x, const Model& m_y) {
  for (const Case& c : x.b.cases) {
    const Prediction py = safe_predict(m_y, c, x.declared), px = safe_predict(m_x, c, x.declared);
    if (py.no_claim || px.no_claim || (py.may_refuse && px.may_refuse)) continue;
    const Outcome as_answer = py.has_answer ? py.answer : Outcome::make_refusal("model", "refuses");
    if (!agrees(as_answer, px, c, x.subject.returns_weights())) return false;
  }
  return true;
}

/// m_x is a wider claim than m_y: it admits m_y's answers, not the reverse.
bool wider(const Answered& x, const Model& m_x, const Model& m_y) {
  return answers_within(x, m_x, m_y) && !answers_within(x, m_y, m_x);
}

/// m_p and m_q give the same answers on the battery (each within the
/// other's tolerance), and m_p is the more definite of the two where the
/// subject answered a case the definition refuses (a fully forbidden row):
/// m_q may refuse it or answer it, m_p answers it, and never the reverse.
/// A value mistake (low_precision, a fill or a floor that float32 cannot
/// tell from -inf) leaves such a row to the code: answered with the NaN of
/// exp(-inf - (-inf)), as the definition computed in any precision would, it
/// is not that mistake's doing but the empty-row convention
/// (fully_forbidden_answered), which claims it.
bool more_definite(const Answered& x, const Model& m_p, const Model& m_q) {
  bool p_only = false;
  for (std::size_t k = 0; k < x.answers.size(); ++k) {
    if (x.answers[k].kind == Outcome::Kind::refusal) continue;
    const Prediction d = x.predicted(x.def, k);
    if (!d.may_refuse || d.has_answer) continue;  // the definition answers it: not a refusal case
    const Prediction pp = x.predicted(m_p, k), pq = x.predicted(m_q, k);
    if (pp.no_claim || pq.no_claim) continue;
    if (pp.may_refuse && !pq.may_refuse) return false;
    p_only = p_only || (!pp.may_refuse && pq.may_refuse);
  }
  return p_only && answers_within(x, m_p, m_q) && answers_within(x, m_q, m_p);
}

/// Whether the subject answered NaN (in O or A) for a query row whose every
/// key is forbidden, on a case the definition refuses: the NaN of
/// exp(-inf - (-inf)), which the definition computed in any precision gives
/// too, so it is never a value mistake's doing (a finite fill's uniform row
/// or a floor's zeros are that mistake's own) but the empty-row convention.
/// Only a case whose NaN is confined to the empty rows counts (some row with
/// an allowed key answered without NaN): a mistake whose NaN is in every
/// masked row (a mask multiplied by inf: S + 0 * -inf) explains the empty
/// row with the others.
bool answers_nan_empty_row(const Answered& x) {
  for (std::size_t k = 0; k < x.answers.size(); ++k) {
    const Outcome& o = x.answers[k];
    const Case& c = x.b.cases[k];
    if (o.kind != Outcome::Kind::result || !c.mask) continue;
    const Prediction d = x.predicted(x.def, k);
    if (!d.may_refuse || d.has_answer) continue;
    bool confined = false;
    for (Index i = 0; i < c.mask->rows() && !confined; ++i) {
      if (c.mask->cols() == 0 || c.mask->row(i).all()) continue;
      bool finite_row = true;
      for (const DMatrix* M : {&o.O, &o.A})
        if (i < M->rows() && M->cols() > 0 && M->row(i).array().isNaN().any()) finite_row = false;
      confined = finite_row;
    }
    if (!confined) continue;
    for (Index i = 0; i < c.mask->rows(); ++i) {
      if (c.mask->cols() == 0 || !c.mask->row(i).all()) continue;
      for (const DMatrix* M : {&o.O, &o.A})
        if (i < M->rows() && M->cols() > 0 && M->row(i).array().isNaN().any()) return true;
    }
  }
  return false;
}

/// Specificity: when model Y's own answers lie within model X's tolerance on
/// every battery case but not the other way round, X (a wider claim, e.g. a
/// float16 computation whose bound covers Y's values) explains nothing Y does
/// not, and is dropped: first within a family (a member wider than another
/// fitting member is neither reported nor listed in also_fits), then across
/// families. Sets d.fits.
std::vector<Model> keep_most_specific(const Answered& x, const std::vector<std::vector<Model>>& groups,
                                      Diagnosis& d) {
  auto wider = [&](const Model& m_x, const Model& m_y) { return attn::mis::wider(x, m_x, m_y); };
  std::vector<Model> fitting;  // the reported member of each family
  for (const std::vector<Model>& g : groups) {
    std::vector<const Model*> keep;
    for (const Model& m : g)
      if (std::none_of(g.begin(), g.end(), [&](const Model& y) { return &m != &y && wider(m, y); }))
        keep.push_back(&m);
    if (keep.empty()) keep.push_back(&g.front());  // (a cycle: keep the catalogue's first)
    Fit fit{keep.front()->key, keep.front()->params, {}};
    for (std::size_t i = 1; i < keep.size(); ++i) fit.also_fits.push_back(params_said(*keep[i]));
    d.fits.push_back(fit);
    fitting.push_back(*keep.front());
  }
  // Then across families, the same rule.
  std::vector<char> drop(fitting.size(), 0);
  for (std::size_t i = 0; i < fitting.size(); ++i)
    for (std::size_t j = 0; j < fitting.size(); ++j)
      if (i != j && wider(fitting[i], fitting[j])) drop[i] = 1;
  std::vector<Fit> kept;
  std::vector<Model> kept_models;
  for (std::size_t i = 0; i < fitting.size(); ++i)
    if (!drop[i]) {
      kept.push_back(d.fits[i]);
      kept_models.push_back(fitting[i]);
    }
  d.fits = kept;
  return kept_models;
}

/// Two mistakes that together explain the answers (the verdict combined):
/// pairs of members of two families in different steps of the pipeline
/// (detail::compose) whose computation explains them (Explains), the
/// wider claims among them dropped (a bfloat16 model admits nearly any
/// second mistake: the exact pair is kept). `singles`, the single models
/// that fit, if any: the pair is taken over them only when each is wider
/// than it (precision first: float32 with no scale over bfloat16 alone).
/// Sets d (fits, verdict) only when the remaining pairs are all of the same
/// two families; members the battery cannot tell from the definition take
/// no part. At most kMaxComposedPairs pairs are tried.
void combined_fits(const Answered& x, Operation op, const std::vector<Model>& singles, Diagnosis& d) {
  constexpr std::size_t kMaxComposedPairs = 40000;
  std::vector<Model> parts;
  for (Model& m : candidate_models(op, x.declared))
    if (m.key != "correct" && m.knobs &&
        std::find(x.b.like_definition.begin(), x.b.like_definition.end(), m.label()) ==
            x.b.like_definition.end())
      parts.push_back(std::move(m));
  const Explains explains(x);
  struct Pair {
    const Model* a;
    const Model* b;
    Model both;
  };
  std::vector<Pair> fitting;
  std::size_t tried = 0;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::size_t j = i + 1; j < parts.size() && tried < kMaxComposedPairs; ++j) {
      if (parts[i].key == parts[j].key) continue;
      std::optional<Model> both = composed(parts[i], parts[j]);
      if (!both) continue;
      ++tried;
      if (explains(*both)) fitting.push_back({&parts[i], &parts[j], std::move(*both)});
    }
  std::vector<const Pair*> kept;
  for (const Pair& p : fitting) {
    const auto beside = std::find_if(fitting.begin(), fitting.end(), [&](const Pair& q) {
      return &p != &q && (wider(x, p.both, q.both) || more_definite(x, q.both, p.both));
    });
    if (beside == fitting.end())
      kept.push_back(&p);
    else if (x.debug)
      std::cerr << "pair dropped: " << p.both.label() << " (beside " << beside->both.label() << ")\n";
  }
  if (x.debug)
    for (const Pair* p : kept) std::cerr << "pair fits: " << p->both.label() << "\n";
  if (kept.empty()) return;
  const std::string first = kept.front()->a->key, second = kept.front()->b->key;
  for (const Pair* p : kept)
    if (p->a->key != first || p->b->key != second) return;  // pairs of different mistakes: name none
  std::vector<Diagnosis::AloneFit> alone;
  for (const Model& single : singles) {
    const bool is_wider = wider(x, single, kept.front()->both);
    if (!is_wider && !more_definite(x, kept.front()->both, single)) return;
    alone.push_back({single.key, is_wider});
  }
  Fit fa{first, kept.front()->a->params, {}}, fb{second, kept.front()->b->params, {}};
  for (const Pair* p : kept) {
    add_also_fits(fa, *kept.front()->a, *p->a);
    add_also_fits(fb, *kept.front()->b, *p->b);
  }
  d.fits = {fa, fb};
  d.alone_fits = alone;
  d.tell_apart.clear();
  d.verdict = Diagnosis::Verdict::combined;
}

/// Three mistakes together (the verdict combined, three fits), looked for
/// when no single mistake and no pair explains the answers: a pair of
/// members of two families in different steps (as combined_fits) computed
/// in a lower precision (a `low_precision` member composed as the third:
/// public code makes its mistakes in float32, e.g. a fill of -1e4 with an
/// empty row answered zeros). The same rules as for pairs: the triple
/// explains the answers (Explains: precision first, claims where the
/// answers depart), the wider claims are dropped, and d is set only when
/// the remaining triples are all of the same three families. At most
/// kMaxComposedTriples triples are tried.
void triple_fits(const Answered& x, Operation op, Diagnosis& d) {
  constexpr std::size_t kMaxComposedTriples = 60000;
  std::vector<Model> parts, precisions;
  for (Model& m : candidate_models(op, x.declared)) {
    if (m.key == "correct" || !m.knobs ||
        std::find(x.b.like_definition.begin(), x.b.like_definition.end(), m.label()) !=
            x.b.like_definition.end())
      continue;
    (m.key == "low_precision" ? precisions : parts).push_back(std::move(m));
  }
  const Explains explains(x);
  struct Triple {
    const Model* a;
    const Model* b;
    const Model* p;
    Model all;
  };
  std::vector<Triple> fitting;
  std::size_t tried = 0;
  for (const Model& p : precisions)
    for (std::size_t i = 0; i < parts.size() && tried < kMaxComposedTriples; ++i)
      for (std::size_t j = i + 1; j < parts.size() && tried < kMaxComposedTriples; ++j) {
        if (parts[i].key == parts[j].key) continue;
        const std::optional<Model> ab = composed(parts[i], parts[j]);
        if (!ab) continue;
        std::optional<Model> all = composed(*ab, p);
        if (!all) continue;
        ++tried;
        if (explains(*all)) fitting.push_back({&parts[i], &parts[j], &p, std::move(*all)});
      }
  std::vector<const Triple*> kept;
  for (const Triple& t : fitting)
    if (std::none_of(fitting.begin(), fitting.end(), [&](const Triple& u) {
          return &t != &u && (wider(x, t.all, u.all) || more_definite(x, u.all, t.all));
        }))
      kept.push_back(&t);
  if (x.debug)
    for (const Triple* t : kept) std::cerr << "triple fits: " << t->all.label() << "\n";
  if (kept.empty()) return;
  const Triple& first = *kept.front();
  for (const Triple* t : kept)
    if (t->a->key != first.a->key || t->b->key != first.b->key || t->p->key != first.p->key) return;
  Fit fa{first.a->key, first.a->params, {}}, fb{first.b->key, first.b->params, {}},
      fp{first.p->key, first.p->params, {}};
  for (const Triple* t : kept) {
    add_also_fits(fa, *first.a, *t->a);
    add_also_fits(fb, *first.b, *t->b);
    add_also_fits(fp, *first.p, *t->p);
  }
  d.fits = {fa, fb, fp};
  d.alone_fits.clear();
  d.tell_apart.clear();
  d.verdict = Diagnosis::Verdict::combined;
}

std::optional<Model> composed_fits(const Diagnosis& d, const std::vector<Model>& candidates);

/// A pair of value mistakes computed in a narrow type leaves a NaN fully
/// forbidden row to its arithmetic (refuse or answer): it gives way to the
/// triple that names the empty-row convention beside them (the same pair
/// with fully_forbidden_answered (NaN), computed in that type) when the
/// triple is the more definite (more_definite), as a single gives way to a
/// pair. ng-video-lecture's head: a fixed scale in float32 answering an
/// empty row NaN is three mistakes, not two.
void prefer_definite_triple(const Answered& x, Operation op, Diagnosis& d) {
  Diagnosis t;
  triple_fits(x, op, t);
  if (t.verdict != Diagnosis::Verdict::combined || t.fits.size() != 3) return;
  const std::vector<Model> candidates = candidate_models(op, x.declared);
  const std::optional<Model> pair = composed_fits(d, candidates), triple = composed_fits(t, candidates);
  if (!pair || !triple || !more_definite(x, *triple, *pair)) return;
  d.fits = t.fits;
  d.alone_fits.clear();
  d.tell_apart.clear();
}

}  // namespace

Diagnosis diagnose(attn::prop::Subject& subject, const Case& counterexample,
                   const std::string& failed_property, const Options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const Operation op = counterexample.op;
  if (!subject.supports(op))
    throw std::invalid_argument(std::string("diagnose: the subject does not support ") +
                                attn::prop::operation_name(op));
  if (backward_engine(op))
    return detail::diagnose_backward(subject, counterexample, failed_property, options);
  const Precision declared = subject.precision();
  Diagnosis d;
  d.failed_property = failed_property;
  d.counterexample = counterexample;
  const Battery b = build_battery(op, declared, subject.returns_weights(), &counterexample, options);
  d.unseparated = b.unseparated;
  if (options.fully_forbidden != attn::prop::FullyForbidden::error)
    d.fully_forbidden_rows_left_out = attn::prop::fully_forbidden_name(options.fully_forbidden);
  const std::vector<Outcome> answers = send_battery(subject, b, d);
  auto finish = [&]() {
    d.battery = b;
    d.answers = answers;
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    d.explanation = detail::explanation(d, options.language, declared);
    return d;
  };
  if (d.verdict == Diagnosis::Verdict::fault) return finish();
  const Answered x{subject, b, answers, declared};
  if (refusals_decide(x, d)) return finish();
  if (fits_all(x, x.def)) {
    d.verdict = Diagnosis::Verdict::consistent;
    return finish();
  }
  const std::vector<Model> singles = keep_most_specific(x, fitting_groups(x, op), d);
  // Precision first: a narrower precision alone may hide a second mistake
  // in its wide tolerance; the pair is looked for then, and when nothing fits.
  const bool precision_only =
      !singles.empty() && std::all_of(singles.begin(), singles.end(),
                                      [](const Model& m) { return m.key == "low_precision"; });
  if (d.fits.empty()) {
    d.verdict = Diagnosis::Verdict::no_known_mistake;
    combined_fits(x, op, singles, d);
    if (d.verdict == Diagnosis::Verdict::combined) {
      if (answers_nan_empty_row(x)) prefer_definite_triple(x, op, d);
      return finish();
    }
    triple_fits(x, op, d);
    if (d.verdict == Diagnosis::Verdict::combined) return finish();
  } else if (precision_only || answers_nan_empty_row(x)) {
    // A single value mistake fits a NaN fully forbidden row only by leaving
    // it to the arithmetic (refuse or answer): the NaN is the empty-row
    // convention's, named with the mistake when the pair is more definite
    // (more_definite); the single is kept otherwise.
    combined_fits(x, op, singles, d);
    if (d.verdict == Diagnosis::Verdict::combined) return finish();
  }
  detail::set_verdict_from_fits(d);
  return finish();
}

namespace {

/// The catalogue member a fit names (same key, same parameters), rebuilt
/// from `candidates`; nullopt if none is.
std::optional<Model> model_of(const Fit& f, const std::vector<Model>& candidates) {
  for (const Model& m : candidates) {
    if (m.key != f.key || m.params.size() != f.params.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < m.params.size() && same; ++i) {
      const double a = m.params[i].value, b = f.params[i].value;
      same = m.params[i].name == f.params[i].name && (a == b || (std::isnan(a) && std::isnan(b)));
    }
    if (same) return m;
  }
  return std::nullopt;
}

/// "finite_fill (fill = -1e9)": a fit as the explanation names it, without
/// the other values that fit as well.
std::string fit_said(const Fit& f) {
  return f.key + detail::params_text(Fit{f.key, f.params, {}});
}

}  // namespace

namespace {

/// The model a combined diagnosis names: its fits composed in order, as
/// combined_fits and triple_fits built them; nullopt if a fit is no
/// catalogue member.
std::optional<Model> composed_fits(const Diagnosis& d, const std::vector<Model>& candidates) {
  std::optional<Model> all = model_of(d.fits.front(), candidates);
  for (std::size_t i = 1; i < d.fits.size() && all; ++i) {
    const std::optional<Model> next = model_of(d.fits[i], candidates);
    all = next ? composed(*all, *next) : std::nullopt;
  }
  return all;
}

/// The other diagnoses of `others` whose batteries d's names are judged
/// with: not d, the same operation, answered.
std::vector<const Diagnosis*> judged_with(const Diagnosis& d, const std::vector<const Diagnosis*>& others) {
  std::vector<const Diagnosis*> out;
  for (const Diagnosis* o : others)
    if (o != nullptr && o != &d && o->counterexample.op == d.counterexample.op && !o->answers.empty() &&
        o->answers.size() <= o->battery.cases.size())
      out.push_back(o);
  return out;
}

/// The first diagnosis of `others` naming one mistake or one combination
/// whose model reproduces d's own battery (its counterexample included)
/// and every other battery; nullptr if none does.
const Diagnosis* others_name_fits(const Diagnosis& d, const std::vector<const Diagnosis*>& others,
                                  const attn::prop::Subject& subject, const std::vector<Model>& candidates) {
  if (d.answers.empty() || d.answers.size() > d.battery.cases.size()) return nullptr;
  const Precision declared = subject.precision();
  const std::vector<const Diagnosis*> judges = judged_with(d, others);
  for (const Diagnosis* o : judges) {
    const bool combined = o->verdict == Diagnosis::Verdict::combined;
    if ((!combined && o->verdict != Diagnosis::Verdict::misconception) || o->fits.empty() ||
        (!combined && o->fits.size() != 1))
      continue;
    const std::optional<Model> m = combined ? composed_fits(*o, candidates) : model_of(o->fits.front(), candidates);
    if (!m || !fits_all(Answered{subject, d.battery, d.answers, declared}, *m)) continue;
    const bool everywhere = std::all_of(judges.begin(), judges.end(), [&](const Diagnosis* j) {
      Answered x{subject, j->battery, j->answers, declared};
      x.own = 0;
      return fits_all(x, *m);
    });
    if (everywhere) return o;
  }
  return nullptr;
}

}  // namespace

bool withdraw_contradicted(Diagnosis& d, const std::vector<const Diagnosis*>& others,
                           const attn::prop::Subject& subject, Language language) {
  const bool combined = d.verdict == Diagnosis::Verdict::combined;
  if ((!combined && d.verdict != Diagnosis::Verdict::misconception &&
       d.verdict != Diagnosis::Verdict::several) ||
      backward_engine(d.counterexample.op) || d.fits.empty())
    return false;
  const Operation op = d.counterexample.op;
  const Precision declared = subject.precision();
  const std::vector<Model> candidates = candidate_models(op, declared);
  // The models named: one per fit, or the fits composed in order (as
  // combined_fits built the pair).
  std::vector<std::optional<Model>> models;
  if (combined) models.push_back(composed_fits(d, candidates));
  else
    for (const Fit& f : d.fits) models.push_back(model_of(f, candidates));
  std::vector<std::string> ruled_by(models.size());
  for (const Diagnosis* o : judged_with(d, others)) {
    Answered x{subject, o->battery, o->answers, declared};
    x.own = 0;  // its counterexample is another failure's: evidence about the refusal only where refused
    for (std::size_t i = 0; i < models.size(); ++i)
      if (models[i] && ruled_by[i].empty() && !fits_all(x, *models[i])) ruled_by[i] = o->failed_property;
  }
  if (std::all_of(ruled_by.begin(), ruled_by.end(), [](const std::string& r) { return r.empty(); }))
    return false;
  std::vector<Fit> kept;
  if (combined) {
    std::string together;
    for (std::size_t i = 0; i < d.fits.size(); ++i)
      together += (i == 0 ? "" : i + 1 == d.fits.size() ? " with " : ", ") + fit_said(d.fits[i]);
    d.withdrawn.push_back({together, ruled_by[0]});
    d.alone_fits.clear();
  } else {
    for (std::size_t i = 0; i < d.fits.size(); ++i) {
      if (ruled_by[i].empty()) kept.push_back(d.fits[i]);
      else d.withdrawn.push_back({fit_said(d.fits[i]), ruled_by[i]});
    }
  }
  d.fits = kept;
  d.tell_apart.clear();
  detail::set_verdict_from_fits(d);
  // Another failure's name that reproduces this battery and every other
  // one is this failure's name too (one cause, one explanation); its
  // explanation is the one written for that failure's answers.
  const Diagnosis* from = d.fits.empty() ? others_name_fits(d, others, subject, candidates) : nullptr;
  if (from != nullptr) {
    d.fits = from->fits;
    d.verdict = from->verdict;
    d.explanation = "Named as under " + from->failed_property + ": that name reproduces the " +
                    std::to_string(d.cases_sent) + " cases sent for this failure too, and every other " +
                    "failure's answers. There: " + from->explanation;
  } else {
    d.explanation = d.fits.empty() ? "No known mistake reproduces every answer of this report."
                                   : detail::explanation(d, language, declared);
  }
  for (const auto& [name, property] : d.withdrawn)
    d.explanation += " Not named: " + name + ", which reproduces the " +
                     std::to_string(d.cases_sent) + " cases sent for this failure but not the answers to " +
                     "the cases sent for " + property + ".";
  return true;
}

std::string to_json(const Diagnosis& d) {
  nlohmann::json j;
  j["verdict"] = verdict_name(d.verdict);
  j["keys"] = nlohmann::json::array();
  j["fits"] = nlohmann::json::array();
  for (const Fit& f : d.fits) {
    j["keys"].push_back(f.key);
    nlohmann::json params = nlohmann::json::object(), text = nlohmann::json::object();
    for (const Param& p : f.params) {
      params[p.name] = p.value;
      text[p.name] = p.text;
    }
    j["fits"].push_back({{"key", f.key}, {"params", params}, {"param_text", text},
                         {"also_fits", f.also_fits}});
  }
  j["tell_apart"] = d.tell_apart;
  j["withdrawn"] = nlohmann::json::array();
  for (const auto& [name, property] : d.withdrawn)
    j["withdrawn"].push_back({{"name", name}, {"ruled_out_by", property}});
  j["explanation"] = d.explanation;
  j["failed_property"] = d.failed_property;
  j["operation"] = attn::prop::operation_name(d.counterexample.op);
  j["cases_sent"] = d.cases_sent;
  j["entries_sent"] = d.entries_sent;
  j["seconds"] = d.seconds;
  j["error_type"] = d.error_type;
  j["message"] = d.message;
  return j.dump(2);
}

}  // namespace attn::mis
