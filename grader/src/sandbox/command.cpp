// Command: argv, prefix, environment and limits of a child process.
#include "sandbox/command.hpp"

namespace attn::grader {

std::vector<std::string> Command::full_argv() const {
  std::vector<std::string> all = prefix;
  all.insert(all.end(), argv.begin(), argv.end());
  return all;
}

std::string Command::display() const {
  std::string text;
  for (const auto& a : full_argv()) {
    if (!text.empty()) text += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$") == std::string::npos;
    if (plain) {
      text += a;
    } else {
      text += '\'';
      for (char ch : a) text += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      text += '\'';
    }
  }
  return text;
}

}  // namespace attn::grader
