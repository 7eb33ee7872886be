// Strict JSON reading (see strict_json.hpp).
#include "exercises/strict_json.hpp"

#include <regex>
#include <set>
#include <vector>

#include "sandbox/escaped_name.hpp"

namespace attn::grader {

DuplicateMember::DuplicateMember(const std::string& m)
    : std::runtime_error("the member \"" + escaped_name(m) +
                         "\" is given twice; JSON keeps only one of them (which, depends on the "
                         "reader), so remove the other"),
      member(m) {}

nlohmann::json parse_json_unique_members(const std::string& text) {
  using json = nlohmann::json;
  struct Open {
    std::string path;  ///< "exercises.F3.points"; empty: the top level
    std::set<std::string> names;
  };
  std::vector<Open> open;
  std::string last;  // the last member name read: the name of an object that starts
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      std::string path = open.empty() ? "" : open.back().path;
      if (!open.empty()) path += (path.empty() ? "" : ".") + last;
      open.push_back({path, {}});
    } else if (event == json::parse_event_t::object_end && !open.empty()) {
      open.pop_back();
    } else if (event == json::parse_event_t::key && !open.empty()) {
      last = parsed.get<std::string>();
      if (!open.back().names.insert(last).second)
        throw DuplicateMember(open.back().path.empty() ? last : open.back().path + "." + last);
    }
    return true;
  };
  return json::parse(text, check);
}

std::string json_error_text(const std::exception& e) {
  std::string what = e.what();
  const auto close = what.find("] ");
  if (what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    what = what.substr(close + 2);
  static const std::regex at("^parse error at line ([0-9]+), column ([0-9]+): ");
  std::smatch m;
  if (std::regex_search(what, m, at))
    return "line " + m[1].str() + " column " + m[2].str() + ": " + m.suffix().str();
  return what;
}

}  // namespace attn::grader
