// JUnit XML (pugixml).
#include "report/junit_report.hpp"

#include "diagnosis/diagnosis_text.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <pugixml.hpp>

#include "report/scoring.hpp"

namespace attn::grader {
namespace {

/// Length of the valid UTF-8 sequence at s[i], or 0 if there is none.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n;
  std::uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  const std::uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp == 0xFFFE || cp == 0xFFFF) return 0;  // not XML characters
  return n;
}

std::string classname(const GradeResult& r) {
  std::string name = r.header.submission.empty() ? std::string("submission") : r.header.submission;
  for (char& c : name)
    if (c == '/' || c == '.' || c == ' ') c = '_';
  const std::string ex = r.header.exercise.empty() ? r.exercise : r.header.exercise;
  return "attnlab." + (ex.empty() ? std::string("unknown") : ex) + "." + name;
}

void set(pugi::xml_node n, const char* attr, const std::string& value) {
  n.append_attribute(attr).set_value(xml_safe(value).c_str());
}

void add_property(pugi::xml_node props, const std::string& name, const std::string& value) {
  auto p = props.append_child("property");
  set(p, "name", name);
  set(p, "value", value);
}

void add_suite(pugi::xml_node root, const GradeResult& r) {
  const ReportHeader& h = r.header;
  auto suite = root.append_child("testsuite");
  const std::string exercise = h.exercise.empty() ? r.exercise : h.exercise;
  set(suite, "name", (h.submission.empty() ? std::string("submission") : h.submission) +
                         (exercise.empty() ? "" : " (" + exercise + ")"));
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
  auto props = suite.append_child("properties");
  add_property(props, "exercise", exercise);
  add_property(props, "language", h.language);
  add_property(props, "seed", std::to_string(h.seed));
  add_property(props, "cases", std::to_string(h.cases));
  add_property(props, "score", format_points(r.score));
  add_property(props, "max_score", format_points(r.max_score));
  if (!h.mode.empty()) add_property(props, "mode", h.mode);
  if (!h.sandbox.empty()) add_property(props, "sandbox", h.sandbox);

  if (r.status == GradeResult::Status::graded) {
    for (const auto& it : r.items) {
      ++tests;
      time += it.seconds;
      auto tc = suite.append_child("testcase");
      set(tc, "classname", classname(r));
      set(tc, "name", it.name);
      char t[32];
      std::snprintf(t, sizeof t, "%.3f", it.seconds);
      set(tc, "time", t);
      if (it.status == "skipped") {
        ++skipped;
        auto s = tc.append_child("skipped");
        set(s, "message", it.summary.empty() ? std::string("not applicable") : it.summary);
        continue;
      }
      if (it.status != "passed") {
        const bool error = it.status == "error";
        (error ? errors : failures) += 1;
        auto f = tc.append_child(error ? "error" : "failure");
        std::string message = it.summary;
        if (it.diagnosis) {
          const std::string d = diagnosis_summary(*it.diagnosis);
          if (!d.empty()) message += (message.empty() ? "" : "; ") + std::string("diagnosis: ") + d;
        }
        if (it.hint)
          message += (message.empty() ? "" : "; ") + std::string("hint: ") + it.hint->misconception;
        set(f, "message", message);
        set(f, "type", it.id);
        f.append_child(pugi::node_pcdata).set_value(xml_safe(it.text).c_str());
      }
      // After the failure, as the JUnit schema orders them.
      tc.append_child("system-out").append_child(pugi::node_pcdata).set_value(
          ("points: " + format_points(it.points) + " / " + format_points(it.max_points)).c_str());
    }
  } else {
    ++tests;
    ++errors;
    auto tc = suite.append_child("testcase");
    set(tc, "classname", classname(r));
    const bool not_gradable = r.status == GradeResult::Status::not_gradable;
    set(tc, "name", not_gradable ? "submission builds and starts" : "grading");
    auto e = tc.append_child("error");
    const std::string message =
        not_gradable ? "not gradable: the submission " + r.not_gradable_headline
                     : "attnlab could not grade this submission: " +
                           r.message.substr(0, r.message.find('\n'));
    set(e, "message", message);
    set(e, "type", not_gradable ? "not_gradable" : "grader_error");
    const std::string body = not_gradable ? (r.command.empty() ? "" : "command: " + r.command + "\n") + r.details
                                          : r.message;
    e.append_child(pugi::node_pcdata).set_value(xml_safe(body).c_str());
  }
  if (!r.stderr_tail.empty()) {
    suite.append_child("system-err").append_child(pugi::node_pcdata).set_value(
        xml_safe(r.stderr_tail).c_str());
  }
  set(suite, "tests", std::to_string(tests));
  set(suite, "failures", std::to_string(failures));
  set(suite, "errors", std::to_string(errors));
  set(suite, "skipped", std::to_string(skipped));
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", r.seconds > 0 ? r.seconds : time);
  set(suite, "time", t);
}

