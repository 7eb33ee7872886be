// The demonstrations on random inputs (see demo_data.hpp).
#include "commands/demo_data.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/attn.hpp"

namespace attn::grader {
namespace {

using M = Matrix<double>;

M random_matrix(Index rows, Index cols, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  M X(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) X(i, j) = normal(rng);
  return X;
}

Mask make_mask(const std::string& kind, Index T) {
  if (kind == "causal") return causal_mask(T, T);
  if (kind == "padding") return padding_mask(T, T, std::max<Index>(1, T - T / 3));
  if (kind == "none") {
    Mask m(T, T);
    m.setConstant(false);
    return m;
  }
  throw std::invalid_argument("--mask must be causal, padding or none, got '" + kind + "'");
}

/// NaN (undefined) when a row is not a distribution: the post-softmax
/// masking panel's rows sum to less than 1.
double mean_entropy(const M& A) {
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i)
    if (std::fabs(A.row(i).sum() - 1.0) > 1e-9) return std::nan("");
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j)
      if (A(i, j) > 0) total -= A(i, j) * std::log(A(i, j));
  return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

double mean_largest(const M& A) {
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i) total += A.row(i).maxCoeff();
  return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

std::string fixed(double x, int digits = 4) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

}  // namespace

DemoData demo_data(const std::string& name, const DemoInputs& in) {
  if (in.size < 1 || in.size > 64) throw std::invalid_argument("--size must be from 1 to 64");
  if (in.d_k < 1 || in.d_k > 4096) throw std::invalid_argument("--d-k must be from 1 to 4096");
  std::mt19937_64 rng(in.seed);
  const Index T = in.size;
  const M Q = random_matrix(T, in.d_k, rng), K = random_matrix(T, in.d_k, rng);
  DemoData d;
  d.name = name;
  d.inputs = in;
  if (name == "masking") {
    const Mask mask = make_mask(in.mask, T);
    const M S = scores<double>(Q, K);
    M after = softmax_rows<double>(S);
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j)
        if (mask(i, j)) after(i, j) = 0.0;
    d.panels.push_back({"correct: mask before the softmax (Lemma 2)", masked_softmax<double>(S, mask), mask});
    d.panels.push_back({"F4's bug: mask after the softmax", after, mask});
  } else if (name == "scaling") {
    const M dots = Q * K.transpose();
    d.panels.push_back({"scaled: softmax(QK^T / sqrt(d_k))", softmax_rows<double>(scores<double>(Q, K)), Mask()});
    d.panels.push_back({"unscaled: softmax(QK^T)", softmax_rows<double>(dots), Mask()});
  } else {
    throw std::invalid_argument("only the masking and scaling demonstrations take inputs and formats, not '" +
                                name + "'");
  }
  for (const auto& p : d.panels) {
    d.entropy.push_back(mean_entropy(p.A));
    d.largest.push_back(mean_largest(p.A));
  }
  return d;
}

void write_demo(std::ostream& out, const DemoData& d, const std::string& format) {
  const auto& in = d.inputs;
  if (format == "csv") {
    out << "panel,row,col,weight,forbidden\n";
    for (std::size_t p = 0; p < d.panels.size(); ++p) {
      const auto& P = d.panels[p];
      for (Index i = 0; i < P.A.rows(); ++i)
        for (Index j = 0; j < P.A.cols(); ++j)
          out << p << "," << i << "," << j << "," << std::setprecision(17) << P.A(i, j) << ","
              << (P.forbidden.size() && P.forbidden(i, j) ? 1 : 0) << "\n";
    }
    return;
  }
  if (format == "json") {
    nlohmann::ordered_json j;
    j["demo"] = d.name;
    j["inputs"] = {{"size", in.size}, {"mask", d.name == "masking" ? in.mask : "none"},
                   {"d_k", in.d_k}, {"seed", in.seed}};
    nlohmann::ordered_json panels = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < d.panels.size(); ++p) {
      const auto& P = d.panels[p];
      nlohmann::ordered_json A = nlohmann::ordered_json::array(), F = nlohmann::ordered_json::array(),
                             sums = nlohmann::ordered_json::array();
      for (Index i = 0; i < P.A.rows(); ++i) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array(), frow = nlohmann::ordered_json::array();
        for (Index c = 0; c < P.A.cols(); ++c) {
          row.push_back(P.A(i, c));
          frow.push_back(P.forbidden.size() ? bool(P.forbidden(i, c)) : false);
        }
        A.push_back(row);
        F.push_back(frow);
        sums.push_back(P.A.row(i).sum());
      }
      panels.push_back({{"title", P.title}, {"weights", A}, {"forbidden", F}, {"row_sums", sums},
                        {"mean_entropy", d.entropy[p]}, {"mean_largest_weight", d.largest[p]}});
    }
    j["panels"] = panels;
    out << j.dump(2) << "\n";
    return;
  }
  if (format != "text") throw std::invalid_argument("--format must be text, csv or json, got '" + format + "'");
  out << (d.name == "masking" ? "Masking before and after the softmax" : "The 1/sqrt(d_k) scale")
      << " on random inputs: T_q = T_v = " << in.size << ", d_k = " << in.d_k
      << (d.name == "masking" ? ", mask " + in.mask : std::string()) << ", seed " << in.seed
      << " (Q, K entries N(0, 1))\n\n";
  for (Index i = 0; i < d.panels[0].A.rows(); ++i) {
    for (std::size_t p = 0; p < d.panels.size(); ++p) {
      const auto& P = d.panels[p];
      std::string cells;
      for (Index j = 0; j < P.A.cols() && j < 8; ++j)
        cells += (j ? " " : "") + (P.forbidden.size() && P.forbidden(i, j) ? std::string("  --  ") : fixed(P.A(i, j)));
      if (P.A.cols() > 8) cells += " ...";
      out << (p ? "   |  " : "  row " + std::to_string(i) + ": ") << cells << "  sum " << fixed(P.A.row(i).sum(), 3);
    }
    out << "\n";
  }
  out << "\n";
  for (std::size_t p = 0; p < d.panels.size(); ++p)
    out << "  " << d.panels[p].title << ": "
        << (std::isnan(d.entropy[p])
                ? std::string("no entropy (its rows do not sum to 1)")
                : "mean row entropy " + fixed(d.entropy[p], 3) + " nats (uniform: " +
                      fixed(std::log(double(in.size)), 3) + ")")
        << ", mean largest weight " << fixed(d.largest[p], 3) << "\n";
  if (d.name == "scaling")
    out << "\nWith d_k = " << in.d_k << " a dot product of N(0, 1) entries has variance " << in.d_k
        << " (standard deviation " << fixed(std::sqrt(double(in.d_k)), 1)
        << "):\nunscaled, each row's softmax puts almost all its weight on one key (low\n"
           "entropy, largest weight near 1) and its gradient all but vanishes; dividing by\n"
           "sqrt(d_k) brings the logits back to variance 1 (Lemma 1, section 32.2.3).\n";
  else
    out << "\n'--' marks a forbidden cell. Masked after the softmax, a row with a forbidden key\n"
           "sums to less than 1 (the forbidden keys kept their share of the denominator); masked\n"
           "before (logit -inf), every row sums to 1 and forbidden weights are exactly 0.\n";
}

}  // namespace attn::grader
