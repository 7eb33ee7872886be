#pragma once
// What `attnlab demo` does with its options (teaching_cli.cpp parses them):
// the list, a demonstration as text, csv, json and SVG, the sweep, or the
// HTML page.

#include <optional>
#include <string>

#include "commands/demo_data.hpp"
#include "commands/demo_svg.hpp"

namespace attn::grader {

struct DemoCommand {
  std::string name;  ///< empty: the list (or the page, with html)
  std::string format = "text";
  std::optional<std::string> svg;   ///< --svg FILE
  std::optional<std::string> html;  ///< --html DIR
  DemoInputs inputs;
  int seeds = 10;                ///< --seeds, the sweep's
  SvgStyle style;                ///< --font-scale
  bool inputs_given = false;     ///< --size, --mask, --d-k, --seed, --seeds or --example given
  bool size_given = false;       ///< --size given (the sweep's default T is 16)
};

/// Runs it, writing to stdout (messages to stderr). Returns 0, or 2 for a
/// usage error (options a demonstration does not take, an unknown name, a
/// file that cannot be written).
int run_demo_command(const DemoCommand& c);

}  // namespace attn::grader
