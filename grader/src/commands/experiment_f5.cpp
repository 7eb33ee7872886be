// `attnlab experiment f5`: the runs, the paired comparison, the CSV files and
// the report (experiment_f5.hpp; the figures: experiment_f5_svg.cpp).
#include "commands/experiment_f5.hpp"
#include "commands/fixed_text.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <malloc.h>
#include <iomanip>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "commands/demo_sweep.hpp"
#include "sandbox/atomic_file.hpp"

namespace attn::grader {
namespace {

using attn::exp::Curve;

double mean_accuracy(const Curve& c) {
  double s = 0;
  for (const auto& p : c.score) s += p.accuracy;
  return c.score.empty() ? 0.0 : s / static_cast<double>(c.score.size());
}

/// The first step whose validation accuracy is at least 0.9, or -1.
int steps_to_90(const Curve& c) {
  for (std::size_t k = 0; k < c.step.size(); ++k)
    if (c.score[k].accuracy >= 0.9) return c.step[k];
  return -1;
}

const F5Run& run_at(const F5Result& r, std::size_t d, std::size_t seed, bool scaled) {
  return r.runs[(d * static_cast<std::size_t>(r.settings.seeds) + seed) * 2 + (scaled ? 0 : 1)];
}

std::string arm(bool scaled) { return scaled ? "scaled" : "unscaled"; }


std::string p_text(double p) { return p < 0.001 ? "< 0.001" : "= " + fixed_text(p, 3); }

}  // namespace

void check_f5_settings(const F5Settings& s) {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  if (s.d_k.empty() || s.d_k.size() > 8) bad("--d-k must list 1 to 8 values");
  for (int d : s.d_k)
    if (d < 1 || d > 1024) bad("--d-k values must be from 1 to 1024, got " + std::to_string(d));
  for (std::size_t i = 0; i < s.d_k.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s.d_k[i] == s.d_k[j]) bad("--d-k lists " + std::to_string(s.d_k[i]) + " twice");
  if (s.seeds < 2 || s.seeds > 100) bad("--seeds must be from 2 to 100 (the spread needs two)");
  if (s.steps < 10 || s.steps > 100000) bad("--steps must be from 10 to 100000");
  if (s.batch < 1 || s.batch > 256) bad("--batch must be from 1 to 256");
  if (!(s.learning_rate >= 1e-6 && s.learning_rate <= 10)) bad("--lr must be from 1e-6 to 10");
  if (s.jobs < 1 || s.jobs > 64) bad("--jobs must be from 1 to 64");
  if (s.validation_examples < 1 || s.curve_points < 1) bad("the validation set and the curve need >= 1 point");
}

double sign_test_p(int k, int n) {
  if (n <= 0) return 1.0;
  // sum_{i=k}^{n} C(n, i) / 2^n, in logs so that n = 100 stays exact enough.
  double p = 0;
  for (int i = std::max(k, 0); i <= n; ++i)
    p += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::min(1.0, p);
}

F5Result run_f5(const F5Settings& s, std::ostream& progress) {
  check_f5_settings(s);
  F5Result r;
  r.settings = s;
  for (int d : s.d_k)
    for (int k = 0; k < s.seeds; ++k)
      for (bool scaled : {true, false}) r.runs.push_back({d, scaled, s.seed + static_cast<std::uint64_t>(k), {}});
  std::mt19937_64 data(kF5ValidationSeed);
  const attn::exp::RecallBatch validation = attn::exp::make_recall_batch(s.task, s.validation_examples, data);
  const int eval_every = std::max(1, s.steps / s.curve_points);

  // Each training step allocates and frees many small matrices (the library
  // copies its inputs and results, abi.hpp); glibc would hand the freed top
  // of each thread's heap back to the system and fault it in again on the
  // next step (madvise and page faults were over half the run time). Keep up
  // to 64 MiB per heap instead (mallopt(3), M_TRIM_THRESHOLD, M_TOP_PAD).
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  const auto start = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  std::mutex lock;
  std::exception_ptr failure;
  std::vector<int> left(s.d_k.size(), 2 * s.seeds);
  // Largest d_k first, so that the longest runs do not start last.
  std::vector<std::size_t> order(r.runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r.runs[a].d_k > r.runs[b].d_k; });
  auto worker = [&] {
    for (std::size_t i; (i = next++) < order.size();) {
      F5Run& run = r.runs[order[i]];
      try {
        attn::exp::TrainSettings t;
        t.task = s.task;
        t.d_k = run.d_k;
        t.scale = run.scaled ? std::nullopt : std::optional<double>(1.0);
        t.steps = s.steps;
        t.batch = s.batch;
        t.learning_rate = s.learning_rate;
        t.optimizer = s.optimizer;
        t.eval_every = eval_every;
        t.seed = run.seed;
        run.curve = attn::exp::train_recall(t, validation);
      } catch (...) {
        std::lock_guard<std::mutex> g(lock);
        if (!failure) failure = std::current_exception();
        next = order.size();
        return;
      }
      std::lock_guard<std::mutex> g(lock);
      const std::size_t d = static_cast<std::size_t>(std::find(s.d_k.begin(), s.d_k.end(), run.d_k) - s.d_k.begin());
      if (--left[d] == 0)
        progress << "d_k = " << run.d_k << ": " << 2 * s.seeds << " runs done after "
                 << fixed_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1)
                 << " s\n" << std::flush;
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < s.jobs; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string F5Criterion::verdict() const {
  return p < 0.05 ? "shown" : p_reversed < 0.05 ? "reversed" : "not shown";
}

std::vector<F5Comparison> f5_compare(const F5Result& r) {
  std::vector<F5Comparison> out;
  for (std::size_t d = 0; d < r.settings.d_k.size(); ++d) {
    F5Comparison c;
    c.d_k = r.settings.d_k[d];
    c.criteria = {{"faster", "mean validation accuracy over the curve", {}, 0, 0, 1, 1},
                  {"better", "final validation loss (lower)", {}, 0, 0, 1, 1},
                  {"final_accuracy", "final validation accuracy", {}, 0, 0, 1, 1}};
    for (std::size_t k = 0; k < static_cast<std::size_t>(r.settings.seeds); ++k) {
      const Curve &sc = run_at(r, d, k, true).curve, &un = run_at(r, d, k, false).curve;
      c.criteria[0].difference.push_back(mean_accuracy(sc) - mean_accuracy(un));
      c.criteria[1].difference.push_back(un.score.back().loss - sc.score.back().loss);
      c.criteria[2].difference.push_back(sc.score.back().accuracy - un.score.back().accuracy);
    }
    for (F5Criterion& k : c.criteria) {
      for (double x : k.difference) {
        k.ahead += x > 0 ? 1 : 0;
        k.behind += x < 0 ? 1 : 0;
      }
      k.p = sign_test_p(k.ahead, k.ahead + k.behind);
      k.p_reversed = sign_test_p(k.behind, k.ahead + k.behind);
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string f5_curves_csv(const F5Result& r) {
  std::ostringstream o;
  o << "d_k,arm,seed,step,loss,accuracy\n" << std::setprecision(17);
  for (const auto& run : r.runs)
    for (std::size_t k = 0; k < run.curve.step.size(); ++k)
      o << run.d_k << "," << arm(run.scaled) << "," << run.seed << "," << run.curve.step[k] << ","
        << run.curve.score[k].loss << "," << run.curve.score[k].accuracy << "\n";
  return o.str();
}

std::string f5_curves_summary_csv(const F5Result& r) {
  std::ostringstream o;
  o << "d_k,arm,step";
  for (const char* m : {"loss", "accuracy"})
    for (const char* s : {"mean", "min", "q1", "median", "q3", "max"}) o << "," << m << "_" << s;
  o << "\n" << std::setprecision(17);
  const auto seeds = static_cast<std::size_t>(r.settings.seeds);
  for (std::size_t d = 0; d < r.settings.d_k.size(); ++d)
    for (bool scaled : {true, false}) {
      const std::size_t points = run_at(r, d, 0, scaled).curve.step.size();
      for (std::size_t p = 0; p < points; ++p) {
        std::vector<double> loss, acc;
        for (std::size_t k = 0; k < seeds; ++k) {
          loss.push_back(run_at(r, d, k, scaled).curve.score[p].loss);
          acc.push_back(run_at(r, d, k, scaled).curve.score[p].accuracy);
        }
        o << r.settings.d_k[d] << "," << arm(scaled) << "," << run_at(r, d, 0, scaled).curve.step[p];
        for (const auto& v : {loss, acc}) {
          const Spread s = spread_of(v);
          o << "," << s.mean << "," << s.min << "," << s.q1 << "," << s.median << "," << s.q3 << "," << s.max;
        }
        o << "\n";
      }
    }
  return o.str();
}

std::string f5_final_csv(const F5Result& r) {
  std::ostringstream o;
  o << "d_k,arm,seed,final_loss,final_accuracy,mean_accuracy,steps_to_90\n" << std::setprecision(17);
  for (const auto& run : r.runs) {
    const int s90 = steps_to_90(run.curve);
    o << run.d_k << "," << arm(run.scaled) << "," << run.seed << "," << run.curve.score.back().loss << ","
      << run.curve.score.back().accuracy << "," << mean_accuracy(run.curve) << ","
      << (s90 < 0 ? std::string() : std::to_string(s90)) << "\n";
  }
  return o.str();
}

std::string f5_report(const F5Result& r) {
  const F5Settings& s = r.settings;
  std::ostringstream o;
  o << "Exercise F5 run: does dividing the logits by sqrt(d_k) help training? (sections 14.3, 32.2.8)\n"
    << "Task: associative recall, T = " << s.task.pairs << " key-value pairs per example, key inputs d_in = "
    << s.task.d_in << ", values d_v = " << s.task.d_v << ", query = a key's input + N(0, " << s.task.noise
    << "^2) noise.\n"
    << "Model: O = softmax(c (Y W_Q)(X W_K)^T) V, W_Q, W_K d_in x d_k, entries N(0, 1/d_in) (Q, K of unit variance).\n"
    << "Arms: scaled c = 1/sqrt(d_k), unscaled c = 1; seed k starts both from the same weights, same batches.\n"
    << "Training: " << (s.optimizer == attn::exp::Optimizer::adam ? "Adam" : "SGD") << ", learning rate " << s.learning_rate << ", " << s.batch << " examples per step, " << s.steps
    << " steps; " << s.seeds << " seeds from " << s.seed << "; validation: " << s.validation_examples
    << " examples (" << s.validation_examples * s.task.pairs << " queries) from a fixed data seed.\n"
    << "Run time: " << fixed_text(r.seconds, 1) << " s on " << s.jobs << " thread" << (s.jobs == 1 ? "" : "s") << ".\n\n"
    << "Per d_k, over the seeds: mean [min, max]. 'mean acc' = mean validation accuracy over the curve\n"
    << "(the area under it: faster learning raises it); 'final acc' = at the last step; 'to 90%' = median\n"
    << "step at which validation accuracy first reached 0.9 (runs that never did are counted apart).\n"
    << "Verdict: paired one-sided sign test over the seeds (ties dropped), level 0.05; 'faster' on the\n"
    << "mean acc, 'better' on the final loss (the accuracy is capped by the queries' noise, the loss is\n"
    << "not); the final acc is compared too but not summarised. 'Scaled ahead by': scaled minus unscaled\n"
    << "(unscaled minus scaled for the loss), mean [min, max] over the seeds.\n";
  if (s.seeds < 5)
    o << "With " << s.seeds << " seeds no verdict can be 'shown': the sign test's smallest p is 2^-" << s.seeds
      << " = " << fixed_text(std::ldexp(1.0, -s.seeds), 4) << ", not below 0.05 (use 5 seeds or more).\n";
  o << "\n";
  const auto seeds = static_cast<std::size_t>(s.seeds);
  auto cell = [](const std::vector<double>& v, int digits) {
    const Spread sp = spread_of(v);
    return fixed_text(sp.mean, digits) + " [" + fixed_text(sp.min, digits) + ", " + fixed_text(sp.max, digits) + "]";
  };
  const std::vector<F5Comparison> cmp = f5_compare(r);
  std::ostringstream summary;
  for (std::size_t d = 0; d < s.d_k.size(); ++d) {
    o << "d_k = " << s.d_k[d] << "\n";
    for (bool scaled : {true, false}) {
      std::vector<double> auc, fin, loss, s90;
      int never = 0;
      for (std::size_t k = 0; k < seeds; ++k) {
        const Curve& c = run_at(r, d, k, scaled).curve;
        auc.push_back(mean_accuracy(c));
        fin.push_back(c.score.back().accuracy);
        loss.push_back(c.score.back().loss);
        const int t = steps_to_90(c);
        if (t < 0) ++never;
        else s90.push_back(t);
      }
      o << "  " << std::left << std::setw(9) << arm(scaled) << std::right << " mean acc " << cell(auc, 3)
        << "  final acc " << cell(fin, 3) << "  final loss " << cell(loss, 4) << "  to 90%: "
        << (s90.empty() ? "never" : fixed_text(spread_of(s90).median, 0))
        << (never > 0 && !s90.empty() ? " (never in " + std::to_string(never) + " of " + std::to_string(seeds) + ")" : "")
        << "\n";
    }
    const char* const label[3] = {"scaled trains faster (mean acc)", "scaled ends better (final loss)",
                                  "final acc"};
    for (std::size_t k = 0; k < cmp[d].criteria.size(); ++k) {
      const F5Criterion& c = cmp[d].criteria[k];
      const std::string v = c.verdict() == "reversed" ? "reversed (the unscaled arm is ahead)" : c.verdict();
      o << "  " << label[k] << ": " << v << ". Scaled ahead by " << cell(c.difference, k == 1 ? 4 : 3)
        << "; ahead in " << c.ahead << ", behind in " << c.behind << ", tied in "
        << s.seeds - c.ahead - c.behind << " of " << s.seeds << " seeds (sign test p "
        << (c.verdict() == "reversed" ? p_text(c.p_reversed) + " for the unscaled arm ahead" : p_text(c.p)) << ")\n";
    }
    o << "\n";
    summary << "  d_k = " << std::setw(4) << s.d_k[d] << ": faster " << cmp[d].criteria[0].verdict() << "; better "
            << cmp[d].criteria[1].verdict() << "\n";
  }
  o << "Summary of the text's claim (section 14.3: the scale keeps the logits of order 1, so training goes better):\n"
    << summary.str()
    << "Limits: one synthetic task, one layer, one optimiser at one learning rate, tuned for neither arm;\n"
    << (s.optimizer == attn::exp::Optimizer::adam
            ? "Adam's per-parameter step sizes partly absorb a change of the logits' scale (--optimizer sgd\n"
              "does not), and another optimiser or learning rate may rank the arms differently.\n"
            : "plain SGD's steps scale with the gradient, so its learning rate favours one arm or the\n"
              "other; another learning rate may rank the arms differently.\n")
    << "What shows here is this setting's.\n";
  return o.str();
}

void write_f5_outputs(const F5Result& r, const std::filesystem::path& dir, const SvgStyle& style) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot make the folder " + dir.string() + ": " + ec.message());
  write_files_atomically({{dir / "curves.csv", f5_curves_csv(r)},
                          {dir / "curves_summary.csv", f5_curves_summary_csv(r)},
                          {dir / "final.csv", f5_final_csv(r)},
                          {dir / "curves.svg", f5_curves_svg(r, style)},
                          {dir / "final.svg", f5_final_svg(r, style)},
                          {dir / "report.txt", f5_report(r)}});
}

}  // namespace attn::grader
