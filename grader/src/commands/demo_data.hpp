#pragma once
// The lecture demonstrations as numbers (`attnlab demo masking|scaling|shift|
// weights --size N --mask causal|padding|none --d-k D --seed S --example
// random|text --format text|csv|json --svg FILE`): either the text's own
// example (`--example text`) or random Q and K (entries N(0, 1),
// std::mt19937_64 seeded with S, so a seed gives the same numbers on every
// run of a build), and the weight matrices ("panels") the demonstration
// compares:
//   masking: the correct weights (mask before the softmax, Lemma 2) and F4's
//            post-softmax weights (softmax over every key, forbidden set to 0);
//            the text's example: the two-token example of 32.2.6 (2 x 2);
//   scaling: the weights with and without 1/sqrt(d_k) (section 14.3); the
//            text's example: query [1, 1] times 1, 4 and 16 against 14.3's keys;
//   shift:   the softmax of logits offset by kShiftOffset, computed from its
//            definition (exp overflows: inf / inf = NaN) and with the row's
//            maximum subtracted (section 32.2.4); the text's example: the logits
//            [1000, 999, 990];
//   weights: the weights A and each key's share of the output, A_ij ||v_j|| /
//            sum_j' A_ij' ||v_j'|| (section 32.2.10), for values of unequal
//            lengths (row j of V is e^{z_j} times an N(0, 1) vector, z_j
//            N(0, 1)); the text's example: A = [0.1, 0.9], v1 = [10, 0],
//            v2 = [-1, 0].
// Each panel has a key (its name in CSV and JSON: "correct", "post_softmax",
// "scaled", "unscaled", "definition", "stable", "weights", "contributions").
// Formats: text (the side-by-side rows and the statistics), csv (one line per
// entry: panel,row,col,weight,forbidden, the panel named by its key), json
// (inputs, the panels as nested lists, row sums, statistics); the SVG
// (demo_svg.hpp) draws the panels.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace attn::grader {

/// The demonstrations that have panels (and so every format), in list order.
const std::vector<std::string>& panel_demos();

/// The logit offset of the shift demonstration on random inputs: exp(1000)
/// overflows double (its largest finite value is about e^709.78).
inline constexpr double kShiftOffset = 1000.0;

struct DemoInputs {
  int size = 6;                 ///< T_q = T_v
  std::string mask = "causal";  ///< "causal", "padding" (last third of keys), "none"
  int d_k = 64;
  std::uint64_t seed = 1;
  bool text_example = false;    ///< the text's own example instead of random inputs
};

/// One weight matrix of a demonstration, with what to mark.
struct DemoPanel {
  std::string key;    ///< "correct", its name in CSV and JSON
  std::string title;  ///< "correct: mask before the softmax"
  Matrix<double> A;   ///< T_q x T_v; NaN where the computation shown gives NaN
  Mask forbidden;     ///< cells drawn as forbidden (empty: none)
};

struct DemoData {
  std::string name;     ///< "masking", "scaling", "shift", "weights"
  std::string heading;  ///< the figure's title
  std::string inputs_line;  ///< "T = 6, d_k = 64, causal mask, seed 1; Q, K entries N(0, 1)"
  std::string note;     ///< what the panels show and why (text format)
  DemoInputs inputs;
  std::vector<DemoPanel> panels;
  /// Per panel: mean row entropy (nats) and mean largest weight; NaN when a
  /// row is not a distribution (it does not sum to 1, or holds NaN).
  std::vector<double> entropy, largest;
  /// Per panel: the entropy reference, uniform_entropy(P.forbidden, P.A):
  /// the largest mean row entropy a row-stochastic matrix with the panel's
  /// mask can have (nats).
  std::vector<double> uniform;
};

/// True when some panel of `d` has a forbidden cell.
bool has_forbidden(const DemoData& d);

/// Random Q and K (T x d_k each, entries N(0, 1)) from std::mt19937_64
/// seeded with `seed`: Q's entries first, row by row, then K's. Every
/// demonstration on random inputs draws its Q and K here.
void demo_random_qk(Index T, Index d_k, std::uint64_t seed, Matrix<double>& Q, Matrix<double>& K);

/// The mean over rows of -sum_j a_ij log a_ij (nats; 0 log 0 = 0); NaN when
/// a row does not sum to 1 within 1e-9 or holds NaN (no distribution).
double mean_row_entropy(const Matrix<double>& A);

/// The mean over rows of log(number of keys the row may see) (nats): the
/// mean row entropy of the weights uniform over each row's allowed keys, and
/// the largest any row-stochastic T_q x T_v matrix with `forbidden` can have
/// (the entropy of a distribution on n outcomes is at most log n). With a
/// causal T x T mask it is mean_i log(i + 1), not log T. `forbidden` is
/// T_q x T_v (true = forbidden) or empty (no mask; then log T_v). A row with
/// no allowed key counts 0.
double uniform_entropy(const Mask& forbidden, const Matrix<double>& A);

/// The mean over rows of the row's largest weight; NaN when a row holds NaN.
double mean_largest_weight(const Matrix<double>& A);

/// The panels of `name` (one of panel_demos()) on `in`. Throws
/// std::invalid_argument for another name, a size outside 1..64, a d_k
/// outside 1..4096, an unknown mask.
DemoData demo_data(const std::string& name, const DemoInputs& in);

/// Writes `d` as text, csv or json (`format`). Throws std::invalid_argument
/// for another format.
void write_demo(std::ostream& out, const DemoData& d, const std::string& format);

}  // namespace attn::grader
