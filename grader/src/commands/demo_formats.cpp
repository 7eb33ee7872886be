// A demonstration's panels as text, csv or json (see demo_data.hpp).
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "commands/demo_data.hpp"
#include "commands/fixed_text.hpp"

namespace attn::grader {
namespace {


/// Row i's index, right-aligned to the width of the last row's ("row  3:"
/// beside "row 10:"), so that the columns stay aligned.
std::string row_label(Index i, Index rows) {
  const std::string last = std::to_string(rows > 0 ? rows - 1 : 0), own = std::to_string(i);
  return std::string(last.size() > own.size() ? last.size() - own.size() : 0, ' ') + own;
}

bool forbidden_at(const DemoPanel& P, Index i, Index j) { return P.forbidden.size() && P.forbidden(i, j); }

void write_csv(std::ostream& out, const DemoData& d) {
  out << "panel,row,col,weight,forbidden\n";
  for (const auto& P : d.panels)
    for (Index i = 0; i < P.A.rows(); ++i)
      for (Index j = 0; j < P.A.cols(); ++j) {
        out << P.key << "," << i << "," << j << ",";
        if (std::isnan(P.A(i, j))) out << "nan";  // whatever its sign bit
        else out << std::setprecision(17) << P.A(i, j);
        out << "," << (forbidden_at(P, i, j) ? 1 : 0) << "\n";
      }
}

void write_json(std::ostream& out, const DemoData& d) {
  using J = nlohmann::ordered_json;
  const auto& in = d.inputs;
  J j;
  j["demo"] = d.name;
  j["example"] = in.text_example ? "text" : "random";
  if (in.text_example)
    j["inputs"] = {{"description", d.inputs_line}};
  else
    j["inputs"] = {{"size", in.size}, {"mask", d.name == "scaling" ? "none" : in.mask},
                   {"d_k", in.d_k}, {"seed", in.seed}};
  J panels = J::array();
  for (std::size_t p = 0; p < d.panels.size(); ++p) {
    const auto& P = d.panels[p];
    J A = J::array(), F = J::array(), sums = J::array();
    for (Index i = 0; i < P.A.rows(); ++i) {
      J row = J::array(), frow = J::array();
      for (Index c = 0; c < P.A.cols(); ++c) {
        row.push_back(P.A(i, c));  // NaN is written as null
        frow.push_back(forbidden_at(P, i, c));
      }
      A.push_back(row);
      F.push_back(frow);
      sums.push_back(P.A.row(i).sum());
    }
    panels.push_back({{"key", P.key}, {"title", P.title}, {"weights", A}, {"forbidden", F},
                      {"row_sums", sums}, {"mean_entropy", d.entropy[p]},
                      {"uniform_entropy", d.uniform[p]},
                      {"mean_largest_weight", d.largest[p]}});
  }
  j["panels"] = panels;
  out << j.dump(2) << "\n";
}

void write_text(std::ostream& out, const DemoData& d) {
  out << d.heading << (d.inputs.text_example ? ", the text's example: " : " on random inputs: ")
      << d.inputs_line << "\n\n";
  for (Index i = 0; i < d.panels[0].A.rows(); ++i) {
    for (std::size_t p = 0; p < d.panels.size(); ++p) {
      const auto& P = d.panels[p];
      std::string cells;
      for (Index j = 0; j < P.A.cols() && j < 8; ++j)
        cells += (j ? " " : "") + (forbidden_at(P, i, j) ? std::string("  --  ")
                                   : std::isnan(P.A(i, j)) ? std::string(" NaN  ")
                                                           : fixed_text(P.A(i, j)));
      if (P.A.cols() > 8) cells += " ...";
      out << (p ? "   |  " : "  row " + row_label(i, d.panels[0].A.rows()) + ": ") << cells << "  sum " << fixed_text(P.A.row(i).sum(), 3);
    }
    out << "\n";
  }
  out << "\n";
  for (std::size_t p = 0; p < d.panels.size(); ++p)
    out << "  " << d.panels[p].title << ": "
        << (std::isnan(d.entropy[p])
                ? std::string("no entropy (its rows are not distributions)")
                : "mean row entropy " + fixed_text(d.entropy[p], 3) + " nats (uniform over the allowed keys: " +
                      fixed_text(d.uniform[p], 3) + ")")
        << ", mean largest weight " << fixed_text(d.largest[p], 3) << "\n";
  out << "\n" << (has_forbidden(d) ? "'--' marks a forbidden cell.\n" : "") << d.note;
}

}  // namespace

void write_demo(std::ostream& out, const DemoData& d, const std::string& format) {
  if (format == "csv") return write_csv(out, d);
  if (format == "json") return write_json(out, d);
  if (format != "text") throw std::invalid_argument("--format must be text, csv or json, got '" + format + "'");
  write_text(out, d);
}

}  // namespace attn::grader
