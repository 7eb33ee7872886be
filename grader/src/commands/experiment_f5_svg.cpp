// `attnlab experiment f5`'s figures (experiment_f5.hpp): the learning curves
// and the final accuracies, in the style of the demonstrations' SVG
// (demo_svg.hpp, demo_sweep_svg.cpp; the helpers of svg_util.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "commands/demo_sweep.hpp"
#include "commands/experiment_f5.hpp"
#include "commands/svg_util.hpp"

namespace attn::grader {
namespace {

using svg::escape;
using svg::fmt;

const char* const kColour[2] = {"#1f77b4", "#d62728"};  // scaled, unscaled (as the sweep's)
const char* const kArm[2] = {"scaled", "unscaled"};
const char* const kArmTitle[2] = {"scaled: softmax(QK^T / sqrt(d_k))", "unscaled: softmax(QK^T)"};

struct Chart {
  int x0, y0, w, h;  ///< the plot area
  double x_max, y_max;
  double y_min = 0;  ///< the value at the bottom of the axis
  double px(double x) const { return x0 + w * (x_max > 0 ? x / x_max : 0.5); }
  double py(double v) const { return y0 + h - h * std::clamp((v - y_min) / (y_max - y_min), 0.0, 1.0); }
};

std::string header(int width, int height) {
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  return s.str();
}

/// Where the legend's item k starts, for a legend starting at x (k = 2: where
/// it ends): each item as wide as its text, at least 300 px at scale 1.
int legend_x(const SvgStyle& st, int x, int k) {
  for (int i = 0; i < k; ++i)
    x += std::max(st.px(300), st.px(60) + svg::text_width(kArmTitle[i], st.px(13)));
  return x;
}

void legend(std::ostringstream& s, const SvgStyle& st, int x, int y) {
  const int label = st.px(11);
  for (int k = 0; k < 2; ++k) {
    const int lx = legend_x(st, x, k);
    s << "<g class=\"legend\"><rect x=\"" << lx << "\" y=\"" << y - label << "\" width=\"" << st.px(24)
      << "\" height=\"" << label << "\" fill=\"" << kColour[k] << "\" fill-opacity=\"0.3\"/><line x1=\"" << lx
      << "\" y1=\"" << y - label / 2 << "\" x2=\"" << lx + st.px(24) << "\" y2=\"" << y - label / 2 << "\" stroke=\""
      << kColour[k] << "\" stroke-width=\"" << fmt(2.5 * st.font_scale, 2) << "\"/><text x=\"" << lx + st.px(30) << "\" y=\"" << y << "\" font-size=\""
      << st.px(13) << "\">" << escape(kArmTitle[k]) << "</text></g>\n";
  }
}

// The frame, the title, the ticks (x: 0 to x_max in 4 steps, whole numbers; y: 0 to y_max in 4).
void axes(std::ostringstream& s, const Chart& c, const SvgStyle& st, const std::string& title,
          const std::string& x_label, const std::string& y_label, int y_digits) {
  const int label = st.px(11);
  s << "<text x=\"" << c.x0 << "\" y=\"" << c.y0 - st.px(10) << "\" font-size=\"" << st.px(14)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<rect class=\"plot\" x=\"" << c.x0 << "\" y=\"" << c.y0 << "\" width=\"" << c.w << "\" height=\"" << c.h
    << "\" fill=\"none\" stroke=\"#999\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double xv = c.x_max * k / 4.0, x = c.px(xv);
    s << "<line x1=\"" << x << "\" y1=\"" << c.y0 + c.h << "\" x2=\"" << x << "\" y2=\"" << c.y0 + c.h + st.px(4)
      << "\" stroke=\"#555\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/><text class=\"x-tick\" x=\"" << x << "\" y=\"" << c.y0 + c.h + label + st.px(6)
      << "\" font-size=\"" << label << "\" text-anchor=\"middle\">" << fmt(xv, 0) << "</text>\n";
    const double yv = c.y_max * k / 4.0, y = c.py(yv);
    s << "<line x1=\"" << c.x0 - st.px(4) << "\" y1=\"" << y << "\" x2=\"" << c.x0 + c.w << "\" y2=\"" << y
      << "\" stroke=\"#eee\"/><text class=\"y-tick\" x=\"" << c.x0 - st.px(6) << "\" y=\"" << y + label / 3
      << "\" font-size=\"" << label << "\" text-anchor=\"end\">" << fmt(yv, y_digits) << "</text>\n";
  }
  s << "<text x=\"" << c.x0 + c.w / 2 << "\" y=\"" << c.y0 + c.h + 2 * label + st.px(12) << "\" font-size=\""
    << label << "\" fill=\"#555\" text-anchor=\"middle\">" << escape(x_label) << "</text>\n";
  const int yl = c.x0 - 3 * label - st.px(8), ym = c.y0 + c.h / 2;
  s << "<text x=\"" << yl << "\" y=\"" << ym << "\" font-size=\"" << label
    << "\" fill=\"#555\" text-anchor=\"middle\" transform=\"rotate(-90 " << yl << " " << ym << ")\">"
    << escape(y_label) << "</text>\n";
}

// One arm's curve at one d_k: the band from the seeds' min to max, the line through their mean.
void curve(std::ostringstream& s, const Chart& c, const F5Result& r, const SvgStyle& st, std::size_t d, int a,
           bool loss) {
  const auto seeds = static_cast<std::size_t>(r.settings.seeds);
  const auto& first = r.runs[(d * seeds) * 2 + static_cast<std::size_t>(a)].curve;
  std::ostringstream upper, lower, mean;
  std::vector<std::pair<double, double>> low;
  for (std::size_t p = 0; p < first.step.size(); ++p) {
    std::vector<double> v;
    for (std::size_t k = 0; k < seeds; ++k) {
      const auto& sc = r.runs[(d * seeds + k) * 2 + static_cast<std::size_t>(a)].curve.score[p];
      v.push_back(loss ? sc.loss : sc.accuracy);
    }
    const Spread sp = spread_of(v);
    const double x = c.px(first.step[p]);
    upper << (p ? " " : "") << fmt(x, 2) << "," << fmt(c.py(sp.max), 2);
    low.emplace_back(x, c.py(sp.min));
    mean << (p ? " " : "") << fmt(x, 2) << "," << fmt(c.py(sp.mean), 2);
  }
  for (auto it = low.rbegin(); it != low.rend(); ++it) lower << " " << fmt(it->first, 2) << "," << fmt(it->second, 2);
  const std::string data = std::string(" data-arm=\"") + kArm[a] + "\" data-d-k=\"" +
                           std::to_string(r.settings.d_k[d]) + "\" data-metric=\"" + (loss ? "loss" : "accuracy") + "\"";
  s << "<polygon class=\"band\"" << data << " points=\"" << upper.str() << lower.str() << "\" fill=\"" << kColour[a]
    << "\" fill-opacity=\"0.2\" stroke=\"none\"/>\n"
    << "<polyline class=\"mean\"" << data << " points=\"" << mean.str() << "\" fill=\"none\" stroke=\"" << kColour[a]
    << "\" stroke-width=\"" << fmt(2.5 * st.font_scale, 2) << "\"/>\n";
}

// A round upper limit for the loss axis: the largest value shown, rounded up to 1, 2 or 5 times a power of 10.
double loss_axis(const F5Result& r) {
  double top = 0;
  for (const auto& run : r.runs)
    for (const auto& p : run.curve.score)
      if (std::isfinite(p.loss)) top = std::max(top, p.loss);
  if (!(top > 0)) return 1.0;
  const double e = std::pow(10.0, std::floor(std::log10(top)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * e >= top) return m * e;
  return 10 * e;
}

}  // namespace

std::string f5_curves_svg(const F5Result& r, const SvgStyle& st) {
  const int label = st.px(11);
  const std::string title = "Exercise F5: training with and without 1/sqrt(d_k) (section 14.3)";
  std::ostringstream sub;
  sub << "associative recall, one attention layer, "
      << (r.settings.optimizer == attn::exp::Optimizer::adam ? "Adam" : "SGD") << " lr " << r.settings.learning_rate
      << "; " << r.settings.seeds << " seeds: line = mean, band = min to max over the seeds";
  const std::string subtitle = sub.str();
  const int left = st.px(40) + 3 * label, gap = st.px(60) + 3 * label;
  // The plots grow with --font-scale as the fonts do (380 x 200 at 1), so the
  // figure keeps its proportions; each panel's title ("d_k = 256: validation
  // accuracy") fits over its plot and the gap after it.
  int plot_w = st.px(380);
  for (const int d_k : r.settings.d_k)
    plot_w = std::max(plot_w, svg::text_width("d_k = " + std::to_string(d_k) + ": validation accuracy",
                                              st.px(14), true) + st.px(10) - gap);
  const int plot_h = st.px(200), top = st.px(100) + 2 * label, row = plot_h + 3 * label + st.px(60);
  const auto rows = static_cast<int>(r.settings.d_k.size());
  // The texts above may need more width than the plots: the plots then widen
  // to it, leaving no empty band at the right.
  const int text_w = std::max({left + svg::text_width(title, st.px(18), true) + 20,
                               left + svg::text_width(subtitle, st.px(13)) + 20, legend_x(st, left, 2)});
  plot_w = std::max(plot_w, (text_w - left - gap - st.px(40)) / 2);
  const int width = std::max(left + 2 * plot_w + gap + st.px(40), text_w);
  const int height = top + rows * row;
  const double y_loss = loss_axis(r);
  std::ostringstream s;
  s << header(width, height) << "<text x=\"" << left << "\" y=\"" << st.px(28) << "\" font-size=\"" << st.px(18)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<text x=\"" << left << "\" y=\"" << st.px(52) << "\" font-size=\"" << st.px(13) << "\" fill=\"#444\">"
    << escape(subtitle) << "</text>\n";
  legend(s, st, left, st.px(70) + label);
  for (int d = 0; d < rows; ++d) {
    const int y0 = top + d * row;
    const double steps = r.settings.steps;
    const Chart loss{left, y0, plot_w, plot_h, steps, y_loss};
    const Chart acc{left + plot_w + gap, y0, plot_w, plot_h, steps, 1.0};
    const std::string dk = "d_k = " + std::to_string(r.settings.d_k[static_cast<std::size_t>(d)]);
    axes(s, loss, st, dk + ": validation loss", "step", "mean squared error", 2);
    axes(s, acc, st, dk + ": validation accuracy", "step", "accuracy", 2);
    for (int a = 0; a < 2; ++a) {
      curve(s, loss, r, st, static_cast<std::size_t>(d), a, true);
      curve(s, acc, r, st, static_cast<std::size_t>(d), a, false);
    }
  }
  s << "</svg>\n";
  return s.str();
}

namespace {

// One panel of final.svg: per d_k, each seed's final value as a dot, scaled
// left and unscaled right, the pairs joined, the means as bars; the axis
// from y_min to y_max (4 ticks).
void final_panel(std::ostringstream& s, const Chart& c, const F5Result& r, const SvgStyle& st, bool loss,
                 const std::string& title, int group_w) {
  const int label = st.px(11);
  const auto seeds = static_cast<std::size_t>(r.settings.seeds);
  const std::vector<F5Comparison> cmp = f5_compare(r);
  auto value = [&](std::size_t d, std::size_t k, int a) {
    const auto& p = r.runs[(d * seeds + k) * 2 + static_cast<std::size_t>(a)].curve.score.back();
    return loss ? p.loss : p.accuracy;
  };
  s << "<text x=\"" << c.x0 << "\" y=\"" << c.y0 - st.px(10) << "\" font-size=\"" << st.px(14)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<rect class=\"plot\" x=\"" << c.x0 << "\" y=\"" << c.y0 << "\" width=\"" << c.w << "\" height=\"" << c.h
    << "\" fill=\"none\" stroke=\"#999\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double v = c.y_min + (c.y_max - c.y_min) * k / 4.0, y = c.py(v);
    s << "<line x1=\"" << c.x0 - st.px(4) << "\" y1=\"" << y << "\" x2=\"" << c.x0 + c.w << "\" y2=\"" << y
      << "\" stroke=\"#eee\"/><text class=\"y-tick\" x=\"" << c.x0 - st.px(6) << "\" y=\"" << y + label / 3
      << "\" font-size=\"" << label << "\" text-anchor=\"end\">" << fmt(v, 3) << "</text>\n";
  }
  const int yl = c.x0 - 4 * label - st.px(8), ym = c.y0 + c.h / 2;
  s << "<text x=\"" << yl << "\" y=\"" << ym << "\" font-size=\"" << label
    << "\" fill=\"#555\" text-anchor=\"middle\" transform=\"rotate(-90 " << yl << " " << ym << ")\">"
    << (loss ? "final loss (lower is better)" : "final accuracy") << "</text>\n";
  for (std::size_t d = 0; d < r.settings.d_k.size(); ++d) {
    const double xc = c.x0 + group_w * (static_cast<double>(d) + 0.5), xa[2] = {xc - group_w * 0.2, xc + group_w * 0.2};
    s << "<text class=\"x-tick\" x=\"" << xc << "\" y=\"" << c.y0 + c.h + label + st.px(6) << "\" font-size=\"" << label
      << "\" text-anchor=\"middle\">d_k = " << r.settings.d_k[d] << "</text>\n";
    // The verdict of this panel's criterion under each group (F5Criterion::verdict).
    const F5Criterion& crit = cmp[d].criteria[loss ? 1 : 0];
    s << "<text class=\"verdict\" x=\"" << xc << "\" y=\"" << c.y0 + c.h + 2 * label + st.px(12)
      << "\" font-size=\"" << label << "\" fill=\"#555\" text-anchor=\"middle\">" << (loss ? "better: " : "faster: ")
      << crit.verdict() << "</text>\n";
    for (std::size_t k = 0; k < seeds; ++k)
      s << "<line class=\"pair\" x1=\"" << fmt(xa[0], 2) << "\" y1=\"" << fmt(c.py(value(d, k, 0)), 2)
        << "\" x2=\"" << fmt(xa[1], 2) << "\" y2=\"" << fmt(c.py(value(d, k, 1)), 2) << "\" stroke=\"#bbb\" stroke-width=\"" << fmt(st.font_scale, 2) << "\"/>\n";
    for (int a = 0; a < 2; ++a) {
      std::vector<double> v;
      for (std::size_t k = 0; k < seeds; ++k) {
        v.push_back(value(d, k, a));
        s << "<circle class=\"seed\" data-arm=\"" << kArm[a] << "\" data-d-k=\"" << r.settings.d_k[d]
          << "\" data-metric=\"" << (loss ? "loss" : "accuracy") << "\" cx=\"" << fmt(xa[a], 2) << "\" cy=\""
          << fmt(c.py(v.back()), 2) << "\" r=\"" << fmt(4 * st.font_scale, 2) << "\" fill=\"" << kColour[a] << "\" fill-opacity=\"0.7\"/>\n";
      }
      const double ym_a = c.py(spread_of(v).mean);
      s << "<line class=\"mean\" data-arm=\"" << kArm[a] << "\" x1=\"" << fmt(xa[a] - 14 * st.font_scale, 2) << "\" y1=\""
        << fmt(ym_a, 2) << "\" x2=\"" << fmt(xa[a] + 14 * st.font_scale, 2) << "\" y2=\"" << fmt(ym_a, 2) << "\" stroke=\""
        << kColour[a] << "\" stroke-width=\"" << fmt(3 * st.font_scale, 2) << "\"/>\n";
    }
  }
}

}  // namespace