void total_counts(pugi::xml_node root) {
  long tests = 0, failures = 0, errors = 0, skipped = 0;
  for (auto s : root.children("testsuite")) {
    tests += s.attribute("tests").as_llong();
    failures += s.attribute("failures").as_llong();
    errors += s.attribute("errors").as_llong();
    skipped += s.attribute("skipped").as_llong();
  }
  root.remove_attribute("tests");
  root.remove_attribute("failures");
  root.remove_attribute("errors");
  root.remove_attribute("skipped");
  set(root, "tests", std::to_string(tests));
  set(root, "failures", std::to_string(failures));
  set(root, "errors", std::to_string(errors));
  set(root, "skipped", std::to_string(skipped));
}

std::string to_string(const pugi::xml_document& doc) {
  std::ostringstream os;
  doc.save(os, "  ", pugi::format_default, pugi::encoding_utf8);
  return os.str();
}

void save(const pugi::xml_document& doc, const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (!doc.save_file(file.c_str(), "  ", pugi::format_default, pugi::encoding_utf8))
    throw std::runtime_error("cannot write " + file.string());
}

pugi::xml_node new_root(pugi::xml_document& doc) {
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto root = doc.append_child("testsuites");
  root.append_attribute("name") = "attnlab";
  return root;
}

}  // namespace

std::string xml_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

std::string junit_xml(const std::vector<const GradeResult*>& results) {
  pugi::xml_document doc;
  auto root = new_root(doc);
  for (const GradeResult* r : results) add_suite(root, *r);
  total_counts(root);
  return to_string(doc);
}

void write_junit(const std::filesystem::path& file, const GradeResult& r) {
  pugi::xml_document doc;
  auto root = new_root(doc);
  add_suite(root, r);
  total_counts(root);
  save(doc, file);
}

void merge_junit_files(const std::vector<std::filesystem::path>& parts,
                       const std::filesystem::path& file) {
  pugi::xml_document doc;
  auto root = new_root(doc);
  for (const auto& part : parts) {
    pugi::xml_document in;
    const pugi::xml_parse_result ok = in.load_file(part.c_str());
    bool copied = false;
    if (ok) {
      for (auto s : in.child("testsuites").children("testsuite")) {
        root.append_copy(s);
        copied = true;
      }
    }
    if (!copied) {
      auto s = root.append_child("testsuite");
      set(s, "name", part.filename().string());
      set(s, "tests", "1");
      set(s, "failures", "0");
      set(s, "errors", "1");
      set(s, "skipped", "0");
      auto tc = s.append_child("testcase");
      set(tc, "classname", "attnlab");
      set(tc, "name", "grading");
      auto e = tc.append_child("error");
      set(e, "message", "no JUnit report for " + part.string() +
                            (ok ? std::string(" (no testsuite in it)")
                                : std::string(": ") + ok.description()));
    }
  }
  total_counts(root);
  save(doc, file);
}

}  // namespace attn::grader
