// JUnit XML with pugixml (attn/prop/junit.hpp).
#include "attn/prop/junit.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <pugixml.hpp>

namespace attn::prop {
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

void set(pugi::xml_node n, const char* attr, const std::string& value) {
  n.append_attribute(attr).set_value(xml_safe(value).c_str());
}

void set_text(pugi::xml_node n, const std::string& text) {
  n.append_child(pugi::node_pcdata).set_value(xml_safe(text).c_str());
}

std::string seconds_text(double s) {
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", s);
  return t;
}

void add_suite(pugi::xml_node root, const JunitSuite& s) {
  using Status = JunitTestcase::Status;
  auto suite = root.append_child("testsuite");
  set(suite, "name", s.name);
  auto props = suite.append_child("properties");
  for (const auto& [name, value] : s.properties) {
    auto p = props.append_child("property");
    set(p, "name", name);
    set(p, "value", value);
  }
  int failures = 0, errors = 0, skipped = 0;
  double time = 0;
  for (const JunitTestcase& c : s.cases) {
    time += c.seconds;
    auto tc = suite.append_child("testcase");
    set(tc, "classname", c.classname);
    set(tc, "name", c.name);
    set(tc, "time", seconds_text(c.seconds));
    if (c.status == Status::skipped) {
      ++skipped;
      set(tc.append_child("skipped"), "message", c.message);
    } else if (c.status != Status::passed) {
      const bool error = c.status == Status::error;
      (error ? errors : failures) += 1;
      auto f = tc.append_child(error ? "error" : "failure");
      set(f, "message", c.message);
      set(f, "type", c.type);
      if (!c.text.empty()) set_text(f, c.text);
    }
    // After the failure, as the JUnit schema orders them.
    if (!c.system_out.empty()) set_text(tc.append_child("system-out"), c.system_out);
  }
  if (!s.system_out.empty()) set_text(suite.append_child("system-out"), s.system_out);
  if (!s.system_err.empty()) set_text(suite.append_child("system-err"), s.system_err);
  set(suite, "tests", std::to_string(s.cases.size()));
  set(suite, "failures", std::to_string(failures));
  set(suite, "errors", std::to_string(errors));
  set(suite, "skipped", std::to_string(skipped));
  set(suite, "time", seconds_text(s.seconds >= 0 ? s.seconds : time));
}

void total_counts(pugi::xml_node root) {
  long long tests = 0, failures = 0, errors = 0, skipped = 0;
  for (auto s : root.children("testsuite")) {
    tests += s.attribute("tests").as_llong();
    failures += s.attribute("failures").as_llong();
    errors += s.attribute("errors").as_llong();
    skipped += s.attribute("skipped").as_llong();
  }
  set(root, "tests", std::to_string(tests));
  set(root, "failures", std::to_string(failures));
  set(root, "errors", std::to_string(errors));
  set(root, "skipped", std::to_string(skipped));
}

pugi::xml_node new_root(pugi::xml_document& doc) {
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto root = doc.append_child("testsuites");
  root.append_attribute("name") = "attnlab";
  return root;
}

std::string text_of(const pugi::xml_document& doc) {
  std::ostringstream os;
  doc.save(os, "  ", pugi::format_default, pugi::encoding_utf8);
  return os.str();
}

void save(const std::string& text, const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

pugi::xml_document document(const std::vector<JunitSuite>& suites) {
  pugi::xml_document doc;
  auto root = new_root(doc);
  for (const JunitSuite& s : suites) add_suite(root, s);
  total_counts(root);
  return doc;
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

std::string junit_xml(const std::vector<JunitSuite>& suites) { return text_of(document(suites)); }

void write_junit_file(const std::filesystem::path& file, const std::vector<JunitSuite>& suites) {
  save(junit_xml(suites), file);
}

std::string merged_junit_xml(const std::vector<std::filesystem::path>& parts) {
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
      JunitSuite missing;
      missing.name = part.filename().string();
      JunitTestcase c;
      c.classname = "attnlab";
      c.name = "grading";
      c.status = JunitTestcase::Status::error;
      c.message = "no JUnit report for " + part.string() +
                  (ok ? std::string(" (no testsuite in it)") : std::string(": ") + ok.description());
      missing.cases.push_back(std::move(c));
      add_suite(root, missing);
    }
  }
  total_counts(root);
  return text_of(doc);
}

}  // namespace attn::prop
