#pragma once
// Colour for the text report on a terminal: [PASS] green, [FAIL], [ERROR],
// [NOT RUN] and NOT GRADABLE red, "hint:" yellow, the score line bold. Only
// when stdout is a terminal and NO_COLOR (https://no-color.org) is unset or
// empty; report files are never coloured (they are written separately).

#include <unistd.h>

#include <cstdlib>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

namespace attn::grader {

/// Whether to colour stdout: a terminal, and NO_COLOR unset or empty.
inline bool colour_wanted() {
  const char* no = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) == 1 && (no == nullptr || *no == '\0');
}

/// A streambuf that colours each line it passes on to `out`.
class ColourBuf : public std::streambuf {
 public:
  explicit ColourBuf(std::streambuf* out) : out_(out) {}
  ~ColourBuf() override { flush_line(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line_ += static_cast<char>(c);
    if (c == '\n') flush_line();
    return c;
  }
  int sync() override {
    flush_line();
    return out_->pubsync();
  }

 private:
  void flush_line() {
    if (line_.empty()) return;
    static const std::vector<std::pair<std::string, const char*>> marks = {
        {"[PASS]", "\033[32m"},       {"[FAIL]", "\033[31;1m"},  {"[ERROR]", "\033[31;1m"},
        {"[NOT RUN]", "\033[31m"},    {"NOT GRADABLE", "\033[31;1m"}, {"hint:", "\033[33m"},
        {"score:", "\033[1m"}};
    std::string text = line_;
    for (const auto& [word, code] : marks)
      if (const auto at = text.find(word); at != std::string::npos) {
        text.insert(at + word.size(), "\033[0m");
        text.insert(at, code);
      }
    out_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    line_.clear();
  }
  std::streambuf* out_;
  std::string line_;
};

}  // namespace attn::grader
