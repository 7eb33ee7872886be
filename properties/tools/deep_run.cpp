// attnlab_deep_run: the whole property list on the library, naive, tiled and
// multi-head, float and double, at many cases; prints every verdict, the regime shares
// of the oracle comparisons and the largest observed error/bound ratio.
// The figures in reference/TOLERANCE.md come from
//   build/properties/attnlab_deep_run --cases 25000
// and, for the emulated float16 and bfloat16 kernels (properties/testing/),
//   build/properties/attnlab_deep_run --emulated bfloat16 --emulated float16 --cases 12500
// Exit code: 0 no property failed, 1 a property failed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>
#include <iostream>

#include "attn/prop/bound_stats.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/lib_subject.hpp"
#include "attn/ref/number_format.hpp"
#include "emulated_kernels.hpp"

using namespace attn::prop;

namespace {

/// The library's property list for op (multi-head: its own list, with typed refusals).
std::vector<Property> properties_for(Operation op) {
  return op == Operation::multi_head_attention ? multi_head_properties("FullyMaskedRowError")
                                               : library_properties(op);
}

/// Runs op's list on one subject and prints the largest error/bound ratio.
bool run_all(Subject& subject, Operation op, const std::vector<Property>& list, const RunConfig& cfg,
             long long& total_cases) {
  bool ok = true;
  reset_bound_stats();
  for (const Property& p : list) {
    const Verdict v = run_property(p, subject, cfg);
    total_cases += v.cases;
    std::cout << operation_name(op) << " <" << subject.precision().name << "> ";
    print_verdict(std::cout, v);
    if (p.id == "oracle_agreement") print_regimes(std::cout, v);
    ok = ok && v.passed;
  }
  const BoundStats st = bound_stats();
  std::cout << "  largest error/bound ratio for " << operation_name(op) << " <"
            << subject.precision().name << ">: " << st.max_ratio << " over " << st.entries
            << " compared entries\n    at " << st.where << "\n\n";
  return ok;
}

template <class T>
bool run_all(Operation op, const RunConfig& cfg, long long& total_cases) {
  LibSubject<T> subject;
  return run_all(subject, op, properties_for(op), cfg, total_cases);
}

/// The emulated kernel's list: the library's, without textbook_example (the
/// text's 1e-4 on its printed decimals, beyond a 16-bit type's 3 digits).
bool run_emulated(attn::ref::NumberFormat f, Operation op, const RunConfig& cfg, long long& total_cases) {
  attn::prop::testing::EmulatedSubject subject(f);
  std::vector<Property> list;
  for (Property& p : library_properties(op))
    if (p.id != "textbook_example") list.push_back(std::move(p));
  return run_all(subject, op, list, cfg, total_cases);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab deep run: every property on the library with many cases"};
  RunConfig cfg;
  cfg.cases = 25000;
  app.add_option("--cases", cfg.cases, "cases per property and configuration")->check(CLI::PositiveNumber);
  app.add_option("--seed", cfg.seed, "RapidCheck seed");
  std::vector<std::string> only;
  app.add_option("--op", only,
                 "run only these operations (attention, attention_tiled, multi_head_attention); "
                 "default: all")
      ->check(CLI::IsMember({"attention", "attention_tiled", "multi_head_attention", "masked_softmax", "softmax_rows"}));
  std::vector<std::string> emulated;
  app.add_option("--emulated", emulated,
                 "instead of the library, run the emulated kernels storing in these types "
                 "(float16, bfloat16; float32 accumulation) on attention, attention_tiled, "
                 "masked_softmax and softmax_rows")
      ->check(CLI::IsMember({"float16", "bfloat16"}));
  CLI11_PARSE(app, argc, argv);

  const auto start = std::chrono::steady_clock::now();
  long long total = 0;
  bool ok = true;
  for (const std::string& name : emulated)
    for (Operation op : {Operation::attention, Operation::attention_tiled, Operation::masked_softmax,
                         Operation::softmax_rows}) {
      if (!only.empty() && std::find(only.begin(), only.end(), operation_name(op)) == only.end())
        continue;
      ok = run_emulated(*attn::ref::parse_format(name), op, cfg, total) && ok;
    }
  for (Operation op :
       {Operation::attention, Operation::attention_tiled, Operation::multi_head_attention}) {
    if (!emulated.empty()) break;
    if (!only.empty() && std::find(only.begin(), only.end(), operation_name(op)) == only.end())
      continue;
    ok = run_all<double>(op, cfg, total) && ok;
    ok = run_all<float>(op, cfg, total) && ok;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << total << " cases in " << seconds << " s, seed " << cfg.seed << ": "
            << (ok ? "no property failed" : "a property FAILED") << "\n";
  return ok ? 0 : 1;
}
