#pragma once
// A demonstration's weight matrices as an SVG heatmap for slides
// (`attnlab demo masking --svg FILE`): one panel per matrix side by side,
// each cell shaded by its weight (white 0 to dark blue 1, the value written
// in it when the cells are large enough), forbidden cells grey and crossed,
// each row's sum beside the panel (red when it is not 1), and a colour bar.
// Plain SVG 1.1 text; any browser, Inkscape or rsvg-convert renders it.

#include <filesystem>

#include "commands/demo_data.hpp"

namespace attn::grader {

/// Writes `d` as SVG to `file`. Throws std::runtime_error if it cannot be written.
void write_demo_svg(const std::filesystem::path& file, const DemoData& d);

}  // namespace attn::grader
