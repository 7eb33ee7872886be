#pragma once
// CLI11 validators for attnlab's numeric options, with messages a user can
// act on ("--size must be a whole number from 1 to 64, got '-3'") instead of
// CLI11's "Value 0 not in range 0.000000 to 1797693134862315708...".
//
// They run on the option's text before CLI11 converts it, so a value that
// would wrap ("--seed -1", "--seed 18446744073709551616") or round to
// nothing is refused rather than changed. Each message starts with "must":
// failure_message() prints it after the option's name.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>
#include <algorithm>
#include <sstream>

#include <CLI/CLI.hpp>

#include "grading/number_bounds.hpp"

namespace attn::grader::cli {

/// A whole number (digits only: no sign, no point, no exponent) from
/// `min` to `max`. Messages say the range whenever `max` is given: "must be
/// a whole number from 1 to 64, got '-3'" (below it, above it, or not a
/// whole number); without `max` "must be a whole number >= 1, got '0'",
/// and for the full range of 64 bits "must be a whole number from 0 to
/// 18446744073709551615, got '-1'".
inline CLI::Validator whole_number(std::uint64_t min,
                                   std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  const bool unbounded = max == std::numeric_limits<std::uint64_t>::max();
  const std::string full = "from " + std::to_string(min) + " to " + std::to_string(max);
  const std::string low = unbounded && min > 0 ? ">= " + std::to_string(min) : full;
  return CLI::Validator(
      [min, max, full, low](std::string& text) -> std::string {
        std::uint64_t x = 0;
        const char* last = text.data() + text.size();
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const auto r = std::from_chars(text.data(), last, x);
        const bool number = digits && r.ec == std::errc() && r.ptr == last;
        if (number && x > max) return "must be a whole number " + full + ", got '" + text + "'";
        if (!number && digits && r.ec == std::errc::result_out_of_range)
          return "must be a whole number " + full + ", got '" + text + "'";
        if (!number || x < min) return "must be a whole number " + low + ", got '" + text + "'";
        return std::string();
      },
      unbounded ? low : full);
}

/// The same for a range of the bounds table (grading/number_bounds.hpp),
/// with 0 taken where b.zero_means says what it means, and a value below
/// b.min refused with b.below_min: "must be a whole number from 256 to
/// 16777216, or 0 (no limit), got '1' (below 256: ...)".
inline CLI::Validator whole_number(bounds::Whole b) {
  CLI::Validator plain = whole_number(b.min, b.max);
  if (!b.zero_means && !b.below_min) return plain;
  const std::string rule = "must be a whole number from " + std::to_string(b.min) + " to " +
                           std::to_string(b.max) +
                           (b.zero_means ? ", or 0 (" + std::string(b.zero_means) + ")" : "");
  return CLI::Validator(
      [b, plain, rule](std::string& text) mutable -> std::string {
        if (b.zero_means && text == "0") return std::string();
        if (plain(text).empty()) return std::string();
        std::uint64_t x = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
        const bool below = r.ec == std::errc() && r.ptr == text.data() + text.size() && x < b.min;
        return rule + ", got '" + text + "'" +
               (below && b.below_min ? " (below " + std::to_string(b.min) + ": " + b.below_min + ")"
                                     : std::string());
      },
      rule.substr(5));
}

/// A number of seconds within `b` (grading/number_bounds.hpp): a finite
/// decimal number above b.min, at most b.max (0 allowed where b.zero_means
/// says what it means, e.g. "no limit"). "must be a number of seconds > 0
/// and <= 86400, e.g. 2.5, got '1e308'".
inline CLI::Validator seconds(bounds::Real b, const std::string& example) {
  std::ostringstream max;
  max << b.max;
  const bool zero_ok = b.zero_means != nullptr;
  const std::string rule =
      zero_ok ? "must be a number of seconds from 0 (0: " + std::string(b.zero_means) + ") to " +
                    max.str() + ", e.g. " + example
              : "must be a number of seconds > 0 and <= " + max.str() + ", e.g. " + example;
  return CLI::Validator(
      [zero_ok, rule, b](std::string& text) -> std::string {
        double x = 0;
        const char* last = text.data() + text.size();
        const auto r = std::from_chars(text.data(), last, x);
        // from_chars refuses a "+" sign and hex; "inf" and "nan" fail isfinite.
        if (text.empty() || r.ec != std::errc() || r.ptr != last || !std::isfinite(x) ||
            x < b.min || x > b.max || (x == b.min && !zero_ok))
          return rule + ", got '" + text + "'";
        return std::string();
      },
      zero_ok ? "seconds >= 0" : "seconds > 0");
}

/// A finite decimal number from `min` to `max` ("must be a number from 0.5
/// to 4, got 'nan'"): CLI::Range lets NaN through, as every comparison with
/// it is false.
inline CLI::Validator real_number(double min, double max) {
  std::ostringstream range;
  range << "must be a number from " << min << " to " << max;
  const std::string rule = range.str();
  return CLI::Validator(
      [rule, min, max](std::string& text) -> std::string {
        double x = 0;
        const char* last = text.data() + text.size();
        const auto r = std::from_chars(text.data(), last, x);
        if (text.empty() || r.ec != std::errc() || r.ptr != last || !std::isfinite(x) || x < min ||
            x > max)
          return rule + ", got '" + text + "'";
        return std::string();
      },
      "number");
}

/// "K/N" with 1 <= K <= N <= 100000, as {K, N}; {0, 0} if malformed.
inline std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return {0, 0};
  int k = 0, n = 0;
  const char* a = text.data();
  const auto r1 = std::from_chars(a, a + slash, k);
  const auto r2 = std::from_chars(a + slash + 1, a + text.size(), n);
  if (r1.ec != std::errc() || r1.ptr != a + slash || r2.ec != std::errc() ||
      r2.ptr != a + text.size() || k < 1 || n < 1 || k > n || n > 100000)
    return {0, 0};
  return {k, n};
}

