// SVG heatmaps of a demonstration (see demo_svg.hpp).
#include "commands/demo_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace attn::grader {
namespace {

/// White (0) to dark blue (1), linear in each channel.
std::string shade(double w) {
  const double t = std::clamp(w, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(247 + t * (8 - 247)));
  const int g = static_cast<int>(std::lround(251 + t * (48 - 251)));
  const int b = static_cast<int>(std::lround(255 + t * (107 - 255)));
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

std::string fmt(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

}  // namespace

void write_demo_svg(const std::filesystem::path& file, const DemoData& d) {
  const Index T = d.panels.empty() ? 0 : d.panels[0].A.rows();
  const int cell = std::clamp(480 / std::max<int>(1, static_cast<int>(T)), 12, 56);
  const bool numbers = cell >= 40;
  const int grid = cell * static_cast<int>(T);
  const int left = 70, top = 104, sums = 90, gap = 60;
  const int panel_w = grid + sums;
  const int width = left + static_cast<int>(d.panels.size()) * (panel_w + gap) + 40;
  const int height = top + grid + 110;
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const auto& in = d.inputs;
  s << "<text x=\"" << left << "\" y=\"28\" font-size=\"18\" font-weight=\"bold\">"
    << (d.name == "masking" ? "Masking before vs after the softmax" : "Scaled vs unscaled logits")
    << "</text>\n<text x=\"" << left << "\" y=\"50\" font-size=\"13\" fill=\"#444\">T = " << in.size
    << ", d_k = " << in.d_k << (d.name == "masking" ? ", " + in.mask + " mask" : std::string())
    << ", seed " << in.seed << "; Q, K entries N(0, 1)</text>\n";
  for (std::size_t p = 0; p < d.panels.size(); ++p) {
    const DemoPanel& P = d.panels[p];
    const int x0 = left + static_cast<int>(p) * (panel_w + gap);
    s << "<text x=\"" << x0 << "\" y=\"" << top - 22 << "\" font-size=\"14\" font-weight=\"bold\">"
      << escape(P.title) << "</text>\n"
      << "<text x=\"" << x0 << "\" y=\"" << top - 6 << "\" font-size=\"11\" fill=\"#555\">keys (columns) →</text>\n";
    if (p == 0)
      s << "<text x=\"" << x0 - 12 << "\" y=\"" << top + grid / 2 << "\" font-size=\"11\" fill=\"#555\" "
        << "text-anchor=\"middle\" transform=\"rotate(-90 " << x0 - 12 << " " << top + grid / 2
        << ")\">← queries (rows)</text>\n";
    s << "<text x=\"" << x0 + grid + 8 << "\" y=\"" << top - 6 << "\" font-size=\"11\" fill=\"#555\">row sum</text>\n";
    for (Index i = 0; i < P.A.rows(); ++i) {
      const int y = top + static_cast<int>(i) * cell;
      for (Index j = 0; j < P.A.cols(); ++j) {
        const int x = x0 + static_cast<int>(j) * cell;
        const bool forbidden = P.forbidden.size() && P.forbidden(i, j);
        s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell
          << "\" fill=\"" << (forbidden ? "#d9d9d9" : shade(P.A(i, j))) << "\" stroke=\"white\"/>\n";
        if (forbidden) {
          s << "<path d=\"M" << x + 4 << " " << y + 4 << " L" << x + cell - 4 << " " << y + cell - 4
            << " M" << x + cell - 4 << " " << y + 4 << " L" << x + 4 << " " << y + cell - 4
            << "\" stroke=\"#b22222\" stroke-width=\"1.5\"/>\n";
        } else if (numbers) {
          s << "<text x=\"" << x + cell / 2 << "\" y=\"" << y + cell / 2 + 4
            << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"" << (P.A(i, j) > 0.5 ? "white" : "#222")
            << "\">" << fmt(P.A(i, j), 2) << "</text>\n";
        }
      }
      const double sum = P.A.row(i).sum();
      const bool off = std::fabs(sum - 1.0) > 1e-9;
      s << "<text x=\"" << x0 + grid + 8 << "\" y=\"" << y + cell / 2 + 4 << "\" font-size=\""
        << std::min(13, cell - 2) << "\" fill=\"" << (off ? "#b22222" : "#1a7f37") << "\""
        << (off ? " font-weight=\"bold\"" : "") << ">" << fmt(sum, 3) << "</text>\n";
    }
    s << "<text x=\"" << x0 << "\" y=\"" << top + grid + 22 << "\" font-size=\"12\" fill=\"#333\">"
      << (std::isnan(d.entropy[p]) ? std::string("no entropy (rows do not sum to 1)")
                                   : "mean entropy " + fmt(d.entropy[p], 2) + " nats")
      << ", mean largest weight "
      << fmt(d.largest[p], 2) << "</text>\n";
  }
  // Colour bar.
  const int by = top + grid + 48;
  s << "<defs><linearGradient id=\"w\"><stop offset=\"0\" stop-color=\"" << shade(0)
    << "\"/><stop offset=\"1\" stop-color=\"" << shade(1) << "\"/></linearGradient></defs>\n"
    << "<rect x=\"" << left << "\" y=\"" << by << "\" width=\"200\" height=\"12\" fill=\"url(#w)\" stroke=\"#999\"/>\n"
    << "<text x=\"" << left << "\" y=\"" << by + 28 << "\" font-size=\"11\">0</text>\n"
    << "<text x=\"" << left + 200 << "\" y=\"" << by + 28 << "\" font-size=\"11\" text-anchor=\"end\">1</text>\n"
    << "<text x=\"" << left + 215 << "\" y=\"" << by + 10 << "\" font-size=\"11\">weight</text>\n";
  if (d.name == "masking")
    s << "<rect x=\"" << left + 270 << "\" y=\"" << by << "\" width=\"12\" height=\"12\" fill=\"#d9d9d9\"/>"
      << "<path d=\"M" << left + 272 << " " << by + 2 << " L" << left + 280 << " " << by + 10 << " M"
      << left + 280 << " " << by + 2 << " L" << left + 272 << " " << by + 10
      << "\" stroke=\"#b22222\"/>\n<text x=\"" << left + 288 << "\" y=\"" << by + 10
      << "\" font-size=\"11\">forbidden (row sums in red are not 1)</text>\n";
  s << "</svg>\n";
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << s.str();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace attn::grader
