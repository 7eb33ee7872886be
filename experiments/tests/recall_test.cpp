// The F5 recall model (attn/exp/recall.hpp): its hand gradient against a
// central finite difference of its own loss, its accuracy on models whose
// answer is known, and one short training run that must learn.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <random>

#include "attn/exp/recall.hpp"

using attn::Index;
using attn::Matrix;
using namespace attn::exp;

namespace {

// Central difference of the loss along entry (r, c) of W_Q (which = 0) or W_K (1).
double central_difference(RecallModel m, const RecallBatch& b, int which, Index r, Index c, double h) {
  Matrix<double>& W = which == 0 ? m.W_Q : m.W_K;
  const double w = W(r, c);
  W(r, c) = w + h;
  const double up = recall_score(m, b).loss;
  W(r, c) = w - h;
  const double down = recall_score(m, b).loss;
  return (up - down) / (2 * h);
}

// The largest |hand - difference| over every entry, relative to the largest |difference|.
double gradient_error(const RecallModel& m, const RecallBatch& b, double factor = 1.0) {
  const RecallGradients g = recall_gradients(m, b);
  double worst = 0, largest = 0;
  for (int which = 0; which < 2; ++which) {
    const Matrix<double>& G = which == 0 ? g.dW_Q : g.dW_K;
    for (Index r = 0; r < G.rows(); ++r)
      for (Index c = 0; c < G.cols(); ++c) {
        const double fd = central_difference(m, b, which, r, c, 1e-5);
        worst = std::max(worst, std::abs(factor * G(r, c) - fd));
        largest = std::max(largest, std::abs(fd));
      }
  }
  REQUIRE(largest > 1e-4);  // non-vacuous: a gradient of zeros would not match
  return worst / largest;
}

}  // namespace

TEST_CASE("recall model: the hand gradient matches a central finite difference of the loss") {
  const RecallTask task{5, 3, 2, 0.5};
  std::mt19937_64 rng(7);
  const RecallBatch b = make_recall_batch(task, 3, rng);
  for (const std::optional<double> scale : {std::optional<double>{}, std::optional<double>{1.0}}) {
    for (int d_k : {1, 4, 9}) {
      INFO("d_k " << d_k << (scale ? ", unscaled" : ", scaled"));
      const RecallModel m = init_recall_model(task.d_in, d_k, scale, rng);
      // The difference's error: h^2 |f'''| / 6 + eps |f| / h, about 1e-10 here,
      // far below 1e-6 of the gradient; a wrong factor of 1.01 is 1e-2.
      CHECK(gradient_error(m, b) < 1e-6);
      CHECK(gradient_error(m, b, 1.01) > 1e-3);
    }
  }
}

TEST_CASE("recall model: the scale enters the gradient (the scaled and unscaled gradients differ)") {
  const RecallTask task{4, 3, 2, 0.5};
  std::mt19937_64 rng(11);
  const RecallBatch b = make_recall_batch(task, 2, rng);
  RecallModel scaled = init_recall_model(task.d_in, 16, std::nullopt, rng);
  RecallModel unscaled = scaled;
  unscaled.scale = 1.0;
  const RecallGradients gs = recall_gradients(scaled, b), gu = recall_gradients(unscaled, b);
  CHECK(gs.score.loss != gu.score.loss);
  CHECK((gs.dW_Q - gu.dW_Q).norm() > 1e-3 * gs.dW_Q.norm());
}

