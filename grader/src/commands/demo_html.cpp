// The page of every demonstration (see demo_html.hpp).
#include "commands/demo_html.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "commands/demo_sweep.hpp"
#include "commands/svg_util.hpp"

namespace attn::grader {
namespace {

using svg::escape;
using Params = std::vector<std::pair<std::string, std::string>>;

/// Every combination of the controls' values, the first control varying slowest.
std::vector<Params> combinations(const PageFigure& f) {
  std::vector<Params> out = {{}};
  for (const auto& [name, values] : f.controls) {
    std::vector<Params> next;
    for (const Params& p : out)
      for (const std::string& v : values) {
        Params q = p;
        q.emplace_back(name, v);
        next.push_back(q);
      }
    out = next;
  }
  return out;
}

std::string key_of(const Params& p) {
  std::string key;
  for (const auto& [k, v] : p) key += (key.empty() ? "" : "&") + k + "=" + v;
  return key;
}

/// The figure's SVG (without its XML declaration), its caption and its command.
struct Variant {
  std::string svg, caption, command;
};

Variant variant(const PageFigure& f, const Params& p, const SvgStyle& style) {
  std::string command = "attnlab demo " + f.demo;
  for (const auto& [k, v] : p) command += " --" + k + " " + v;
  Variant out;
  if (f.demo == kSweepDemo) {
    SweepInputs in;
    for (const auto& [k, v] : p) {
      if (k == "size") in.size = std::stoi(v);
      if (k == "seed") in.seed = std::stoull(v);
    }
    out.svg = sweep_svg(scaling_sweep(in), style);
    out.caption = sweep_note();
  } else {
    DemoInputs in;
    in.d_k = 16;
    in.text_example = f.text_example;
    for (const auto& [k, v] : p) {
      if (k == "size") in.size = std::stoi(v);
      if (k == "seed") in.seed = std::stoull(v);
      if (k == "mask") in.mask = v;
      if (k == "d-k") in.d_k = std::stoi(v);
    }
    if (f.text_example) command += " --example text";
    else if (f.demo != "scaling") command += " --d-k 16";
    const DemoData d = demo_data(f.demo, in);
    out.svg = demo_svg(d, style);
    out.caption = d.note;
    // Its controls have no d_k: the caption says which it is, and how to change it.
    if (!f.text_example && f.demo != "scaling")
      out.caption += "Every variant on this page has d_k = 16 (its command's --d-k sets another).\n";
  }
  if (style.font_scale != 1.0) command += " --font-scale " + svg::fmt(style.font_scale, 2);
  out.command = command + " --svg " + f.id + ".svg";
  out.svg.erase(0, out.svg.find("<svg"));
  return out;
}

const char* kScript = R"JS(
(function () {
  var sections = document.querySelectorAll("section.figure");
  function show(sec) {
    var selects = sec.querySelectorAll("select");
    var key = [];
    for (var i = 0; i < selects.length; ++i) key.push(selects[i].name + "=" + selects[i].value);
    key = key.join("&");
    var variants = sec.querySelectorAll(".variant");
    for (var j = 0; j < variants.length; ++j) variants[j].hidden = variants[j].getAttribute("data-params") !== key;
  }
  // The option of `select` nearest to `want`: itself, else the nearest
  // number (by ratio), else the first.
  function nearest(select, want) {
    var best = select.options[0].value, bestd = Infinity, w = parseFloat(want);
    for (var i = 0; i < select.options.length; ++i) {
      var v = select.options[i].value, x = parseFloat(v);
      if (v === want) return v;
      var d = w > 0 && x > 0 ? Math.abs(Math.log(x / w)) : Infinity;
      if (d < bestd) { best = v; bestd = d; }
    }
    return best;
  }
  var hash = decodeURIComponent(location.hash.slice(1));
  var target = null;
  if (hash.indexOf(":") > 0) {
    target = document.getElementById(hash.slice(0, hash.indexOf(":")));
    var pairs = hash.slice(hash.indexOf(":") + 1).split("&");
    var missing = [];
    for (var p = 0; target && p < pairs.length; ++p) {
      var kv = pairs[p].split("=");
      var s = target.querySelector('select[name="' + kv[0] + '"]');
      if (!s) continue;
      s.value = nearest(s, kv[1]);
      if (s.value !== kv[1]) missing.push(kv[0] + " = " + kv[1] + " (shown: " + s.value + ")");
    }
    // A value the page has no variant for: the nearest is shown, and said.
    var note = target && target.querySelector(".fallback");
    if (note && missing.length) {
      note.textContent = "This page has no variant with " + missing.join(", ") +
          "; the nearest is shown. The figure's command with the value you asked for makes it.";
      note.hidden = false;
    }
  }
  for (var k = 0; k < sections.length; ++k) {
    (function (sec) {
      var selects = sec.querySelectorAll("select");
      for (var i = 0; i < selects.length; ++i) selects[i].addEventListener("change", function () { show(sec); });
      show(sec);
    })(sections[k]);
  }
  // The browser scrolls to an element whose id is the whole fragment; with
  // its controls after the ":" none has it, so the figure is scrolled into
  // view here, once its variant is shown (and where it landed is recorded).
  if (target) {
    target.scrollIntoView();
    document.body.setAttribute("data-scrolled-to",
        target.id + " " + Math.round(target.getBoundingClientRect().top) + " " + Math.round(window.scrollY));
  }
  document.body.setAttribute("data-ready", "yes");
})();
)JS";

}  // namespace

