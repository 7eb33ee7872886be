// Section 14.3's sweep as an SVG figure (see demo_svg.hpp, sweep_svg).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include <sstream>

#include "commands/demo_svg.hpp"
#include "commands/svg_util.hpp"

namespace attn::grader {
namespace {

using svg::escape;
using svg::fmt;

const char* const kColour[2] = {"#1f77b4", "#d62728"};  // scaled, unscaled

struct Chart {
  int x0, y0, w, h;  ///< the plot area
  double x_max, y_max;
  double px(double log2_dk) const { return x0 + w * (x_max > 0 ? log2_dk / x_max : 0.5); }
  double py(double v) const { return y0 + h - h * v / y_max; }
};

void axes(std::ostringstream& s, const Chart& c, const ScalingSweep& sw, const SvgStyle& st,
          const std::string& title, const std::string& y_label, int y_digits) {
  const int label = st.px(11);
  s << "<text x=\"" << c.x0 << "\" y=\"" << c.y0 - st.px(12) << "\" font-size=\"" << st.px(14)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<rect class=\"plot\" x=\"" << c.x0 << "\" y=\"" << c.y0 << "\" width=\"" << c.w << "\" height=\"" << c.h
    << "\" fill=\"none\" stroke=\"#999\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/>\n";
  const int x_step = label * 3 > c.w / std::max<int>(1, static_cast<int>(sw.d_k.size())) ? 2 : 1;
  for (std::size_t i = 0; i < sw.d_k.size(); i += static_cast<std::size_t>(x_step)) {
    const double x = c.px(std::log2(sw.d_k[i]));
    s << "<line x1=\"" << x << "\" y1=\"" << c.y0 + c.h << "\" x2=\"" << x << "\" y2=\"" << c.y0 + c.h + st.px(4)
      << "\" stroke=\"#555\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/><text class=\"x-tick\" x=\"" << x << "\" y=\"" << c.y0 + c.h + label + st.px(6)
      << "\" font-size=\"" << label << "\" text-anchor=\"middle\">" << sw.d_k[i] << "</text>\n";
  }
  for (int k = 0; k <= 4; ++k) {
    const double v = c.y_max * k / 4.0, y = c.py(v);
    s << "<line x1=\"" << c.x0 - st.px(4) << "\" y1=\"" << y << "\" x2=\"" << c.x0 + c.w << "\" y2=\"" << y
      << "\" stroke=\"#eee\"/><text class=\"y-tick\" x=\"" << c.x0 - st.px(6) << "\" y=\"" << y + label / 3
      << "\" font-size=\"" << label << "\" text-anchor=\"end\">" << fmt(v, y_digits) << "</text>\n";
  }
  s << "<text x=\"" << c.x0 + c.w / 2 << "\" y=\"" << c.y0 + c.h + 2 * label + st.px(14) << "\" font-size=\""
    << label << "\" fill=\"#555\" text-anchor=\"middle\">d_k (log2 scale)</text>\n";
  const int yl = c.x0 - 3 * label - st.px(8), ym = c.y0 + c.h / 2;
  s << "<text x=\"" << yl << "\" y=\"" << ym << "\" font-size=\"" << label
    << "\" fill=\"#555\" text-anchor=\"middle\" transform=\"rotate(-90 " << yl << " " << ym << ")\">"
    << escape(y_label) << "</text>\n";
}

void series(std::ostringstream& s, const Chart& c, const ScalingSweep& sw, const SvgStyle& st, std::size_t k,
            const std::vector<std::vector<double>>& values) {
  std::ostringstream upper, lower, mean;
  std::vector<std::pair<double, double>> low;
  for (std::size_t i = 0; i < sw.d_k.size(); ++i) {
    const Spread sp = spread_of(values[i]);
    const double x = c.px(std::log2(sw.d_k[i]));
    upper << (i ? " " : "") << x << "," << c.py(sp.max);
    low.emplace_back(x, c.py(sp.min));
    mean << (i ? " " : "") << x << "," << c.py(sp.mean);
  }
  for (auto it = low.rbegin(); it != low.rend(); ++it) lower << " " << it->first << "," << it->second;
  const std::string key = sw.series[k].key;
  s << "<polygon class=\"band\" data-series=\"" << key << "\" points=\"" << upper.str() << lower.str()
    << "\" fill=\"" << kColour[k] << "\" fill-opacity=\"0.2\" stroke=\"none\"/>\n"
    << "<polyline class=\"mean\" data-series=\"" << key << "\" points=\"" << mean.str() << "\" fill=\"none\" stroke=\""
    << kColour[k] << "\" stroke-width=\"" << fmt(2.5 * st.font_scale, 2) << "\"/>\n";
}

}  // namespace

std::string sweep_svg(const ScalingSweep& sw, const SvgStyle& st) {
  const int label = st.px(11);
  const std::string title = "Why divide by sqrt(d_k): the weights over d_k (section 14.3)";
  const std::string subtitle = "T = " + std::to_string(sw.inputs.size) + ", Q, K entries N(0, 1), " +
                               std::to_string(sw.seeds.size()) +
                               (sw.seeds.size() == 1 ? " seed: line = its value, no band (one seed)"
                                                     : " seeds: line = mean, band = min to max over the seeds");
  const std::string panel_title[2] = {"mean row entropy (nats; top: uniform, log T)",
                                      "mean largest weight"};
  const int left = st.px(40) + 3 * label, gap = st.px(60) + 3 * label;
  // The plots grow with --font-scale as the fonts do (380 x 260 at 1), so
  // the figure keeps its proportions; each panel's title fits over its plot
  // and the gap after it.
  int plot_w = st.px(380);
  for (const auto& t : panel_title) plot_w = std::max(plot_w, svg::text_width(t, st.px(14), true) + st.px(10) - gap);
  const int plot_h = st.px(260), top = st.px(100) + 2 * label;
  // The legend's items side by side, each as wide as its text.
  std::vector<int> legend_x;
  int legend_end = left;
  for (std::size_t k = 0; k < sw.series.size(); ++k) {
    legend_x.push_back(legend_end);
    const int item = st.px(30) + svg::text_width(sw.series[k].key + ": " + sw.series[k].title, st.px(13));
    legend_end += std::max(st.px(300), item + st.px(30));
  }
  // The texts above may need more width than the plots: the plots then widen
  // to it, leaving no empty band at the right.
  const int text_w = std::max({left + svg::text_width(title, st.px(18), true) + 20,
                               left + svg::text_width(subtitle, st.px(13)) + 20, legend_end});
  plot_w = std::max(plot_w, (text_w - left - gap - st.px(40)) / 2);
  const int width = std::max(left + 2 * plot_w + gap + st.px(40), text_w);
  const int height = top + plot_h + 3 * label + st.px(40);
  const double x_max = std::log2(sw.d_k.empty() ? 1 : sw.d_k.back());
  const Chart entropy{left, top, plot_w, plot_h, x_max, std::log(double(sw.inputs.size))};
  const Chart largest{left + plot_w + gap, top, plot_w, plot_h, x_max, 1.0};
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << left << "\" y=\"" << st.px(28) << "\" font-size=\"" << st.px(18)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<text x=\"" << left << "\" y=\"" << st.px(52) << "\" font-size=\"" << st.px(13) << "\" fill=\"#444\">"
    << escape(subtitle) << "</text>\n";
  // Legend.
  for (std::size_t k = 0; k < sw.series.size(); ++k) {
    const int lx = legend_x[k], ly = st.px(70) + label;
    s << "<g class=\"legend\"><rect x=\"" << lx << "\" y=\"" << ly - label << "\" width=\"" << st.px(24)
      << "\" height=\"" << label << "\" fill=\"" << kColour[k] << "\" fill-opacity=\"0.3\"/><line x1=\"" << lx
      << "\" y1=\"" << ly - label / 2 << "\" x2=\"" << lx + st.px(24) << "\" y2=\"" << ly - label / 2
      << "\" stroke=\"" << kColour[k] << "\" stroke-width=\"" << fmt(2.5 * st.font_scale, 2) << "\"/><text x=\"" << lx + st.px(30) << "\" y=\"" << ly
      << "\" font-size=\"" << st.px(13) << "\">" << sw.series[k].key << ": " << escape(sw.series[k].title)
      << "</text></g>\n";
  }
  axes(s, entropy, sw, st, panel_title[0], "entropy (nats)", 2);
  axes(s, largest, sw, st, panel_title[1], "largest weight", 2);
  for (std::size_t k = 0; k < sw.series.size(); ++k) {
    series(s, entropy, sw, st, k, sw.series[k].entropy);
    series(s, largest, sw, st, k, sw.series[k].largest);
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace attn::grader