std::string f5_final_svg(const F5Result& r, const SvgStyle& st) {
  const int label = st.px(11);
  const auto groups = static_cast<int>(r.settings.d_k.size());
  const std::string title = "Exercise F5: where each seed ends, scaled beside unscaled (section 14.3)";
  const std::string subtitle = "after " + std::to_string(r.settings.steps) +
                               " steps; dot = one seed, grey line = the same seed in both arms, bar = mean";
  const std::string note[2] = {"Verdicts, by a paired one-sided sign test over the " +
                                   std::to_string(r.settings.seeds) + " seeds (level 0.05):",
                               "faster on the mean validation accuracy over the curve, better on the final loss."};
  const std::string panel_title[2] = {"final validation accuracy", "final validation loss"};
  // The plots grow with --font-scale as the fonts do (a group 160 px wide
  // and the plots 260 px high at 1), so the figure keeps its proportions.
  const int plot_h = st.px(260), left = st.px(40) + 4 * label, top = st.px(100) + 2 * label;
  const int gap = st.px(60) + 4 * label;
  // A group holds its widest label ("d_k = 1024", "better: not shown"); a
  // panel holds its title; the page its title, notes and legend.
  int group_w = st.px(160);
  for (const int d_k : r.settings.d_k)
    group_w = std::max(group_w, svg::text_width("d_k = " + std::to_string(d_k), label) + st.px(16));
  group_w = std::max(group_w, svg::text_width("better: not shown", label) + st.px(16));
  int plot_w = groups * group_w;
  for (const auto& t : panel_title) plot_w = std::max(plot_w, svg::text_width(t, st.px(14), true) + st.px(10) - gap);
  // The texts may need more width than the plots: the plots then widen to
  // it, leaving no empty band at the right.
  int text_w = std::max({left + svg::text_width(title, st.px(18), true) + 20,
                         left + svg::text_width(subtitle, st.px(13)) + 20, legend_x(st, left, 2)});
  for (const auto& line : note) text_w = std::max(text_w, left + svg::text_width(line, label) + 20);
  plot_w = std::max(plot_w, (text_w - left - gap - st.px(40)) / 2);
  group_w = plot_w / std::max(1, groups);
  const int width = std::max(left + 2 * plot_w + gap + st.px(40), text_w);
  const int height = top + plot_h + 5 * label + st.px(60);
  // The accuracy axis from a multiple of 0.05 below the lowest value to 1;
  // the loss axis from 0 to a round value above the highest.
  double lowest_acc = 1, highest_loss = 0;
  for (const auto& run : r.runs) {
    lowest_acc = std::min(lowest_acc, run.curve.score.back().accuracy);
    if (std::isfinite(run.curve.score.back().loss)) highest_loss = std::max(highest_loss, run.curve.score.back().loss);
  }
  Chart acc{left, top, plot_w, plot_h, 1.0, 1.0};
  acc.y_min = std::min(0.95, std::floor(lowest_acc * 20 - 1e-9) / 20);
  Chart loss{left + plot_w + gap, top, plot_w, plot_h, 1.0, 1.0};
  if (highest_loss > 0) {
    const double e = std::pow(10.0, std::floor(std::log10(highest_loss)));
    loss.y_max = std::ceil(highest_loss / e * 2) / 2 * e;  // up to a half step of its leading digit
  }
  std::ostringstream s;
  s << header(width, height) << "<text x=\"" << left << "\" y=\"" << st.px(28) << "\" font-size=\"" << st.px(18)
    << "\" font-weight=\"bold\">" << escape(title) << "</text>\n"
    << "<text x=\"" << left << "\" y=\"" << st.px(52) << "\" font-size=\"" << st.px(13) << "\" fill=\"#444\">"
    << escape(subtitle) << "</text>\n";
  for (int k = 0; k < 2; ++k)
    s << "<text x=\"" << left << "\" y=\"" << height - st.px(12) - (1 - k) * (label + st.px(4))
      << "\" font-size=\"" << label << "\" fill=\"#555\">" << escape(note[k]) << "</text>\n";
  legend(s, st, left, st.px(70) + label);
  final_panel(s, acc, r, st, false, panel_title[0], group_w);
  final_panel(s, loss, r, st, true, panel_title[1], group_w);
  s << "</svg>\n";
  return s.str();
}

}  // namespace attn::grader
