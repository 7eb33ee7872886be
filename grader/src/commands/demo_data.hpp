#pragma once
// The lecture demonstrations on inputs of the lecturer's choosing
// (`attnlab demo masking|scaling --size N --mask causal|padding|none --d-k D
// --seed S --format text|csv|json --svg FILE`): random Q and K (entries
// N(0, 1), std::mt19937_64 seeded with S, so a seed gives the same numbers on
// every run of a build) and the weight matrices the demonstration compares:
//   masking: the correct weights (mask before the softmax, Lemma 2) and F4's
//            post-softmax weights (softmax over every key, forbidden set to 0);
//   scaling: the weights with and without 1/sqrt(d_k), with each row's
//            entropy and largest weight.
// Formats: text (the side-by-side rows and the statistics), csv (one line per
// entry: panel,row,col,weight,forbidden), json (inputs, the panels as nested
// lists, row sums, statistics); the SVG (demo_svg.hpp) draws the panels.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace attn::grader {

struct DemoInputs {
  int size = 6;                 ///< T_q = T_v
  std::string mask = "causal";  ///< "causal", "padding" (last third of keys), "none"
  int d_k = 64;
  std::uint64_t seed = 1;
};

/// One weight matrix of a demonstration, with what to mark.
struct DemoPanel {
  std::string title;  ///< "correct: mask before the softmax"
  Matrix<double> A;
  Mask forbidden;     ///< cells drawn as forbidden (empty: none)
};

struct DemoData {
  std::string name;  ///< "masking", "scaling"
  DemoInputs inputs;
  std::vector<DemoPanel> panels;
  /// Per panel: mean row entropy (nats) and mean largest weight.
  std::vector<double> entropy, largest;
};

/// The panels of `name` ("masking" or "scaling") on `in`. Throws
/// std::invalid_argument for another name, a size outside 1..64, a d_k
/// outside 1..4096, an unknown mask.
DemoData demo_data(const std::string& name, const DemoInputs& in);

/// Writes `d` as text, csv or json (`format`). Throws std::invalid_argument
/// for another format.
void write_demo(std::ostream& out, const DemoData& d, const std::string& format);

}  // namespace attn::grader
