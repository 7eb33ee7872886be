// The softmax itself (Definition 32.2.2; the stable form of 32.2.4 subtracts
// each row's maximum over the allowed keys). Families: no_max_shift,
// global_max, global_normaliser, max_over_forbidden, max_floor, wrong_axis,
// abs_weights, epsilon_denominator, quiet_softmax, transposed_output,
// outputs_swapped.
#include <limits>

#include "families.hpp"

namespace attn::mis::detail {

namespace {
void add_output_families(std::vector<Family>& out);
}  // namespace

void add_softmax_families(std::vector<Family>& out) {
  Knobs k;
  k.shift = Shift::none;
  out.push_back(family("no_max_shift",
                       "The softmax exponentiates the raw logits: exp overflows (Inf/Inf = NaN) "
                       "for large logits and underflows (0/0) for very negative ones.",
                       "Shift invariance and the stable softmax, section 32.2.4",
                       "max_floor (only the underflow side), global_max (rows of different scale)",
                       kValueOps, [k](Operation) { return with_and_without_guard("no_max_shift", {}, k); }));
  k = Knobs{};
  k.shift = Shift::global_max;
  out.push_back(family("global_max",
                       "The maximum of the whole matrix is subtracted instead of each row's, so "
                       "a row far below the largest one underflows to 0/0.",
                       "Stable softmax, section 32.2.4 (per-row maximum)",
                       "no_max_shift (overflow), global_normaliser (one sum for every row)",
                       kValueOps, [k](Operation) { return with_and_without_guard("global_max", {}, k); }));
  k = Knobs{};
  k.shift = Shift::global_max;
  k.norm = Norm::global;
  out.push_back(family("global_normaliser",
                       "The exponentials are divided by one sum over the whole matrix instead "
                       "of each row's sum.",
                       "Definition 32.2.2 (softmax of each row)",
                       "global_max (rows sum to 1 there), wrong_axis", kValueOps,
                       single("global_normaliser", k)));
  k = Knobs{};
  k.shift = Shift::max_all_logits;
  k.full_row = FullRow::refuse;
  out.push_back(family("max_over_forbidden",
                       "The row maximum is taken over every logit, forbidden ones included; a "
                       "large forbidden logit underflows the allowed weights to 0/0.",
                       "Stable softmax over the allowed keys, sections 32.2.4 and 32.2.8 (F2)",
                       "post_softmax_renormalised computes the same values but answers a fully "
                       "forbidden row with NaN; this one refuses it",
                       kMaskedOps, single("max_over_forbidden", k)));
  out.push_back(family(
      "max_floor",
      "The running maximum starts from a finite floor (-10000.0f as in llm.c, -1e9...) instead "
      "of -inf, so a row whose logits are all below the floor underflows to 0/0 (or, guarded, "
      "to weights 0).",
      "Stable softmax, section 32.2.4; llm.c's softmax_forward seeds maxval = -10000.0f",
      "the floor is fitted; rows of logits just below each candidate floor tell them apart",
      kValueOps, [](Operation) {
        std::vector<Model> v;
        const std::pair<double, const char*> floors[] = {
            {0.0, "0"}, {-1e4, "-1e4"}, {-1e9, "-1e9"}, {-1e20, "-1e20"}, {-1e30, "-1e30"},
            {-double(std::numeric_limits<float>::max()), "float lowest"}};
        for (const auto& [f, t] : floors) {
          Knobs k;
          k.shift = Shift::floor;
          k.floor = f;
          for (Model& m : with_and_without_guard("max_floor", {{"floor", f, t}}, k))
            v.push_back(std::move(m));
        }
        return v;
      }));
  k = Knobs{};
  k.shift = Shift::column_max;
  k.norm = Norm::column;
  out.push_back(family("wrong_axis",
                       "The softmax normalises each column (over the queries) instead of each "
                       "row (over the keys).",
                       "Definition 32.2.2 (rows of A sum to 1)",
                       "global_normaliser; needs T_q > 1 (one query row hides it)", kValueOps,
                       single("wrong_axis", k)));
  k = Knobs{};
  k.norm = Norm::abs_values;
  out.push_back(family("abs_weights",
                       "The logits are normalised by the sum of (|s| + 1) instead of being "
                       "exponentiated.",
                       "Definition 32.2.2 (softmax)", "every exponential model: ties differ",
                       kValueOps, single("abs_weights", k)));
  out.push_back(family(
      "epsilon_denominator",
      "An epsilon is added to the softmax denominator \"for safety\", so rows sum to "
      "Z/(Z + eps) < 1.",
      "Definition 32.2.2 (rows sum to 1); TOLERANCE.md (1e-12 is 1e3 times the double bound)",
      "epsilon is fitted; rows with a small normaliser Z (one dominant negative logit) show it",
      kValueOps, [](Operation) {
        std::vector<Model> v;
        for (double e : {1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6,
                         1e-5, 1e-4}) {
          Knobs k;
          k.eps = e;
          v.push_back(knob_model("epsilon_denominator", {{"epsilon", e, num_text(e)}}, k));
        }
        return v;
      }));
  out.push_back(family(
      "quiet_softmax",
      "The softmax's denominator has an extra exp(0 - max), an implicit extra logit 0 "
      "(softmax1, the \"quiet softmax\": exp(s_j) / (1 + sum_k exp(s_k))), so no row sums to 1 "
      "and a fully forbidden row is answered (zeros, or NaN from exp(-inf - (-inf))) instead of "
      "refused.",
      "Definition 32.2.2 (rows sum to 1); E. Miller, \"Attention Is Off By One\" (2023); burn's "
      "quiet_softmax",
      "epsilon_denominator (a constant, not exp(-max)); the answer to a fully forbidden row is "
      "fitted",
      {Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
       Operation::multi_head_attention},
      [](Operation) {
        std::vector<Model> v;
        const std::pair<FullRow, const char*> answers[] = {{FullRow::zeros, "zeros"},
                                                          {FullRow::nan, "NaN"}};
        double i = 0;
        for (const auto& [f, t] : answers) {
          Knobs k;
          k.extra_zero_logit = true;
          k.full_row = f;
          v.push_back(knob_model("quiet_softmax", {{"a fully forbidden row gives", ++i, t}}, k));
        }
        return v;
      }));
  add_output_families(out);
}

namespace {
/// What is returned, not how it is computed: the weights transposed, the
/// pair swapped.
void add_output_families(std::vector<Family>& out) {
  Knobs k;
  k.output = Output::A_transposed;
  out.push_back(family("transposed_output",
                       "The weights are returned transposed, T_v x T_q (keys by queries).",
                       "Lemma 1, section 32.2.3 (A is T_q x T_v)",
                       "wrong_axis (right shape there); T_q != T_v shows the shape",
                       {Operation::softmax_rows, Operation::masked_softmax, Operation::attention},
                       single("transposed_output", k)));
  k = Knobs{};
  k.output = Output::swapped;
  out.push_back(family("outputs_swapped",
                       "The pair is returned as (A, O) instead of (O, A).",
                       "Exercise F3's interface (returns O, A)", "transposed_output",
                       {Operation::attention}, single("outputs_swapped", k)));
}
}  // namespace

}  // namespace attn::mis::detail
