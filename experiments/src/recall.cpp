// The associative-recall model of exercise F5 and its gradient (recall.hpp).
#include "attn/exp/recall.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attn/attention_backward.hpp"
#include "attn/attention_tiled.hpp"

namespace attn::exp {
namespace {

void check_task(const RecallTask& t) {
  if (t.pairs < 1 || t.d_in < 1 || t.d_v < 1 || !(t.noise >= 0) || !std::isfinite(t.noise))
    throw std::invalid_argument("recall task: pairs, d_in and d_v must be >= 1 and noise finite and >= 0, got pairs " +
                                std::to_string(t.pairs) + ", d_in " + std::to_string(t.d_in) + ", d_v " +
                                std::to_string(t.d_v) + ", noise " + std::to_string(t.noise));
}

Matrix<double> gaussian(Index rows, Index cols, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Matrix<double> m(rows, cols);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) m(r, c) = sd * n(rng);
  return m;
}

void check_fit(const RecallModel& m, const RecallBatch& b) {
  if (m.W_Q.rows() != m.W_K.rows() || m.W_Q.cols() != m.W_K.cols() || m.W_Q.size() == 0)
    throw std::invalid_argument("recall model: W_Q and W_K must both be d_in x d_k, got " +
                                std::to_string(m.W_Q.rows()) + " x " + std::to_string(m.W_Q.cols()) + " and " +
                                std::to_string(m.W_K.rows()) + " x " + std::to_string(m.W_K.cols()));
  if (b.Y.size() != b.examples() || b.V.size() != b.examples() || b.target.size() != b.examples() ||
      b.examples() == 0)
    throw std::invalid_argument("recall batch: X, Y, V and target must hold the same number (>= 1) of examples");
  for (std::size_t e = 0; e < b.examples(); ++e) {
    const Index T = b.X[e].rows();
    const bool ok = b.X[e].cols() == m.W_K.rows() && b.Y[e].rows() == T && b.Y[e].cols() == m.W_Q.rows() &&
                    b.V[e].rows() == T && b.V[e].cols() == b.V[0].cols() && b.V[e].cols() >= 1 &&
                    static_cast<Index>(b.target[e].size()) == T;
    if (!ok)
      throw std::invalid_argument(
          "recall batch: example " + std::to_string(e) + " has X " + std::to_string(b.X[e].rows()) + " x " +
          std::to_string(b.X[e].cols()) + ", Y " + std::to_string(b.Y[e].rows()) + " x " +
          std::to_string(b.Y[e].cols()) + ", V " + std::to_string(b.V[e].rows()) + " x " +
          std::to_string(b.V[e].cols()) + " and " + std::to_string(b.target[e].size()) +
          " targets; the model needs X and Y T x " + std::to_string(m.W_Q.rows()) +
          ", V T x d_v (the same d_v in every example), T targets");
    for (int t : b.target[e])
      if (t < 0 || t >= T)
        throw std::invalid_argument("recall batch: example " + std::to_string(e) + " has target " +
                                    std::to_string(t) + " outside 0.." + std::to_string(T - 1));
  }
}

std::size_t query_count(const RecallBatch& b) {
  std::size_t n = 0;
  for (const auto& t : b.target) n += t.size();
  return n;
}

// One example's forward pass: O (T x d_v), with the loss's sum and the correct answers added in.
Matrix<double> forward(const Matrix<double>& Q, const Matrix<double>& K, const Matrix<double>& V,
                       const std::vector<int>& target, const AttentionOptions& options, double& squared_error,
                       std::size_t& correct) {
  // One tile of T x T: the default tiles (128 x 256) would allocate buffers
  // far larger than an example at every call. One thread: the runs of an
  // experiment are what runs in parallel.
  TileSizes tiles;
  tiles.query = std::max<Index>(1, Q.rows());
  tiles.key = std::max<Index>(1, K.rows());
  tiles.threads = 1;
  Matrix<double> O = attention_tiled<double>(Q, K, V, std::nullopt, options, tiles).O;
  for (Index i = 0; i < O.rows(); ++i) {
    const Index t = target[static_cast<std::size_t>(i)];
    const double own = (O.row(i) - V.row(t)).squaredNorm();
    squared_error += own;
    bool nearest = true;
    for (Index j = 0; j < V.rows() && nearest; ++j)
      if (j != t && (O.row(i) - V.row(j)).squaredNorm() <= own) nearest = false;
    correct += nearest ? 1 : 0;
  }
  return O;
}

template <bool kGradients>
RecallGradients run(const RecallModel& model, const RecallBatch& batch) {
  check_fit(model, batch);
  const AttentionOptions options{model.scale, false, CausalAlignment::top_left};
  const double n = static_cast<double>(query_count(batch));
  const double d_v = static_cast<double>(batch.V[0].cols());
  RecallGradients g;
  if (kGradients) {
    g.dW_Q = Matrix<double>::Zero(model.W_Q.rows(), model.W_Q.cols());
    g.dW_K = Matrix<double>::Zero(model.W_K.rows(), model.W_K.cols());
  }
  double squared_error = 0;
  std::size_t correct = 0;
  for (std::size_t e = 0; e < batch.examples(); ++e) {
    const Matrix<double> Q = batch.Y[e] * model.W_Q, K = batch.X[e] * model.W_K;
    const Matrix<double> O = forward(Q, K, batch.V[e], batch.target[e], options, squared_error, correct);
    if (!kGradients) continue;
    // dL/dO_i = 2 (O_i - v_{t(i)}) / (N d_v).
    Matrix<double> dO(O.rows(), O.cols());
    for (Index i = 0; i < O.rows(); ++i)
      dO.row(i) = (2.0 / (n * d_v)) * (O.row(i) - batch.V[e].row(batch.target[e][static_cast<std::size_t>(i)]));
    const AttentionGradients<double> a = attention_backward<double>(Q, K, batch.V[e], dO, std::nullopt, options);
    // Q = Y W_Q, so dL/dW_Q = Y^T dQ; likewise for K.
    g.dW_Q.noalias() += batch.Y[e].transpose() * a.dQ;
    g.dW_K.noalias() += batch.X[e].transpose() * a.dK;
  }
  g.score.loss = squared_error / (n * d_v);
  g.score.accuracy = static_cast<double>(correct) / n;
  return g;
}

}  // namespace

