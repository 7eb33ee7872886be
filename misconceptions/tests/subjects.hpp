#pragma once
// Test subjects written independently of the models: plain loops, each bug
// written the way a student, a tutorial or a C programmer writes it.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attn/prop/subject.hpp"

namespace mis_test {

using attn::Index;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Operation;
using attn::prop::Outcome;
using attn::prop::Precision;

class FnSubject : public attn::prop::Subject {
 public:
  FnSubject(std::string name, Operation op, std::function<Outcome(const Case&)> f,
            Precision p = Precision::of_double())
      : name_(std::move(name)), op_(op), f_(std::move(f)), p_(std::move(p)) {}
  std::string name() const override { return name_; }
  Precision precision() const override { return p_; }
  bool supports(Operation op) const override { return op == op_; }
  Outcome run(const Case& c) override {
    try {
      return f_(c);
    } catch (const std::invalid_argument& e) {
      return Outcome::make_refusal("ValueError", e.what());
    }
  }

 private:
  std::string name_;
  Operation op_;
  std::function<Outcome(const Case&)> f_;
  Precision p_;
};

/// One subject per catalogue key: the key, the operation it is graded on and its code.
struct KeyedSubject {
  std::string key;
  Operation op;
  std::function<Outcome(const Case&)> run;
  Precision precision = Precision::of_double();
};
std::vector<KeyedSubject> keyed_subjects();

/// A correct double implementation for an operation, written with loops.
std::function<Outcome(const Case&)> correct_loops(Operation op);

/// A small counterexample for an operation, like the ones RapidCheck shrinks to.
Case small_case(Operation op);

/// Row i of A and O from the row's logits `s` (T_v of them, forbidden ones
/// already filled), every step rounded by `r`: the maximum subtracted, the
/// exponentials summed left to right, each divided by the sum, then O's row
/// as the weights times V, summed left to right. The tail the loop-written
/// subjects share; what differs between them is how `s` is made.
void softmax_row_and_output(const Case& c, Index i, const std::vector<double>& s,
                            const std::function<double(double)>& r, DMatrix& A, DMatrix& O);

/// T_q = 1, T_v = 3, d = 1: two allowed keys whose logits are `allowed`
/// (Q = 1, K = [allowed, allowed, 0]), the third key forbidden, V = [1, 2, 4].
/// At allowed = float lowest a finite fill of float lowest ties the three.
Case two_allowed_one_forbidden(double allowed);

}  // namespace mis_test
