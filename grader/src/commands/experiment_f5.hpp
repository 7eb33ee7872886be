#pragma once
// `attnlab experiment f5`: exercise F5 (section 32.2.8) run, not only
// designed. Section 14.3 argues that dividing the logits by sqrt(d_k) keeps
// them of order 1 when d_k grows, so the softmax does not saturate; F5 asks
// whether that makes training better. This trains the one-layer attention
// model of attn/exp/recall.hpp (associative recall) with c = 1/sqrt(d_k)
// (scaled) and c = 1 (unscaled) at each d_k and seed, the two arms of a seed
// starting from the same weights and seeing the same batches, and writes
// into --out DIR:
//   curves.csv          d_k,arm,seed,step,loss,accuracy: every run's validation curve
//   curves_summary.csv  d_k,arm,step,then loss and accuracy each as mean,min,q1,median,q3,max over the seeds
//   final.csv           d_k,arm,seed,final_loss,final_accuracy,mean_accuracy,steps_to_90
//   curves.svg          per d_k, validation loss and accuracy against step: mean line, min-max band
//   final.svg           per d_k, each seed's final accuracy and final loss, scaled beside unscaled, pairs joined
//   report.txt          the settings, the run time and, per d_k, whether the claim shows (also on stdout)
// The claim is judged per d_k by a paired one-sided sign test over the seeds
// (ties dropped) at level 0.05, on the area under the accuracy curve (the
// mean validation accuracy over the curve's points: "trains faster") and on
// the final validation loss ("trains better"); "shown", "reversed" (the
// unscaled arm significantly ahead) or "not shown" (F5Comparison).

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "attn/exp/recall.hpp"
#include "commands/demo_svg.hpp"

namespace attn::grader {

/// The defaults are the baseline of F5's model protocol
/// (solutions/F5/protocol.md): Adam at learning rate 1e-3, 64 examples per
/// step, 1000 steps, 10 seeds; fixed before the runs, tuned for neither arm.
struct F5Settings {
  std::vector<int> d_k{16, 64, 256};  ///< each 1..1024, at most 8 values
  int seeds = 10;                      ///< 2..100
  std::uint64_t seed = 1;              ///< the first seed; seeds seed, seed + 1, ...
  int steps = 1000;                    ///< 10..100000
  int batch = 64;                      ///< examples per step, 1..256
  double learning_rate = 1e-3;         ///< the optimiser's, [1e-6, 10]
  attn::exp::Optimizer optimizer = attn::exp::Optimizer::adam;  ///< --optimizer adam|sgd
  int jobs = 2;                        ///< runs at once, 1..64
  attn::exp::RecallTask task;          ///< T = d_in = d_v = 16, noise 0.5
  int validation_examples = 64;        ///< drawn once from kF5ValidationSeed
  int curve_points = 50;               ///< validation scored about this many times per run
};

/// The fixed data seed of the validation set (the same set for every run).
inline constexpr std::uint64_t kF5ValidationSeed = 0xF5F5F5;

struct F5Run {
  int d_k = 0;
  bool scaled = true;
  std::uint64_t seed = 0;
  attn::exp::Curve curve;
};

struct F5Result {
  F5Settings settings;
  std::vector<F5Run> runs;  ///< d_k-major, then seed, then scaled before unscaled
  double seconds = 0;       ///< wall-clock time of the runs
};

/// Checks `s` against the bounds above; throws std::invalid_argument naming
/// the option ("--d-k", "--seeds", ...).
void check_f5_settings(const F5Settings& s);

/// Runs every (d_k, seed, arm) on `s.jobs` threads; the result does not
/// depend on s.jobs. Writes one line per finished d_k to `progress`.
/// Throws as check_f5_settings and attn::exp::train_recall.
F5Result run_f5(const F5Settings& s, std::ostream& progress);

/// The report (what report.txt holds).
std::string f5_report(const F5Result& r);

/// The CSV files' contents.
std::string f5_curves_csv(const F5Result& r);
std::string f5_curves_summary_csv(const F5Result& r);
std::string f5_final_csv(const F5Result& r);

/// The figures (experiment_f5_svg.cpp).
std::string f5_curves_svg(const F5Result& r, const SvgStyle& style);
std::string f5_final_svg(const F5Result& r, const SvgStyle& style);

/// Writes the six files into `dir` (made if missing), each whole. Throws
/// std::runtime_error when one cannot be written.
void write_f5_outputs(const F5Result& r, const std::filesystem::path& dir, const SvgStyle& style);

/// One criterion of the paired comparison at one d_k, oriented so that a
/// positive difference means the scaled arm is ahead.
struct F5Criterion {
  std::string key;                ///< "faster", "better", "final_accuracy"
  std::string what;               ///< "mean validation accuracy over the curve", ...
  std::vector<double> difference;  ///< per seed: scaled minus unscaled (for a loss: unscaled minus scaled)
  int ahead = 0, behind = 0;      ///< seeds with difference > 0, < 0 (the rest tied, dropped)
  double p = 1, p_reversed = 1;   ///< one-sided sign tests: scaled ahead, unscaled ahead
  /// "shown" (p < 0.05), "reversed" (p_reversed < 0.05) or "not shown".
  std::string verdict() const;
};

/// The paired comparison of one d_k (the report's and the figures' numbers):
/// faster = the mean validation accuracy over the curve (the area under it),
/// better = the final validation loss (lower is ahead: the accuracy is
/// capped by the task's noise, the loss is not), and the final accuracy
/// (reported, not part of the summary).
struct F5Comparison {
  int d_k = 0;
  std::vector<F5Criterion> criteria;  ///< faster, better, final_accuracy
};
std::vector<F5Comparison> f5_compare(const F5Result& r);

/// P(X >= k) for X ~ Binomial(n, 1/2): the one-sided sign test's p-value.
double sign_test_p(int k, int n);

}  // namespace attn::grader
