// Section 14.3's sweep over d_k (see demo_sweep.hpp).
#include "commands/demo_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/attn.hpp"
#include "commands/demo_data.hpp"

namespace attn::grader {

Spread spread_of(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("spread_of: no values");
  std::sort(v.begin(), v.end());
  auto quantile = [&v](double q) {
    const double at = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  Spread s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.q1 = quantile(0.25);
  s.median = quantile(0.5);
  s.q3 = quantile(0.75);
  return s;
}

ScalingSweep scaling_sweep(const SweepInputs& in) {
  if (in.size < 2 || in.size > 64) throw std::invalid_argument("--size must be from 2 to 64 for the sweep");
  if (in.seeds < 1 || in.seeds > 100) throw std::invalid_argument("--seeds must be from 1 to 100");
  if (in.max_d_k < 1 || in.max_d_k > 4096) throw std::invalid_argument("the largest d_k must be from 1 to 4096");
  ScalingSweep s;
  s.inputs = in;
  for (int d = 1; d <= in.max_d_k; d *= 2) s.d_k.push_back(d);
  for (int k = 0; k < in.seeds; ++k) s.seeds.push_back(in.seed + static_cast<std::uint64_t>(k));
  s.series = {{"scaled", "softmax(QK^T / sqrt(d_k))", {}, {}}, {"unscaled", "softmax(QK^T)", {}, {}}};
  for (int d : s.d_k) {
    for (auto& series : s.series) {
      series.entropy.emplace_back();
      series.largest.emplace_back();
    }
    for (std::uint64_t seed : s.seeds) {
      Matrix<double> Q, K;
      demo_random_qk(in.size, d, seed, Q, K);
      const Matrix<double> scaled = softmax_rows<double>(scores<double>(Q, K));
      const Matrix<double> unscaled = softmax_rows<double>(Matrix<double>(Q * K.transpose()));
      const Matrix<double>* A[2] = {&scaled, &unscaled};
      for (int k = 0; k < 2; ++k) {
        s.series[k].entropy.back().push_back(mean_row_entropy(*A[k]));
        s.series[k].largest.back().push_back(mean_largest_weight(*A[k]));
      }
    }
  }
  return s;
}

namespace {

nlohmann::ordered_json spread_json(const std::vector<double>& v) {
  const Spread s = spread_of(v);
  return {{"per_seed", v}, {"mean", s.mean}, {"min", s.min}, {"q1", s.q1},
          {"median", s.median}, {"q3", s.q3}, {"max", s.max}};
}

}  // namespace

const char* sweep_note() {
  return "A scaled logit of N(0, 1) entries has variance 1 at every d_k, so the scaled\n"
         "entropy stays level; an unscaled one has variance d_k, and as d_k grows each row's\n"
         "weight collapses onto one key (entropy towards 0, largest weight towards 1).\n";
}

void write_sweep(std::ostream& out, const ScalingSweep& s, const std::string& format) {
  const auto& in = s.inputs;
  if (format == "csv") {
    out << "d_k,series,seed,mean_entropy,mean_largest_weight\n" << std::setprecision(17);
    for (std::size_t i = 0; i < s.d_k.size(); ++i)
      for (const auto& series : s.series)
        for (std::size_t k = 0; k < s.seeds.size(); ++k)
          out << s.d_k[i] << "," << series.key << "," << s.seeds[k] << "," << series.entropy[i][k] << ","
              << series.largest[i][k] << "\n";
    return;
  }
  if (format == "json") {
    using J = nlohmann::ordered_json;
    J j;
    j["demo"] = "scaling-sweep";
    j["inputs"] = {{"size", in.size}, {"seeds", s.seeds}, {"d_k", s.d_k}};
    J series = J::array();
    for (const auto& sr : s.series) {
      J points = J::array();
      for (std::size_t i = 0; i < s.d_k.size(); ++i)
        points.push_back({{"d_k", s.d_k[i]}, {"mean_entropy", spread_json(sr.entropy[i])},
                          {"mean_largest_weight", spread_json(sr.largest[i])}});
      series.push_back({{"key", sr.key}, {"title", sr.title}, {"points", points}});
    }
    j["series"] = series;
    out << j.dump(2) << "\n";
    return;
  }
  if (format != "text") throw std::invalid_argument("--format must be text, csv or json, got '" + format + "'");
  out << "The 1/sqrt(d_k) scale over d_k (section 14.3): T_q = T_v = " << in.size << ", " << in.seeds
      << (in.seeds == 1 ? " seed (" : " seeds from ") << in.seed << (in.seeds == 1 ? ")" : "")
      << ", Q, K entries N(0, 1)\n"
      << "mean row entropy in nats (uniform: " << std::fixed << std::setprecision(3)
      << std::log(double(in.size)) << ") and mean largest weight; mean [min, max] over the seeds\n\n"
      << "   d_k  entropy scaled        entropy unscaled      largest scaled        largest unscaled\n";
  auto cell = [](const std::vector<double>& v) {
    const Spread sp = spread_of(v);
    std::ostringstream os;
    os << std::fixed << std::setprecision(3) << sp.mean << " [" << sp.min << ", " << sp.max << "]";
    std::string t = os.str();
    t.resize(std::max<std::size_t>(t.size(), 22), ' ');
    return t;
  };
  for (std::size_t i = 0; i < s.d_k.size(); ++i)
    out << std::setw(6) << s.d_k[i] << "  " << cell(s.series[0].entropy[i]) << cell(s.series[1].entropy[i])
        << cell(s.series[0].largest[i]) << cell(s.series[1].largest[i]) << "\n";
  out << std::defaultfloat << "\n" << sweep_note();
}

}  // namespace attn::grader