std::vector<PageFigure> demo_page_figures() {
  const std::vector<std::string> masks = {"causal", "padding", "none"}, sizes = {"4", "8"}, seeds = {"1", "2"};
  std::vector<PageFigure> figures;
  for (const std::string& name : panel_demos()) {
    if (name == "scaling")
      figures.push_back({name, name, false, {{"d-k", {"4", "64", "1024"}}, {"size", sizes}, {"seed", seeds}}});
    else
      figures.push_back({name, name, false, {{"mask", masks}, {"size", sizes}, {"seed", seeds}}});
    figures.push_back({name + "-text", name, true, {}});
  }
  figures.push_back({kSweepDemo, kSweepDemo, false, {{"size", {"16", "8"}}, {"seed", {"1", "11"}}}});
  return figures;
}

std::filesystem::path write_demo_page(const std::filesystem::path& dir, const SvgStyle& style) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>attnlab: the lecture's figures</title>\n<style>\n"
    << "body { font-family: 'DejaVu Sans', sans-serif; margin: 2em; font-size: " << 16 * style.font_scale
    << "px; }\nsection.figure { border-top: 1px solid #ccc; padding-top: 1em; margin-bottom: 2em; }\n"
    << ".variant svg { max-width: 100%; height: auto; }\n.caption { white-space: pre-line; color: #333; }\n"
    << ".fallback { background: #fff3cd; padding: 0.4em; }\n"
    << "code { background: #f4f4f4; padding: 0.2em 0.4em; }\nlabel { margin-right: 1em; }\n</style>\n</head>\n<body>\n"
    << "<h1>Scaled dot-product attention: the lecture's figures</h1>\n"
    << "<p>Every figure is computed by attnlab's library; the controls choose among inputs computed when "
       "this page was written (<code>attnlab demo --html DIR</code>), and each figure's command makes it "
       "alone.</p>\n<nav>";
  const auto figures = demo_page_figures();
  for (const auto& f : figures) h << "<a href=\"#" << f.id << "\">" << f.id << "</a> ";
  h << "</nav>\n";
  for (const auto& f : figures) {
    h << "<section class=\"figure\" id=\"" << f.id << "\">\n<h2>" << f.id
      << (f.text_example ? " (the text's example)" : "") << "</h2>\n";
    if (!f.controls.empty()) {
      h << "<form class=\"controls\">";
      for (const auto& [name, values] : f.controls) {
        h << "<label>" << name << " <select name=\"" << name << "\">";
        for (const auto& v : values) h << "<option>" << escape(v) << "</option>";
        h << "</select></label>";
      }
      h << "</form>\n<p class=\"fallback\" hidden></p>\n";
    }
    bool first = true;
    for (const Params& p : combinations(f)) {
      const Variant v = variant(f, p, style);
      h << "<div class=\"variant\" data-params=\"" << escape(key_of(p)) << "\"" << (first ? "" : " hidden")
        << ">\n<p>command: <code class=\"command\">" << escape(v.command) << "</code></p>\n"
        << v.svg << "<p class=\"caption\">" << escape(v.caption) << "</p>\n</div>\n";
      first = false;
    }
    h << "</section>\n";
  }
  h << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  std::filesystem::create_directories(dir);
  const auto file = dir / "index.html";
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << h.str();
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

}  // namespace attn::grader
