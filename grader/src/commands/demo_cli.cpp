// `attnlab demo`: from the options to the outputs (see demo_cli.hpp).
#include "commands/demo_cli.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands/demo.hpp"
#include "commands/demo_html.hpp"
#include "commands/demo_sweep.hpp"

namespace attn::grader {
namespace {

int run_sweep(const DemoCommand& c) {
  SweepInputs in;
  if (c.size_given) in.size = c.inputs.size;
  in.seeds = c.seeds;
  in.seed = c.inputs.seed;
  const ScalingSweep sweep = scaling_sweep(in);
  write_sweep(std::cout, sweep, c.format);
  if (c.svg) {
    write_svg_file(*c.svg, sweep_svg(sweep, c.style));
    std::cerr << "attnlab: wrote " << *c.svg << "\n";
  }
  return 0;
}

int run_panels(const DemoCommand& c) {
  const DemoData data = demo_data(c.name, c.inputs);
  if (c.format == "text" && c.inputs_given.empty()) {
    // The text's own example as the text tells it first, then the random one.
    run_demo(c.name, std::cout);
    std::cout << "\n";
  }
  write_demo(std::cout, data, c.format);
  if (c.svg) {
    write_svg_file(*c.svg, demo_svg(data, c.style));
    std::cerr << "attnlab: wrote " << *c.svg << "\n";
  }
  return 0;
}

/// A problem with an output path, said before anything is computed or
/// printed and naming its option: --html DIR that is empty, not a folder or
/// cannot be made (it is made here), --svg
/// FILE that cannot be written (opened for appending: made if missing, an
/// existing file left as it is until the figure replaces it).
std::string output_problem(const DemoCommand& c) {
  if (c.html) {
    if (c.html->empty()) return "--html needs a folder (DIR, the folder index.html is written into), got ''";
    std::error_code ec;
    if (std::filesystem::exists(*c.html, ec) && !std::filesystem::is_directory(*c.html, ec))
      return "--html " + *c.html + ": not a folder (DIR is the folder index.html is written into)";
    // Made here, so that a folder that cannot be made is said naming --html.
    std::filesystem::create_directories(*c.html, ec);
    if (ec) return "--html " + *c.html + ": cannot make the folder (" + ec.message() + ")";
  }
  if (c.svg) {
    std::ofstream probe(*c.svg, std::ios::app);
    if (!probe) return "--svg " + *c.svg + ": cannot write this file";
  }
  return {};
}

/// The usage error for the first input option given that `c`'s
/// demonstration does not read; empty when it reads all that were given.
std::string unread_input(const DemoCommand& c) {
  const std::vector<std::string> reads = demo_reads(c.name, c.inputs.text_example);
  for (const auto& given : c.inputs_given) {
    if (std::find(reads.begin(), reads.end(), given) != reads.end()) continue;
    std::string list;
    for (const auto& r : reads) list += (list.empty() ? "" : ", ") + r;
    return "the demonstration '" + c.name + "'" +
           (c.inputs.text_example ? " on the text's example" : "") + " does not read " + given +
           (list.empty() ? " (it reads no inputs)" : " (it reads " + list + ")");
  }
  return {};
}

}  // namespace

std::vector<std::string> demo_reads(const std::string& name, bool text_example) {
  if (name == kSweepDemo) return {"--size", "--seed", "--seeds"};
  const auto& names = panel_demos();
  if (std::find(names.begin(), names.end(), name) == names.end()) return {};
  if (text_example) return {"--example"};
  if (name == "scaling") return {"--size", "--d-k", "--seed", "--example"};
  return {"--size", "--mask", "--d-k", "--seed", "--example"};
}

int run_demo_command(const DemoCommand& c) {
  try {
    if (c.html) {
      if (c.name_given || !c.inputs_given.empty() || c.svg || c.format != "text") {
        std::cerr << "attnlab: --html DIR writes every demonstration and its variants; it takes no NAME, "
                     "input, --format or --svg (only --font-scale)\n";
        return 2;
      }
      if (const std::string why = output_problem(c); !why.empty()) {
        std::cerr << "attnlab: " << why << "\n";
        return 2;
      }
      const auto file = write_demo_page(*c.html, c.style);
      std::cerr << "attnlab: wrote " << file.string() << "\n";
      return 0;
    }
    if (!c.name_given) {
      // The list reads no option: one given would be ignored in silence.
      const std::string given = !c.inputs_given.empty() ? c.inputs_given.front()
                                : c.svg                 ? "--svg"
                                : c.format != "text"    ? "--format"
                                : c.font_scale_given    ? "--font-scale"
                                                        : "";
      if (!given.empty()) {
        std::cerr << "attnlab: " << given << " needs a demonstration: attnlab demo NAME " << given
                  << " ... (or --html DIR for the page)\n";
        list_demos(std::cerr);
        return 2;
      }
      list_demos(std::cout);
      return 0;
    }
    const bool known = std::any_of(demos().begin(), demos().end(),
                                   [&](const Demo& d) { return d.name == c.name; });
    if (!known) {
      std::cerr << "attnlab: unknown demonstration '" << c.name << "'\n";
      list_demos(std::cerr);
      return 2;
    }
    const auto& names = panel_demos();
    const bool panels = std::find(names.begin(), names.end(), c.name) != names.end();
    std::string why = unread_input(c);
    if (why.empty()) why = output_problem(c);  // only then: it may make the --svg file
    if (!why.empty()) {
      std::cerr << "attnlab: " << why << "\n";
      return 2;
    }
    return panels ? run_panels(c) : run_sweep(c);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace attn::grader
