// attnlab_deep_run: the whole property list on the library, naive, tiled and
// multi-head, float and double, at many cases; prints every verdict, the regime shares
// of the oracle comparisons and the largest observed error/bound ratio.
// The figures in reference/TOLERANCE.md come from
//   build/properties/attnlab_deep_run --cases 25000
// and, for the emulated float16 and bfloat16 kernels (properties/testing/),
//   build/properties/attnlab_deep_run --emulated bfloat16 --emulated float16 --cases 12500
// The zoo of correct implementations (properties/testing/zoo_kernels.hpp), each
// held to the kernel properties, runs with
//   build/properties/attnlab_deep_run --zoo --cases 8400
// (--zoo-precision float16 bfloat16: the members' 16-bit twins).
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
#include "zoo_kernels.hpp"

using namespace attn::prop;

namespace {

/// The library's property list for op (multi-head: its own list, with typed refusals).
std::vector<Property> properties_for(Operation op) {
  return op == Operation::multi_head_attention ? multi_head_properties("FullyMaskedRowError")
                                               : library_properties(op);
}

/// One configuration's result, for the closing table.
struct Row {
  std::string label, precision;
  BoundStats stats;
  bool passed;
};

/// Runs the list on one subject (labelled by its operation, or a zoo
/// member's name) and prints the largest error/bound ratio.
bool run_all(Subject& subject, const std::string& label, const std::vector<Property>& list,
             const RunConfig& cfg, long long& total_cases, std::vector<Row>& rows,
             const std::vector<std::string>& may_fail = {}) {
  bool ok = true;
  reset_bound_stats();
  for (const Property& p : list) {
    const Verdict v = run_property(p, subject, cfg);
    total_cases += v.cases;
    std::cout << label << " <" << subject.precision().name << "> ";
    print_verdict(std::cout, v);
    if (p.id == "oracle_agreement") print_regimes(std::cout, v);
    ok = ok && (v.passed() || std::find(may_fail.begin(), may_fail.end(), p.id) != may_fail.end());
  }
  const BoundStats st = bound_stats();
  std::cout << "  largest error/bound ratio for " << label << " <" << subject.precision().name
            << ">: " << st.max_ratio << " over " << st.entries << " compared entries\n    at "
            << st.where << "\n\n";
  rows.push_back({label, subject.precision().name, st, ok});
  return ok;
}

template <class T>
bool run_all(Operation op, const RunConfig& cfg, long long& total_cases, std::vector<Row>& rows) {
  LibSubject<T> subject;
  return run_all(subject, operation_name(op), properties_for(op), cfg, total_cases, rows);
}

/// A zoo member in each of `precisions` (float64: the member in double,
/// float32: in float, float16 / bfloat16: its 16-bit twin), held to
/// kernel_properties() (op attention).
bool run_zoo(const attn::prop::testing::ZooMember& m, const std::vector<std::string>& precisions,
             const RunConfig& cfg, long long& total_cases, std::vector<Row>& rows) {
  namespace t = attn::prop::testing;
  bool ok = true;
  for (const std::string& name : precisions) {
    const attn::ref::NumberFormat f = *attn::ref::parse_format(name);
    KernelSubject s = f == attn::ref::NumberFormat::float64   ? t::zoo_subject<double>(m)
                      : f == attn::ref::NumberFormat::float32 ? t::zoo_subject<float>(m)
                                                              : t::zoo_subject_stored(m, f);
    ok = run_all(s, s.name(), kernel_properties(), cfg, total_cases, rows, m.may_fail) && ok;
  }
  return ok;
}

/// The closing table (Markdown, as in reference/TOLERANCE.md): every
/// configuration's largest error/bound ratio; those above 1/2, the margin
/// the bound keeps for a correct implementation ("The safety factor"), marked.
void print_table(const std::vector<Row>& rows) {
  std::cout << "| configuration | precision | compared entries | largest error / bound | where |\n"
               "|---|---|---|---|---|\n";
  for (const Row& r : rows)
    std::cout << "| " << r.label << " | " << r.precision << " | " << r.stats.entries << " | "
              << r.stats.max_ratio << (r.stats.max_ratio > 0.5 ? " (ABOVE 0.5)" : "")
              << (r.passed ? "" : " (a property FAILED)") << " | " << r.stats.where << " |\n";
}

/// The emulated kernel's list: the library's, without textbook_example (the
/// text's 1e-4 on its printed decimals, beyond a 16-bit type's 3 digits).
bool run_emulated(attn::ref::NumberFormat f, Operation op, const RunConfig& cfg, long long& total_cases,
                  std::vector<Row>& rows) {
  attn::prop::testing::EmulatedSubject subject(f);
  std::vector<Property> list;
  for (Property& p : library_properties(op))
    if (p.id != "textbook_example") list.push_back(std::move(p));
  return run_all(subject, operation_name(op), list, cfg, total_cases, rows);
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
  std::vector<std::string> narrow;  // the storage types with a wider default accumulation
  for (const attn::ref::FormatInfo& f : attn::ref::number_formats())
    if (f.default_accumulate != f.format) narrow.push_back(f.name);
  app.add_option("--emulated", emulated,
                 "instead of the library, run the emulated kernels storing in these types "
                 "(16-bit; float32 accumulation) on attention, attention_tiled, "
                 "masked_softmax and softmax_rows")
      ->check(CLI::IsMember(narrow));
  bool zoo = false;
  app.add_flag("--zoo", zoo,
               "instead of the library, run the kernel properties on every member of the zoo of "
               "correct implementations (properties/testing/zoo_kernels.hpp), float and double");
  std::vector<std::string> members;
  std::vector<std::string> names;
  for (const auto& m : attn::prop::testing::zoo_members()) names.push_back(m.name);
  app.add_option("--zoo-member", members, "run only these zoo members (implies --zoo)")
      ->check(CLI::IsMember(names));
  std::vector<std::string> zoo_precisions = {attn::ref::format_name(attn::ref::NumberFormat::float64),
                                             attn::ref::format_name(attn::ref::NumberFormat::float32)};
  std::vector<std::string> formats;
  for (const attn::ref::FormatInfo& f : attn::ref::number_formats()) formats.push_back(f.name);
  app.add_option("--zoo-precision", zoo_precisions,
                 "the zoo members' precisions: float64, float32, and the 16-bit twins (float16, "
                 "bfloat16: float32 arithmetic, weights and answers rounded to storage); "
                 "default float64 float32")
      ->check(CLI::IsMember(formats));
  CLI11_PARSE(app, argc, argv);

  const auto start = std::chrono::steady_clock::now();
  long long total = 0;
  bool ok = true;
  std::vector<Row> rows;
  for (const auto& m : attn::prop::testing::zoo_members()) {
    if (!zoo && members.empty()) break;
    if (!members.empty() && std::find(members.begin(), members.end(), m.name) == members.end())
      continue;
    ok = run_zoo(m, zoo_precisions, cfg, total, rows) && ok;
  }
  for (const std::string& name : emulated)
    for (Operation op : {Operation::attention, Operation::attention_tiled, Operation::masked_softmax,
                         Operation::softmax_rows}) {
      if (!only.empty() && std::find(only.begin(), only.end(), operation_name(op)) == only.end())
        continue;
      ok = run_emulated(*attn::ref::parse_format(name), op, cfg, total, rows) && ok;
    }
  for (Operation op :
       {Operation::attention, Operation::attention_tiled, Operation::multi_head_attention}) {
    if (!emulated.empty() || zoo || !members.empty()) break;
    if (!only.empty() && std::find(only.begin(), only.end(), operation_name(op)) == only.end())
      continue;
    ok = run_all<double>(op, cfg, total, rows) && ok;
    ok = run_all<float>(op, cfg, total, rows) && ok;
  }
  print_table(rows);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << total << " cases in " << seconds << " s, seed " << cfg.seed << ": "
            << (ok ? "no property failed" : "a property FAILED") << "\n";
  return ok ? 0 : 1;
}
