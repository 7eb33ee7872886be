#pragma once
// One page to present from (`attnlab demo --html DIR [--font-scale F]`):
// DIR/index.html, self-contained (no network, no external file or script:
// the figures are inline SVG, the controls one inline script), with every
// demonstration's figure (masking, scaling, shift, weights on random
// inputs, each on the text's own example, and section 14.3's sweep), its
// caption and the command that makes it. Each figure's controls (mask
// kind, size, d_k, seed) choose among variants computed when the page is
// written (demo_page_figures()); the command shown follows the choice. A
// fragment `#NAME:key=value&key=value` (for example
// `#masking:mask=none&size=8`) chooses a variant when the page opens.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "commands/demo_svg.hpp"

namespace attn::grader {

/// One figure of the page and the inputs its variants take.
struct PageFigure {
  std::string id;       ///< "masking", "masking-text", "scaling-sweep"
  std::string demo;     ///< the demonstration: "masking", ..., "scaling-sweep"
  bool text_example = false;
  /// The controls, in order: option name ("mask", "size", "d-k", "seed") and its values.
  std::vector<std::pair<std::string, std::vector<std::string>>> controls;
};

/// The page's figures, in page order.
std::vector<PageFigure> demo_page_figures();

/// Writes DIR/index.html (DIR is created if missing) and returns its path.
/// Throws std::runtime_error if it cannot be written, std::invalid_argument
/// (from demo_data) if a variant's inputs are out of range.
std::filesystem::path write_demo_page(const std::filesystem::path& dir, const SvgStyle& style);

}  // namespace attn::grader