/// The --shard option: "must be K/N with 1 <= K <= N, e.g. 2/8, got '0/8'".
inline CLI::Validator shard() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_shard(text).first == 0)
          return "must be K/N with 1 <= K <= N, e.g. 2/8, got '" + text + "'";
        return std::string();
      },
      "K/N");
}

/// Levenshtein distance between a and b (insertions, deletions, substitutions).
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// The candidate closest to `word` if it is close enough to be a typo
/// (distance at most 2, and less than half of the word); empty otherwise.
/// Never `word` itself (a suggestion of the word given helps nobody).
inline std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    if (c == word) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= 2 && 2 * best_d < word.size() ? best : std::string();
}

/// Every long option ("--seed") of `app` and its subcommands.
inline std::vector<std::string> long_options(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app->get_options())
    for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
    for (const auto& n : long_options(sub)) out.push_back(n);
  return out;
}

/// The names of `app`'s subcommands.
inline std::vector<std::string> subcommand_names(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
    out.push_back(sub->get_name());
  return out;
}

/// CLI11's own failure message, but "--cases must be ..." for the
/// validators above (CLI11 writes "--cases: must be ..."), "--size given
/// twice (give it once)" for an option given more than once (CLI11 writes
/// "--size: At Most 1 required but received 2"), and "did you mean
/// --seed?" after an option that is not one of the command given (CLI11 2.1
/// has no suggestions of its own), or, for another command's option, that
/// it belongs to another command.
inline std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  std::string text = CLI::FailureMessage::simple(app, e);
  if (const auto at = text.find(": must be "); at != std::string::npos && at < text.find('\n'))
    text.erase(at, 1);
  const std::string at_most = ": At Most 1 required but received ";
  if (const auto at = text.find(at_most); at != std::string::npos && at < text.find('\n')) {
    const auto digits = at + at_most.size();
    const auto end = text.find_first_not_of("0123456789", digits);
    const std::string n = text.substr(digits, end - digits);
    text.replace(at, end - at, std::string(" given ") + (n == "2" ? "twice" : n + " times") + " (give it once)");
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const CLI::App* root = app;
    while (root->get_parent()) root = root->get_parent();
    // The command given (the deepest one parsed): its options, and the root's.
    const CLI::App* command = root;
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    std::vector<std::string> own = long_options(command);
    if (command != root)
      for (const CLI::Option* o : root->get_options())
        for (const auto& n : o->get_lnames()) own.push_back("--" + n);
    const std::vector<std::string> every = long_options(root);
    const std::string command_name = command == root ? "attnlab" : "attnlab " + command->get_name();
    const auto words_at = text.find(": ");
    std::string words = words_at == std::string::npos ? "" : text.substr(words_at + 2);
    words = words.substr(0, words.find('\n'));
    std::string word, suggestions;
    for (std::size_t k = 0; k <= words.size(); ++k) {
      if (k < words.size() && words[k] != ' ') {
        word += words[k];
        continue;
      }
      const std::string name = word.substr(0, word.find('='));
      word.clear();
      if (name.rfind("--", 0) != 0) continue;
      if (const std::string c = closest(name, own); !c.empty())
        suggestions += "attnlab: did you mean " + c + " (instead of " + name + ")?\n";
      else if (std::find(every.begin(), every.end(), name) != every.end())
        suggestions += "attnlab: " + name + " is an option of another command, not of " +
                       command_name + " (" + command_name + " --help lists its options)\n";
    }
    text.insert(text.find('\n') == std::string::npos ? text.size() : text.find('\n') + 1, suggestions);
  }
  return "attnlab: " + text;
}

}  // namespace attn::grader::cli