TEST_CASE("recall model: accuracy is 1 when W_Q W_K^T is a large multiple of I, chance-like when it is 0") {
  const RecallTask task{8, 64, 5, 0.0};
  std::mt19937_64 rng(3);
  const RecallBatch b = make_recall_batch(task, 20, rng);
  // The premise, checked rather than assumed: with noise 0 each query's own
  // key input has the largest dot product with it, by a margin of at least 4.
  for (std::size_t e = 0; e < b.examples(); ++e)
    for (Index i = 0; i < b.Y[e].rows(); ++i) {
      const Index t = b.target[e][static_cast<std::size_t>(i)];
      for (Index j = 0; j < b.X[e].rows(); ++j)
        if (j != t) REQUIRE(b.Y[e].row(i).dot(b.X[e].row(t)) > b.Y[e].row(i).dot(b.X[e].row(j)) + 4);
    }
  RecallModel sharp;
  sharp.W_Q = 4.0 * Matrix<double>::Identity(64, 64);
  sharp.W_K = 4.0 * Matrix<double>::Identity(64, 64);
  sharp.scale = 1.0;
  // Logits 16 y_i.x_j: the own key's is above every other's by at least 64,
  // so each weight row is one-hot on t(i) (exp(-64) ~ 1e-28) and O_i = v_{t(i)}.
  const RecallScore s = recall_score(sharp, b);
  CHECK(s.accuracy == 1.0);
  CHECK(s.loss < 1e-20);
  RecallModel flat = sharp;
  flat.W_Q.setZero();
  // Equal logits: O_i is the mean of the values, the same for every query of
  // an example, so at most one value of the example's 8 can be nearest to it
  // and accuracy is at most the share of queries aimed at that key.
  const RecallScore f = recall_score(flat, b);
  CHECK(f.accuracy < 0.5);
  CHECK(f.loss > 0.5);
}

TEST_CASE("recall model: shapes that do not fit are refused, naming the example") {
  const RecallTask task{4, 3, 2, 0.5};
  std::mt19937_64 rng(5);
  RecallBatch b = make_recall_batch(task, 2, rng);
  const RecallModel m = init_recall_model(3, 4, std::nullopt, rng);
  b.Y[1] = Matrix<double>::Zero(4, 2);
  CHECK_THROWS_WITH(recall_score(m, b), Catch::Contains("example 1"));
  b = make_recall_batch(task, 2, rng);
  b.target[0][2] = 4;
  CHECK_THROWS_WITH(recall_score(m, b), Catch::Contains("target 4 outside 0..3"));
  CHECK_THROWS_AS(init_recall_model(0, 4, std::nullopt, rng), std::invalid_argument);
  CHECK_THROWS_AS(make_recall_batch(RecallTask{0, 3, 2, 0.5}, 1, rng), std::invalid_argument);
}

TEST_CASE("recall model: a short scaled run learns the task (validation accuracy from below 0.5 to above 0.8)") {
  TrainSettings s;
  s.task = RecallTask{8, 8, 8, 0.3};
  s.d_k = 16;
  s.steps = 300;
  s.batch = 16;
  s.learning_rate = 3e-2;
  s.eval_every = 100;
  std::mt19937_64 rng(99);
  const RecallBatch validation = make_recall_batch(s.task, 32, rng);
  const Curve c = train_recall(s, validation);
  REQUIRE(c.step == std::vector<int>{0, 100, 200, 300});
  CHECK(c.score.front().accuracy < 0.5);
  CHECK(c.score.back().accuracy > 0.8);
  CHECK(c.score.back().loss < c.score.front().loss / 4);
  // The same seed gives the same run.
  CHECK(train_recall(s, validation).score.back().loss == c.score.back().loss);
}

TEST_CASE("recall model: one SGD step is W - learning_rate dL/dW, from the same start as Adam") {
  TrainSettings s;
  s.task = RecallTask{4, 3, 2, 0.5};
  s.d_k = 5;
  s.steps = 1;
  s.batch = 2;
  s.learning_rate = 0.1;
  s.eval_every = 1;
  s.optimizer = Optimizer::sgd;
  s.seed = 21;
  std::mt19937_64 vrng(1);
  const RecallBatch validation = make_recall_batch(s.task, 3, vrng);
  // The run draws the weights, then the batch, from one generator seeded with s.seed.
  std::mt19937_64 rng(s.seed);
  RecallModel m = init_recall_model(s.task.d_in, s.d_k, std::nullopt, rng);
  const RecallBatch batch = make_recall_batch(s.task, s.batch, rng);
  const RecallGradients g = recall_gradients(m, batch);
  m.W_Q -= 0.1 * g.dW_Q;
  m.W_K -= 0.1 * g.dW_K;
  const Curve c = train_recall(s, validation);
  REQUIRE(c.step == std::vector<int>{0, 1});
  CHECK(c.score[1].loss == recall_score(m, validation).loss);
  CHECK(c.score[1].loss != c.score[0].loss);
  s.optimizer = Optimizer::adam;
  const Curve a = train_recall(s, validation);
  CHECK(a.score[0].loss == c.score[0].loss);  // the same start
  CHECK(a.score[1].loss != c.score[1].loss);  // a different step
}
