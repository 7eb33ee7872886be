// `attnlab demo`: from the options to the outputs (see demo_cli.hpp).
#include "commands/demo_cli.hpp"

#include <algorithm>
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
  if (c.format == "text" && !c.inputs_given) {
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

}  // namespace

int run_demo_command(const DemoCommand& c) {
  try {
    if (c.html) {
      if (!c.name.empty() || c.inputs_given || c.svg || c.format != "text") {
        std::cerr << "attnlab: --html DIR writes every demonstration and its variants; it takes no NAME, "
                     "input, --format or --svg (only --font-scale)\n";
        return 2;
      }
      const auto file = write_demo_page(*c.html, c.style);
      std::cerr << "attnlab: wrote " << file.string() << "\n";
      return 0;
    }
    if (c.name.empty()) {
      list_demos(std::cout);
      return 0;
    }
    if (c.name == kSweepDemo) return run_sweep(c);
    const auto& names = panel_demos();
    if (std::find(names.begin(), names.end(), c.name) != names.end()) return run_panels(c);
    if (c.inputs_given || c.svg || c.format != "text") {
      std::cerr << "attnlab: the demonstration '" << c.name << "' takes no inputs, --format or --svg\n";
      return 2;
    }
    return run_demo(c.name, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace attn::grader