RecallBatch make_recall_batch(const RecallTask& task, int examples, std::mt19937_64& rng) {
  check_task(task);
  if (examples < 1) throw std::invalid_argument("make_recall_batch: examples must be >= 1, got " + std::to_string(examples));
  RecallBatch b;
  std::uniform_int_distribution<int> pick(0, task.pairs - 1);
  for (int e = 0; e < examples; ++e) {
    b.X.push_back(gaussian(task.pairs, task.d_in, 1.0, rng));
    b.V.push_back(gaussian(task.pairs, task.d_v, 1.0, rng));
    std::vector<int> t(static_cast<std::size_t>(task.pairs));
    for (int& ti : t) ti = pick(rng);
    Matrix<double> Y = gaussian(task.pairs, task.d_in, task.noise, rng);
    for (Index i = 0; i < Y.rows(); ++i) Y.row(i) += b.X.back().row(t[static_cast<std::size_t>(i)]);
    b.Y.push_back(std::move(Y));
    b.target.push_back(std::move(t));
  }
  return b;
}

RecallModel init_recall_model(int d_in, int d_k, std::optional<double> scale, std::mt19937_64& rng) {
  if (d_in < 1 || d_k < 1)
    throw std::invalid_argument("init_recall_model: d_in and d_k must be >= 1, got " + std::to_string(d_in) + " and " +
                                std::to_string(d_k));
  RecallModel m;
  const double sd = 1.0 / std::sqrt(static_cast<double>(d_in));
  m.W_Q = gaussian(d_in, d_k, sd, rng);
  m.W_K = gaussian(d_in, d_k, sd, rng);
  m.scale = scale;
  return m;
}

RecallGradients recall_gradients(const RecallModel& model, const RecallBatch& batch) { return run<true>(model, batch); }

RecallScore recall_score(const RecallModel& model, const RecallBatch& batch) { return run<false>(model, batch).score; }

Curve train_recall(const TrainSettings& s, const RecallBatch& validation) {
  check_task(s.task);
  if (s.d_k < 1 || s.steps < 0 || s.batch < 1 || !(s.learning_rate > 0) || !std::isfinite(s.learning_rate) ||
      s.eval_every < 1)
    throw std::invalid_argument("train_recall: d_k, batch and eval_every must be >= 1, steps >= 0 and the learning "
                                "rate finite and > 0");
  std::mt19937_64 rng(s.seed);
  RecallModel model = init_recall_model(s.task.d_in, s.d_k, s.scale, rng);
  // Adam's moments, one pair per parameter matrix.
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
  Matrix<double>* W[2] = {&model.W_Q, &model.W_K};
  Matrix<double> m[2], v[2];
  for (int p = 0; p < 2; ++p) m[p] = v[p] = Matrix<double>::Zero(W[p]->rows(), W[p]->cols());
  Curve curve;
  auto record = [&](int step) {
    curve.step.push_back(step);
    curve.score.push_back(recall_score(model, validation));
  };
  record(0);
  for (int step = 1; step <= s.steps; ++step) {
    const RecallBatch batch = make_recall_batch(s.task, s.batch, rng);
    const RecallGradients g = recall_gradients(model, batch);
    const Matrix<double>* grad[2] = {&g.dW_Q, &g.dW_K};
    if (s.optimizer == Optimizer::sgd) {
      for (int p = 0; p < 2; ++p) *W[p] -= s.learning_rate * *grad[p];
      if (step % s.eval_every == 0 || step == s.steps) record(step);
      continue;
    }
    const double c1 = 1.0 - std::pow(kBeta1, step), c2 = 1.0 - std::pow(kBeta2, step);
    for (int p = 0; p < 2; ++p) {
      m[p] = kBeta1 * m[p] + (1.0 - kBeta1) * *grad[p];
      v[p] = kBeta2 * v[p] + (1.0 - kBeta2) * grad[p]->cwiseProduct(*grad[p]);
      *W[p] -= (s.learning_rate * (m[p] / c1).array() / ((v[p] / c2).array().sqrt() + kEps)).matrix();
    }
    if (step % s.eval_every == 0 || step == s.steps) record(step);
  }
  return curve;
}

}  // namespace attn::exp
