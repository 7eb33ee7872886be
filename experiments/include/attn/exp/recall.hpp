#pragma once
// A one-layer attention model trained on associative recall: the runnable
// form of exercise F5 (section 32.2.8; the question of section 14.3: does
// dividing the logits by sqrt(d_k) help training?). Written on the library
// (lib/): the forward pass is attn::attention_tiled, the backward pass
// attn::attention_backward, both with the same AttentionOptions::scale; the
// projections' gradients and Adam are written out here. No framework.
//
// The task (one example): T key inputs x_1..x_T (d_in each, entries N(0, 1)),
// T values v_1..v_T (d_v each, entries N(0, 1)) and T queries; query i is
// y_i = x_{t(i)} + noise * N(0, I) for a key t(i) drawn uniformly. The
// answer to query i is v_{t(i)}: attention must put its weight on key t(i).
//
// The model: Q = Y W_Q, K = X W_K (T x d_k), O = softmax(c Q K^T) V
// (T x d_v), with c = 1/sqrt(d_k) (scaled, Lemma 1 of section 32.2.3 and
// section 14.3) or c = 1 (unscaled); the values are given, not projected,
// so W_Q and W_K (d_in x d_k each) are the only parameters. They start with
// entries N(0, 1/d_in), so Q and K have entries of variance 1 at every d_k,
// the premise of section 14.3's argument (a logit q.k then has variance d_k,
// and c = 1/sqrt(d_k) brings it back to 1).
//
// The loss over N queries: L = (1 / (N d_v)) sum_i ||O_i - v_{t(i)}||^2.
// A query is answered correctly when O_i is nearer (Euclidean) to v_{t(i)}
// than to every other value of its example.

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "attn/matrix.hpp"

namespace attn::exp {

/// The task's sizes. Every field must be >= 1 (noise >= 0).
struct RecallTask {
  int pairs = 16;      ///< T: keys (= values = queries) per example
  int d_in = 16;       ///< length of a key input x_j and of a query input y_i
  int d_v = 16;        ///< length of a value v_j
  double noise = 0.5;  ///< standard deviation of the noise added to a key input to make a query
};

/// A batch of examples, each its own T x d matrices.
struct RecallBatch {
  std::vector<Matrix<double>> X;               ///< key inputs, T x d_in each
  std::vector<Matrix<double>> Y;               ///< query inputs, T x d_in each
  std::vector<Matrix<double>> V;               ///< values, T x d_v each
  std::vector<std::vector<int>> target;        ///< t(i) per example, each in 0..T-1
  std::size_t examples() const { return X.size(); }
};

/// `examples` examples drawn from `rng` (in a fixed order, so one seed gives
/// one batch). Throws std::invalid_argument for examples < 1 or a task field
/// out of range.
RecallBatch make_recall_batch(const RecallTask& task, int examples, std::mt19937_64& rng);

/// The parameters. W_Q and W_K are d_in x d_k; scale is the factor c of the
/// logits: std::nullopt for 1/sqrt(d_k) (the library's default), 1.0 for
/// the unscaled model.
struct RecallModel {
  Matrix<double> W_Q, W_K;
  std::optional<double> scale;
};

/// W_Q and W_K with entries N(0, 1/d_in) drawn from `rng` (W_Q first, row by
/// row). Throws std::invalid_argument for d_in or d_k < 1.
RecallModel init_recall_model(int d_in, int d_k, std::optional<double> scale, std::mt19937_64& rng);

/// The loss L and the share of queries answered correctly (in [0, 1]).
struct RecallScore {
  double loss = 0;
  double accuracy = 0;
};

/// The loss, the accuracy and dL/dW_Q, dL/dW_K (d_in x d_k each) on `batch`:
/// per example, the forward pass with attn::attention_tiled and the backward
/// pass with attn::attention_backward (both with AttentionOptions{scale}),
/// dO_i = 2 (O_i - v_{t(i)}) / (N d_v), then dW_Q = sum Y^T dQ and
/// dW_K = sum X^T dK over the examples. Throws std::invalid_argument when
/// the batch's shapes do not fit the model's (naming the example and the
/// shapes), and what attention throws (e.g. NonFiniteInputError when a
/// logit overflows).
struct RecallGradients {
  RecallScore score;
  Matrix<double> dW_Q, dW_K;
};
RecallGradients recall_gradients(const RecallModel& model, const RecallBatch& batch);

/// The loss and the accuracy only (the forward pass). Throws as recall_gradients.
RecallScore recall_score(const RecallModel& model, const RecallBatch& batch);

/// The optimiser: Adam (Kingma and Ba 2015, "Adam: A Method for Stochastic
/// Optimization", Algorithm 1, with beta1 = 0.9, beta2 = 0.999, eps = 1e-8),
/// or plain stochastic gradient descent (W -= learning_rate dL/dW), whose
/// steps, unlike Adam's, shrink with the gradient.
enum class Optimizer { adam, sgd };

/// One training run at a constant learning rate, a fresh batch every step.
struct TrainSettings {
  RecallTask task;
  int d_k = 64;
  std::optional<double> scale;  ///< as RecallModel::scale
  int steps = 1000;             ///< >= 0
  int batch = 16;               ///< examples per step, >= 1
  double learning_rate = 1e-2;  ///< > 0
  Optimizer optimizer = Optimizer::adam;
  int eval_every = 20;          ///< the validation set is scored at step 0, every eval_every steps and at the end
  std::uint64_t seed = 1;       ///< draws the initial W_Q, W_K, then the batches, in that order
};

/// The learning curve: the validation score after `step[k]` steps.
struct Curve {
  std::vector<int> step;
  std::vector<RecallScore> score;
};

/// Trains from init_recall_model(task.d_in, d_k, scale, rng) with
/// rng = std::mt19937_64(seed) and scores `validation` along the way. Two
/// runs that differ only in `scale` start from the same W_Q, W_K and see the
/// same batches (a paired design). Throws std::invalid_argument for a
/// setting out of range, and what recall_gradients throws (in double, with
/// Adam's steps of at most about learning_rate per entry, a logit does not
/// overflow within the command's bounds; SGD at a large learning rate may
/// diverge, and a logit that overflows is attention's NonFiniteInputError).
Curve train_recall(const TrainSettings& settings, const RecallBatch& validation);

}  // namespace attn::exp
