#pragma once
// What `attnlab demo` does with its options (teaching_cli.cpp parses them):
// the list, a demonstration as text, csv, json and SVG, the sweep, or the
// HTML page.

#include <optional>
#include <string>
#include <vector>

#include "commands/demo_data.hpp"
#include "commands/demo_svg.hpp"

namespace attn::grader {

struct DemoCommand {
  std::string name;  ///< the NAME given (an empty one is an unknown name)
  bool name_given = false;  ///< NAME given; not: the list (or the page, with html)
  std::string format = "text";
  std::optional<std::string> svg;   ///< --svg FILE
  std::optional<std::string> html;  ///< --html DIR
  DemoInputs inputs;
  int seeds = 10;                ///< --seeds, the sweep's
  SvgStyle style;                ///< --font-scale
  /// The input options given ("--size", "--mask", "--d-k", "--seed",
  /// "--seeds", "--example"), in their declaration order.
  std::vector<std::string> inputs_given;
  bool size_given = false;       ///< --size given (the sweep's default T is 16)
  bool font_scale_given = false; ///< --font-scale given
};

/// The input options the demonstration `name` reads, in declaration order:
/// the sweep --size, --seed, --seeds; masking, shift and weights --size,
/// --mask, --d-k, --seed, --example; scaling the same but --mask (its
/// panels are unmasked); with `text_example` (--example text) a panel
/// demonstration reads --example only (the text fixes the rest); the
/// text-only explanations and an unknown name read none.
std::vector<std::string> demo_reads(const std::string& name, bool text_example);

/// Runs it, writing to stdout (messages to stderr). Returns 0, or 2 for a
/// usage error, said on stderr: an unknown name, '' included (with the list); an option
/// given without a demonstration NAME (without NAME or --html the command
/// only lists); an input option the demonstration does not read, which would
/// otherwise be ignored in silence (demo_reads); a file that cannot be
/// written or a --html folder that cannot be made.
int run_demo_command(const DemoCommand& c);

}  // namespace attn::grader
