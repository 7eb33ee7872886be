// Runs attnlab's property list on my_attention by wrapping it as a Subject.
// Exit code 0 when every property passes, 1 otherwise (so CI fails).
#include <iostream>
#include <stdexcept>

#include <attn/prop/catalog.hpp>
#include <attn/prop/subject.hpp>

#include "my_kernel.hpp"

namespace {

class MyKernel : public attn::prop::Subject {
 public:
  std::string name() const override { return "my_attention (float)"; }
  // Declares float: the oracle comparisons use float's error bound.
  attn::prop::Precision precision() const override { return attn::prop::Precision::of_float(); }
  bool supports(attn::prop::Operation op) const override { return op == attn::prop::Operation::attention; }
  // my_attention returns O only: the properties about A are skipped, the rest check O.
  bool returns_weights() const override { return false; }

  attn::prop::Outcome run(const attn::prop::Case& c) override {
    using attn::prop::Outcome;
    const int t_q = int(c.Q.rows()), t_v = int(c.K.rows()), d_k = int(c.Q.cols()), d_v = int(c.V.cols());
    // Shapes that the flat interface cannot even express are refused here.
    if (c.K.cols() != d_k || c.V.rows() != t_v ||
        (c.mask && (c.mask->rows() != t_q || c.mask->cols() != t_v)))
      return Outcome::make_refusal("shape", "shapes do not fit");
    auto flat = [](const attn::prop::DMatrix& M) {
      std::vector<float> v;
      for (Eigen::Index i = 0; i < M.rows(); ++i)
        for (Eigen::Index j = 0; j < M.cols(); ++j) v.push_back(float(M(i, j)));
      return v;
    };
    std::vector<bool> forbidden(std::size_t(t_q) * t_v, false);
    if (c.mask)
      for (int i = 0; i < t_q; ++i)
        for (int j = 0; j < t_v; ++j) forbidden[std::size_t(i) * t_v + j] = (*c.mask)(i, j);
    try {
      const std::vector<float> O = my_attention(flat(c.Q), flat(c.K), flat(c.V), forbidden, t_q, t_v, d_k, d_v);
      attn::prop::DMatrix out(t_q, d_v);
      for (int i = 0; i < t_q; ++i)
        for (int l = 0; l < d_v; ++l) out(i, l) = O[std::size_t(i) * d_v + l];
      return Outcome::make_result(out, attn::prop::DMatrix());
    } catch (const std::exception& e) {
      return Outcome::make_refusal("std::exception", e.what());
    }
  }
};

}  // namespace

int main() {
  MyKernel kernel;
  attn::prop::RunConfig cfg;
  cfg.cases = attn::prop::default_case_count();
  int failed = 0, passed = 0;
  for (const attn::prop::Property& p : attn::prop::kernel_properties()) {
    const attn::prop::Verdict v = attn::prop::run_property(p, kernel, cfg);
    attn::prop::print_verdict(std::cout, v);
    if (!v.skipped) (v.passed ? passed : failed) += 1;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
