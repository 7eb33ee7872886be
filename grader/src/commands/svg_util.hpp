#pragma once
// Small helpers the demonstrations' SVG writers share (demo_svg.cpp,
// demo_sweep_svg.cpp): numbers, escaping, the weight colour scale.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attn::grader::svg {

/// `x` with `digits` decimals; "NaN" for NaN.
inline std::string fmt(double x, int digits) {
  if (std::isnan(x)) return "NaN";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

/// `s` with <, > and & escaped for XML text and attributes in double quotes.
inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

/// An upper estimate of the width in px of `text` drawn at `font_px` in
/// DejaVu Sans (about 0.55 em a character in these captions, 0.64 for
/// digits; bold wider): the figures lay out their margins, panels and
/// legends from it, so that larger fonts (--font-scale) widen the figure
/// instead of running out of it.
inline int text_width(const std::string& text, int font_px, bool bold = false) {
  return static_cast<int>(std::ceil(double(text.size()) * font_px * (bold ? 0.68 : 0.62)));
}

/// White (0) to dark blue (1), linear in each channel.
inline std::string shade(double w) {
  const double t = std::clamp(w, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(247 + t * (8 - 247)));
  const int g = static_cast<int>(std::lround(251 + t * (48 - 251)));
  const int b = static_cast<int>(std::lround(255 + t * (107 - 255)));
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

}  // namespace attn::grader::svg
