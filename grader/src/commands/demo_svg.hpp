#pragma once
// The demonstrations as SVG figures for slides (`attnlab demo NAME --svg
// FILE [--font-scale F]`). Plain SVG 1.1 text; any browser, Inkscape or
// rsvg-convert renders it.
//   demo_svg: one heatmap panel per weight matrix side by side, each cell
//     shaded by its weight (white 0 to dark blue 1, the value written in it
//     when the cells are large enough), row (query) and column (key) indices
//     on the axes, forbidden cells grey and crossed, NaN cells orange, each
//     row's sum beside the panel (red when it is not 1), a colour bar, and a
//     legend for forbidden (and NaN) cells only when a panel has one.
//   sweep_svg: section 14.3's sweep, two charts (mean row entropy, mean
//     largest weight) against log2 d_k, the scaled and the unscaled series
//     each a line through the mean over the seeds and a band from their
//     minimum to their maximum.

#include <filesystem>
#include <string>

#include "commands/demo_data.hpp"
#include "commands/demo_sweep.hpp"

namespace attn::grader {

struct SvgStyle {
  /// Multiplies every font size, the margins around the text, the plots'
  /// width and height and their lines' width (1: 11 px axis labels, a sweep
  /// plot 380 x 260 px with 2.5 px lines; 1.5 or 2 for a projector), so a
  /// figure keeps its proportions. From 0.5 to 4.
  double font_scale = 1.0;
  /// The pixel size of a font of `base` px at this scale.
  int px(double base) const { return static_cast<int>(base * font_scale + 0.5); }
};

/// The heatmaps of `d` as an SVG document.
std::string demo_svg(const DemoData& d, const SvgStyle& style);

/// The sweep `s` as an SVG document.
std::string sweep_svg(const ScalingSweep& s, const SvgStyle& style);

/// Writes `svg` to `file`. Throws std::runtime_error if it cannot be written.
void write_svg_file(const std::filesystem::path& file, const std::string& svg);

}  // namespace attn::grader
