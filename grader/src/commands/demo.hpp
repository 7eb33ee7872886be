#pragma once
// Teaching demonstrations for a lecture (`attnlab demo NAME`): small, fixed
// examples from the text, printed with the reason they come out as they do.

#include <ostream>
#include <string>
#include <vector>

namespace attn::grader {

struct Demo {
  std::string name;     ///< "masking"
  std::string summary;  ///< one line for the list
  void (*run)(std::ostream&);
};

/// Every demonstration, in the order `attnlab demo` lists them.
const std::vector<Demo>& demos();

/// Runs the named demo. Returns 0, or 2 (with the list) for an unknown name.
int run_demo(const std::string& name, std::ostream& out);

/// Prints the list of demonstrations.
void list_demos(std::ostream& out);

}  // namespace attn::grader
