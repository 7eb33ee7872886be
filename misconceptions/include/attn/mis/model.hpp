#pragma once
// Misconceptions as executable models (namespace attn::mis).
//
// A model computes exactly what one mistake computes, from the definition in
// the text (section 32.2), never by calling lib/: like the oracle, it is
// written "next to the oracle". Its answer to a Case is a Prediction: the
// values the mistake produces (with a per-entry tolerance for rounding) and
// whether a refusal is what the mistake does. The catalogue
// (catalogue.hpp) lists every family with its stable key; misconceptions/
// README.md documents them in one table.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/subject.hpp"

namespace attn::mis {

using attn::Index;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Operation;
using attn::prop::Outcome;
using attn::prop::Precision;

/// The arithmetic a model computes in is a number format (ref::FormatInfo:
/// its unit roundoff, smallest normal and rounding): the subject's declared
/// accumulation type, or a narrower one (the low_precision family).
using NumberFormat = ref::NumberFormat;

/// One fitted parameter of a model: a name ("fill"), its value as a number
/// (-1e9) and as text ("-1e9", "1/d_k", "float16").
struct Param {
  std::string name;
  double value = 0;
  std::string text;
  /// "name = text" (with `equals` between), or "name text" when the name
  /// ends in a verb ("0/0 gives NaN", never "0/0 gives = NaN").
  std::string said(const std::string& equals = " = ") const {
    for (const char* verb : {" gives", " is", " becomes", " returns"}) {
      const std::string v(verb);
      if (name.size() >= v.size() && name.compare(name.size() - v.size(), v.size(), v) == 0)
        return name + " " + text;
    }
    return name + equals + text;
  }
};

/// What a model says the subject answers to one case.
struct Prediction {
  /// A refusal (any error type) agrees with the model.
  bool may_refuse = false;
  /// `answer` holds values (A, O, logsumexp or mask, as the operation returns);
  /// an answer agrees if every compared entry is within `tol_*` of it.
  bool has_answer = false;
  /// The model makes no claim on this case (any outcome agrees): a value
  /// mistake says nothing about a non-finite input, for instance.
  bool no_claim = false;
  /// Any answer whose compared entries are all finite agrees
  /// (non_finite_swallowed: the values themselves are not modelled).
  bool any_finite_answer = false;
  /// An answer with a non-finite compared entry also agrees: a NaN or Inf
  /// input may be refused or may give NaN where it reaches; only a finite
  /// answer, which swallowed it, is a mistake.
  bool non_finite_answer_ok = false;
  Outcome answer;
  /// Per-entry absolute tolerances, same shapes as answer.A, answer.O,
  /// answer.logsumexp (see tolerance.hpp). Unused for masks (exact).
  DMatrix tol_A, tol_O, tol_lse;
  /// attention_backward: per-entry absolute tolerances of answer.dQ, dK, dV
  /// (src/backward_models.hpp); a non-finite answer entry asks for a
  /// non-finite one.
  DMatrix tol_dQ, tol_dK, tol_dV;
  /// attention_backward, a narrower accumulation of dV: dV's tolerance
  /// bounded with the declared unit roundoff, for separation (as
  /// separation_tol_* above); empty otherwise: tol_dV serves.
  DMatrix separation_tol_dV;
  /// Separation between models is judged against the error bound of the
  /// subject's declared precision: a model computed in a narrower type has
  /// these tolerances too, its same rounded computation bounded with the
  /// declared unit roundoff (its own bound may be infinite: a bfloat16 sum
  /// of 512 terms). Empty otherwise: tol_* serve.
  DMatrix separation_tol_A, separation_tol_O, separation_tol_lse;
  bool has_separation_tol = false;
};

namespace detail {
struct Knobs;  // the pipeline's knobs (src/pipeline.hpp)
}  // namespace detail

/// A family member with its parameters fixed: predicts a case.
struct Model {
  std::string key;            ///< catalogue key, "finite_fill"; "correct" for the definition
  std::vector<Param> params;  ///< the fixed parameters (empty for parameterless keys)
  /// The prediction for a case in the subject's declared precision.
  /// Throws std::invalid_argument for an operation the family does not cover.
  std::function<Prediction(const Case&, const Precision& declared)> predict;
  /// "finite_fill(fill=-1e9)".
  std::string label() const;
  /// For a model of the parameterised pipeline (most families): the steps
  /// it changes, so that two mistakes in different steps can be composed
  /// (diagnose.hpp, Diagnosis::Verdict::combined); null for the others.
  std::shared_ptr<const detail::Knobs> knobs;
};

/// A family of models with a stable key (README.md's table).
struct Family {
  std::string key;
  std::string misconception;  ///< one sentence
  std::string source;         ///< section/lemma of the text, or where the mistake is found
  std::string told_apart_by;  ///< what tells it apart from its neighbours
  /// The operations the family applies to.
  std::vector<Operation> ops;
  /// Its members, one per value of the parameter grid (one member for a
  /// parameterless family), for operation op.
  std::function<std::vector<Model>(Operation op)> members;
  bool applies_to(Operation op) const;
};

/// The model of the definition itself (key "correct"): -inf before the
/// softmax, the allowed row maximum, 1/sqrt(d_k), and refusals of a fully
/// forbidden row, a d_k mismatch and a non-finite input.
Model correct_model();

}  // namespace attn::mis
