// SVG heatmaps of a demonstration (see demo_svg.hpp).
#include "commands/demo_svg.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "commands/svg_util.hpp"

namespace attn::grader {
namespace {

using svg::escape;
using svg::fmt;
using svg::shade;

constexpr const char* kForbiddenFill = "#d9d9d9";
constexpr const char* kCross = "#b22222";
constexpr const char* kNanFill = "#f4a261";

bool any_nan(const DemoData& d) {
  for (const auto& p : d.panels)
    if (p.A.hasNaN()) return true;
  return false;
}

}  // namespace

std::string demo_svg(const DemoData& d, const SvgStyle& st) {
  const Index rows = d.panels.empty() ? 0 : d.panels[0].A.rows();
  const Index cols = d.panels.empty() ? 0 : d.panels[0].A.cols();
  const Index larger = std::max<Index>(1, std::max(rows, cols));
  const int cell = std::clamp(st.px(480) / static_cast<int>(larger), 12, st.px(56));
  const bool numbers = cell >= st.px(40);
  const int grid_w = cell * static_cast<int>(cols), grid_h = cell * static_cast<int>(rows);
  const int label = st.px(11);
  // Indices every `step` rows and columns, so that they do not overlap.
  const int step = std::max(1, static_cast<int>(std::ceil(1.4 * label / cell)));
  const int left = st.px(80), top = st.px(62) + 3 * label + st.px(30), sums = st.px(90), gap = st.px(70);
  // Wide enough for the panel's title (bold 14 px: about 0.65 em a character)
  // and its statistics line (12 px).
  std::size_t title = 0;
  for (const auto& p : d.panels) title = std::max(title, p.title.size());
  const int panel_w = std::max({grid_w + sums, static_cast<int>(title) * st.px(14) * 65 / 100,
                                66 * st.px(12) * 6 / 10});
  const int width = left + static_cast<int>(d.panels.size()) * (panel_w + gap) + 40;
  const int height = top + grid_h + st.px(60) + 4 * label;
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << left << "\" y=\"" << st.px(28) << "\" font-size=\"" << st.px(18)
    << "\" font-weight=\"bold\">" << escape(d.heading) << "</text>\n<text x=\"" << left << "\" y=\""
    << st.px(52) << "\" font-size=\"" << st.px(13) << "\" fill=\"#444\">" << escape(d.inputs_line) << "</text>\n";
  for (std::size_t p = 0; p < d.panels.size(); ++p) {
    const DemoPanel& P = d.panels[p];
    const int x0 = left + static_cast<int>(p) * (panel_w + gap);
    s << "<g class=\"panel\" data-key=\"" << P.key << "\">\n"
      << "<text x=\"" << x0 << "\" y=\"" << top - 2 * label - st.px(16) << "\" font-size=\"" << st.px(14)
      << "\" font-weight=\"bold\">" << escape(P.title) << "</text>\n"
      << "<text x=\"" << x0 << "\" y=\"" << top - label - st.px(8) << "\" font-size=\"" << label
      << "\" fill=\"#555\">keys (columns) →</text>\n";
    s << "<text x=\"" << x0 - 2 * label - st.px(8) << "\" y=\"" << top + grid_h / 2 << "\" font-size=\"" << label
      << "\" fill=\"#555\" text-anchor=\"middle\" transform=\"rotate(-90 " << x0 - 2 * label - st.px(8) << " "
      << top + grid_h / 2 << ")\">← queries (rows)</text>\n";
    s << "<text x=\"" << x0 + grid_w + 8 << "\" y=\"" << top - st.px(6) << "\" font-size=\"" << label
      << "\" fill=\"#555\">row sum</text>\n";
    for (Index j = 0; j < cols; j += step)
      s << "<text class=\"col-index\" x=\"" << x0 + static_cast<int>(j) * cell + cell / 2 << "\" y=\""
        << top - st.px(5) << "\" font-size=\"" << label << "\" fill=\"#555\" text-anchor=\"middle\">" << j
        << "</text>\n";
    for (Index i = 0; i < rows; ++i) {
      const int y = top + static_cast<int>(i) * cell;
      if (i % step == 0)
        s << "<text class=\"row-index\" x=\"" << x0 - st.px(5) << "\" y=\"" << y + cell / 2 + label / 3
          << "\" font-size=\"" << label << "\" fill=\"#555\" text-anchor=\"end\">" << i << "</text>\n";
      for (Index j = 0; j < cols; ++j) {
        const int x = x0 + static_cast<int>(j) * cell;
        const bool forbidden = P.forbidden.size() && P.forbidden(i, j);
        const double w = P.A(i, j);
        s << "<rect class=\"cell\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell
          << "\" fill=\"" << (forbidden ? kForbiddenFill : std::isnan(w) ? kNanFill : shade(w))
          << "\" stroke=\"white\"/>\n";
        if (forbidden) {
          s << "<path class=\"forbidden\" d=\"M" << x + 4 << " " << y + 4 << " L" << x + cell - 4 << " "
            << y + cell - 4 << " M" << x + cell - 4 << " " << y + 4 << " L" << x + 4 << " " << y + cell - 4
            << "\" stroke=\"" << kCross << "\" stroke-width=\"1.5\"/>\n";
        } else if (numbers) {
          s << "<text x=\"" << x + cell / 2 << "\" y=\"" << y + cell / 2 + label / 3 << "\" font-size=\"" << label
            << "\" text-anchor=\"middle\" fill=\"" << (w > 0.5 ? "white" : "#222") << "\">" << fmt(w, 2)
            << "</text>\n";
        }
      }
      const double sum = P.A.row(i).sum();
      const bool off = !(std::fabs(sum - 1.0) <= 1e-9);
      s << "<text class=\"row-sum\" x=\"" << x0 + grid_w + 8 << "\" y=\"" << y + cell / 2 + label / 3
        << "\" font-size=\"" << std::min(st.px(13), std::max(cell - 2, label)) << "\" fill=\""
        << (off ? "#b22222" : "#1a7f37") << "\"" << (off ? " font-weight=\"bold\"" : "") << ">" << fmt(sum, 3)
        << "</text>\n";
    }
    s << "<text x=\"" << x0 << "\" y=\"" << top + grid_h + st.px(22) << "\" font-size=\"" << st.px(12)
      << "\" fill=\"#333\">"
      << (std::isnan(d.entropy[p]) ? std::string("no entropy (rows are not distributions)")
                                   : "mean entropy " + fmt(d.entropy[p], 2) + " nats (uniform " + fmt(d.uniform[p], 2) + ")")
      << ", mean largest weight " << fmt(d.largest[p], 2) << "</text>\n</g>\n";
  }
  // Colour bar, and the legends of what the panels hold.
  const int by = top + grid_h + st.px(40), bar = st.px(200), box = st.px(12);
  s << "<defs><linearGradient id=\"w\"><stop offset=\"0\" stop-color=\"" << shade(0)
    << "\"/><stop offset=\"1\" stop-color=\"" << shade(1) << "\"/></linearGradient></defs>\n"
    << "<rect class=\"colour-bar\" x=\"" << left << "\" y=\"" << by << "\" width=\"" << bar << "\" height=\"" << box
    << "\" fill=\"url(#w)\" stroke=\"#999\"/>\n"
    << "<text x=\"" << left << "\" y=\"" << by + box + label + 4 << "\" font-size=\"" << label << "\">0</text>\n"
    << "<text x=\"" << left + bar << "\" y=\"" << by + box + label + 4 << "\" font-size=\"" << label
    << "\" text-anchor=\"end\">1</text>\n<text x=\"" << left + bar + 10 << "\" y=\"" << by + box - 2
    << "\" font-size=\"" << label << "\">weight</text>\n";
  int lx = left + bar + st.px(70);
  if (has_forbidden(d)) {
    s << "<g class=\"legend-forbidden\"><rect x=\"" << lx << "\" y=\"" << by << "\" width=\"" << box << "\" height=\""
      << box << "\" fill=\"" << kForbiddenFill << "\"/><path d=\"M" << lx + 2 << " " << by + 2 << " L"
      << lx + box - 2 << " " << by + box - 2 << " M" << lx + box - 2 << " " << by + 2 << " L" << lx + 2 << " "
      << by + box - 2 << "\" stroke=\"" << kCross << "\"/>\n<text x=\"" << lx + box + 6 << "\" y=\"" << by + box - 2
      << "\" font-size=\"" << label << "\">forbidden (row sums in red are not 1)</text></g>\n";
    lx += st.px(290);
  }
  if (any_nan(d))
    s << "<g class=\"legend-nan\"><rect x=\"" << lx << "\" y=\"" << by << "\" width=\"" << box << "\" height=\""
      << box << "\" fill=\"" << kNanFill << "\"/>\n<text x=\"" << lx + box + 6 << "\" y=\"" << by + box - 2
      << "\" font-size=\"" << label << "\">NaN (inf / inf)</text></g>\n";
  s << "</svg>\n";
  return s.str();
}

void write_svg_file(const std::filesystem::path& file, const std::string& svg) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << svg;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace attn::grader
