#pragma once
// Section 14.3's argument as a sweep (`attnlab demo scaling-sweep --size T
// --seeds N --seed S --format text|csv|json --svg FILE`): for d_k = 1, 2,
// 4, ..., 1024, random Q and K (T x d_k, entries N(0, 1), demo_random_qk with
// seeds S, S + 1, ..., S + N - 1), the weights softmax(Q K^T / sqrt(d_k))
// (scaled) and softmax(Q K^T) (unscaled), each seed's mean row entropy and
// mean largest weight, and their spread over the seeds. With N(0, 1)
// entries a scaled logit has variance 1 at every d_k, so the scaled entropy
// stays level, while an unscaled logit has variance d_k and the unscaled
// weights collapse onto one key.
// Formats: text (a table), csv (one line per d_k, series and seed:
// d_k,series,seed,mean_entropy,mean_largest_weight), json (the inputs and,
// per series and d_k, the per-seed values and their spread), SVG
// (demo_svg.hpp, write_sweep_svg).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace attn::grader {

/// The sweep's name on the command line.
inline constexpr const char* kSweepDemo = "scaling-sweep";

struct SweepInputs {
  int size = 16;           ///< T_q = T_v
  int seeds = 10;          ///< seeds per d_k
  std::uint64_t seed = 1;  ///< the first seed
  int max_d_k = 1024;      ///< d_k runs over the powers of 2 from 1 to this
};

/// min, quartiles (linear interpolation between order statistics), max and mean.
struct Spread {
  double mean = 0, min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};

/// Throws std::invalid_argument for no values.
Spread spread_of(std::vector<double> values);

struct SweepSeries {
  std::string key;    ///< "scaled" or "unscaled"
  std::string title;  ///< "softmax(QK^T / sqrt(d_k))"
  /// [d_k index][seed index]: the seed's mean row entropy (nats) and mean largest weight.
  std::vector<std::vector<double>> entropy, largest;
};

struct ScalingSweep {
  SweepInputs inputs;
  std::vector<int> d_k;              ///< 1, 2, 4, ..., max_d_k
  std::vector<std::uint64_t> seeds;  ///< seed, seed + 1, ...
  std::vector<SweepSeries> series;   ///< scaled, unscaled
};

/// Runs the sweep. Throws std::invalid_argument for a size outside 2..64,
/// seeds outside 1..100 or max_d_k outside 1..4096.
ScalingSweep scaling_sweep(const SweepInputs& in);

/// What the sweep shows and why (the text format's last paragraph, the page's caption).
const char* sweep_note();

/// Writes `s` as text, csv or json. Throws std::invalid_argument for another format.
void write_sweep(std::ostream& out, const ScalingSweep& s, const std::string& format);

}  // namespace attn::grader
