// Recognising the exercise of a submission from its text (see recognise.hpp).
#include "submission/recognise.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "submission/notebook.hpp"
#include "submission/submission.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using Status = Recognition::Status;

/// What matched, per exercise: "softmax_rows()" -> F1...
using Evidence = std::map<std::string, std::vector<std::string>>;

/// Name -> exercise id for every name `names_of(spec)` gives an exercise of
/// the registry (the first exercise keeps a name given twice).
template <class NamesOf>
std::map<std::string, std::string> names_to_ids(NamesOf names_of) {
  std::map<std::string, std::string> m;
  for (const auto& spec : exercise_specs())
    for (const std::string& name : names_of(spec))
      if (!name.empty()) m.emplace(name, spec.id);
  return m;
}

/// The registry's Python names that show an exercise: "softmax_rows" -> F1.
const std::map<std::string, std::string>& python_entries() {
  static const auto m = names_to_ids([](const ExerciseSpec& s) { return s.python.recognised_by; });
  return m;
}

/// The interface headers: "masked_softmax.hpp" -> F2.
const std::map<std::string, std::string>& cpp_headers() {
  static const auto m =
      names_to_ids([](const ExerciseSpec& s) { return std::vector<std::string>{s.cpp.header}; });
  return m;
}

/// The protocol ops that show an exercise in a hello: "attention_tiled" -> T1.
const std::map<std::string, std::string>& protocol_ops() {
  static const auto m = names_to_ids([](const ExerciseSpec& s) { return s.protocol_recognised_by; });
  return m;
}

/// The C++ namespaces of the exercises: "f2" -> F2.
const std::map<std::string, std::string>& cpp_namespaces() {
  static const auto m =
      names_to_ids([](const ExerciseSpec& s) { return std::vector<std::string>{s.cpp.ns}; });
  return m;
}

/// Drops from `ev` every exercise that one also in `ev` supersedes (a
/// multi-head file defines the single-head attention it calls: M1, not F3).
void drop_superseded(std::map<std::string, std::vector<std::string>>& ev) {
  std::set<std::string> superseded;
  for (const auto& [id, _] : ev)
    if (const ExerciseSpec* spec = find_exercise_spec(id))
      superseded.insert(spec->supersedes.begin(), spec->supersedes.end());
  for (const auto& id : superseded) ev.erase(id);
}

/// `items` joined as "a, b or c" (`last` before the last one, `sep` before the others).
std::string joined(const std::vector<std::string>& items, const std::string& last,
                   const std::string& sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? last : sep) + items[i];
  return out;
}

/// What a Python file must define to be recognised, from the registry:
/// "it defines none of softmax_rows() (F1), ..., causal_mask() with
/// padding_mask() (C1); a T1 file (attention_tiled()) needs a line `# exercise: T1`".
std::string python_names_text() {
  std::vector<std::string> shows, marker_only;
  for (const auto& spec : exercise_specs()) {
    std::string ids = spec.id;
    for (const auto& other : exercise_specs())
      if (other.code_recognised_as == spec.id) ids += ", " + other.id;
    std::vector<std::string> names;
    for (const auto& n : spec.python.recognised_by) names.push_back(n + "()");
    if (!names.empty()) shows.push_back(joined(names, " or ") + " (" + ids + ")");
    names.clear();
    for (const auto& n : spec.python.recognised_by_all_of) names.push_back(n + "()");
    if (!names.empty()) shows.push_back(joined(names, " with ") + " (" + ids + ")");
    if (spec.python.recognised_by.empty() && spec.python.recognised_by_all_of.empty() &&
        spec.code_recognised_as.empty())
      marker_only.push_back("a " + spec.id + " file (" + spec.python.entries.front() +
                            "()) needs a line `# exercise: " + spec.id + "`");
  }
  std::string text = "it defines none of " + joined(shows, ", ");
  for (const auto& m : marker_only) text += "; " + m;
  return text;
}

/// What a C++ file must show, from the registry: "it defines nothing in
/// namespace f1, ... or c1 and includes none of softmax_rows.hpp (F1), ...".
std::string cpp_names_text() {
  std::vector<std::string> namespaces, headers;
  for (const auto& spec : exercise_specs()) {
    if (spec.cpp.header.empty()) continue;
    namespaces.push_back(spec.cpp.ns);
    headers.push_back(spec.cpp.header + " (" + spec.id + ")");
  }
  return "it defines nothing in namespace " + joined(namespaces, " or ") + " and includes none of " +
         joined(headers, ", ");
}

/// What a refusal says attnlab grades.
std::string graded_text() { return "it grades " + graded_exercises_text(); }

bool graded(const std::string& id) {
  return find_exercise_spec(id) != nullptr;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string text;
  text.resize(std::size_t{1} << 20);  // the first MiB is plenty for one exercise
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  return text;
}

std::string suggestion(const std::string& file_kind_marker) {
  std::string ids;
  for (const auto& id : graded_exercise_ids()) ids += (ids.empty() ? "" : "|") + id;
  return "; name the exercise with --exercise " + ids +
         (file_kind_marker.empty() ? std::string()
                                   : ", or put a line `" + file_kind_marker + " F3` in the file");
}

/// The decision on one rule's evidence; nullopt if it found nothing.
std::optional<Recognition> decide(const Evidence& ev, const std::string& shown,
                                  const std::string& what, const std::string& marker) {
  if (ev.empty()) return std::nullopt;
  Recognition r;
  if (ev.size() == 1) {
    r.status = Status::recognised;
    r.exercise = ev.begin()->first;
    std::string items;
    for (const auto& s : ev.begin()->second) items += (items.empty() ? "" : ", ") + s;
    r.how = what + " " + items;
    return r;
  }
  r.status = Status::ambiguous;
  std::vector<std::string> found, options;
  for (const auto& [id, items] : ev) {
    std::string names;
    for (std::size_t n = 0; n < items.size(); ++n) names += (n ? ", " : "") + items[n];
    found.push_back(names + " (" + id + ")");
    options.push_back("--exercise " + id);
  }
  r.message = "cannot tell which exercise " + shown + " answers: " + what + " " + listed(found) +
              "; say which with " + listed(options, " or ");
  if (!marker.empty()) r.message += ", or a line `" + marker + " FN` in the file";
  return r;
}

/// `# exercise: F4` / `// exercise: F4` lines. Unknown ids are kept (the caller refuses them).
Evidence markers(const std::string& text, const std::string& comment) {
  const std::regex re("^[ \\t]*" + comment + "[ \\t]*exercise:[ \\t]*([A-Za-z0-9_]+)",
                      std::regex::icase | std::regex::multiline);
  Evidence ev;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    const std::string id = upper((*it)[1]);
    ev[id].push_back("a comment line `" + comment + " exercise: " + id + "`");
  }
  for (auto& [id, items] : ev) items.resize(1);
  return ev;
}

/// The text with comments blanked out (and, if `strings` is true, string and
/// character literals too); newlines are kept.
std::string strip_cpp(const std::string& text, bool strings) {
  std::string out = text;
  enum { code, line_comment, block_comment, string_lit, char_lit } state = code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    auto blank = [&](std::size_t k) {
      if (out[k] != '\n') out[k] = ' ';
    };
    switch (state) {
      case code:
        if (c == '/' && next == '/') {
          state = line_comment;
          blank(i);
        } else if (c == '/' && next == '*') {
          state = block_comment;
          blank(i);
          blank(++i);
        } else if (c == '"') {
          state = string_lit;
        } else if (c == '\'') {
          state = char_lit;
        }
        break;
      case line_comment:
        if (c == '\n') state = code; else blank(i);
        break;
      case block_comment:
        if (c == '*' && next == '/') {
          blank(i);
          blank(++i);
          state = code;
        } else {
          blank(i);
        }
        break;
      case string_lit:
      case char_lit:
        if (c == '\\') {
          if (strings) { blank(i); if (i + 1 < out.size()) blank(i + 1); }
          ++i;
        } else if ((state == string_lit && c == '"') || (state == char_lit && c == '\'') ||
                   c == '\n') {
          state = code;
        } else if (strings) {
          blank(i);
        }
        break;
    }
  }
  return out;
}

Recognition from_marker(const Evidence& ev, const std::string& shown, const std::string& marker) {
  Recognition r = *decide(ev, shown, "it has", marker);
  if (r.status == Status::recognised && !graded(r.exercise)) {
    r.status = Status::unrecognised;
    r.message = shown + " declares exercise " + r.exercise +
                ", which attnlab does not grade (" + graded_text() + ")";
  }
  return r;
}

/// The top-level Python functions of `text` and, for each, the names its
/// body calls (`name(`, comments left out), read as text, never run.
std::map<std::string, std::set<std::string>> python_calls(const std::string& text) {
  const std::regex def("^def[ \\t]+([A-Za-z_][A-Za-z0-9_]*)[ \\t]*\\(", std::regex::multiline);
  std::vector<std::pair<std::string, std::size_t>> defs;  // name, where its body starts
  for (std::sregex_iterator it(text.begin(), text.end(), def), end; it != end; ++it)
    defs.push_back({(*it)[1], static_cast<std::size_t>(it->position(0) + it->length(0))});
  std::map<std::string, std::set<std::string>> calls;
  const std::regex call("\\b([A-Za-z_][A-Za-z0-9_]*)[ \\t]*\\(");
  // A body ends at the next line that starts in column 0 with code.
  const std::regex top_level("\n[^ \\t\\n#]");
  for (const auto& [name, from] : defs) {
    std::smatch m;
    const auto begin = text.begin() + static_cast<std::ptrdiff_t>(from);
    // the signature's own line first, so its continuation lines are part of it
    const std::size_t eol = text.find('\n', from);
    std::size_t to = text.size();
    if (eol != std::string::npos &&
        std::regex_search(text.begin() + static_cast<std::ptrdiff_t>(eol), text.end(), m, top_level))
      to = eol + static_cast<std::size_t>(m.position(0));
    // Comments do not call anything: each line is read up to its '#'.
    std::string body;
    std::istringstream lines(std::string(begin, text.begin() + static_cast<std::ptrdiff_t>(to)));
    for (std::string line; std::getline(lines, line);) body += line.substr(0, line.find('#')) + "\n";
    for (std::sregex_iterator it(body.begin(), body.end(), call), end; it != end; ++it)
      if ((*it)[1] != name) calls[name].insert((*it)[1]);
    calls[name];
  }
  return calls;
}

/// Every function `from` reaches through the call graph (itself excluded).
std::set<std::string> reached(const std::map<std::string, std::set<std::string>>& calls,
                              const std::string& from) {
  std::set<std::string> seen;
  std::vector<std::string> todo = {from};
  while (!todo.empty()) {
    const std::string f = todo.back();
    todo.pop_back();
    auto it = calls.find(f);
    if (it == calls.end()) continue;
    for (const auto& g : it->second)
      if (g != from && seen.insert(g).second) todo.push_back(g);
  }
  return seen;
}

/// Of the exercises whose entries `entries` lists (exercise -> its entry
/// functions, as `calls` names them), the one with an entry that uses
/// (calls, directly or through other functions) an entry of every other
/// exercise: the exercise that builds on the others (F3 on F1 and F2), with
/// how it was decided ("it defines E, which uses A and B"). nullopt when no
/// entry uses all the others, or entries of two exercises do.
std::optional<Recognition> uses_all_others(const std::map<std::string, std::vector<std::string>>& entries,
                                           const std::map<std::string, std::set<std::string>>& calls) {
  std::optional<Recognition> found;
  for (const auto& [id, mine] : entries) {
    for (const auto& entry : mine) {
      const std::set<std::string> uses = reached(calls, entry);
      std::vector<std::string> used;
      bool all = true;
      for (const auto& [other, theirs] : entries) {
        if (other == id) continue;
        bool any = false;
        for (const auto& f : theirs)
          if (uses.count(f)) {
            any = true;
            used.push_back(f);
          }
        all = all && any;
      }
      if (!all) continue;
      if (found && found->exercise != id) return std::nullopt;  // two such: still ambiguous
      // In the order the exercises build on each other (F1, F2, ...).
      Recognition r;
      r.status = Status::recognised;
      r.exercise = id;
      r.how = "it defines " + entry + ", which uses " + listed(used);
      found = r;
    }
  }
  return found;
}

/// A Python file that defines the entries of several exercises (`ev`):
/// uses_all_others over its top-level functions and their calls.
std::optional<Recognition> building_on(const Evidence& ev, const std::string& text) {
  std::map<std::string, std::vector<std::string>> entries;
  for (const auto& [id, items] : ev)
    for (const auto& item : items) entries[id].push_back(item.substr(0, item.size() - 2));  // "softmax_rows()"
  return uses_all_others(entries, python_calls(text));
}

Recognition recognise_python(const std::string& text, const std::string& shown) {
  if (auto ev = markers(text, "#"); !ev.empty()) return from_marker(ev, shown, "# exercise:");
  const std::regex def("^def[ \\t]+([A-Za-z_][A-Za-z0-9_]*)[ \\t]*\\(", std::regex::multiline);
  Evidence ev;
  std::set<std::string> defined;
  for (std::sregex_iterator it(text.begin(), text.end(), def), end; it != end; ++it) {
    defined.insert((*it)[1]);
    const auto e = python_entries().find((*it)[1]);
    if (e != python_entries().end()) ev[e->second].push_back(e->first + "()");
  }
  // A multi-head file may define the single-head attention it calls: M1 wins.
  drop_superseded(ev);
  // causal_mask() and padding_mask() together, and nothing else graded: C1.
  // (One of them beside an attention function is a helper, not C1.)
  if (ev.empty())
    for (const auto& spec : exercise_specs()) {
      const auto& all = spec.python.recognised_by_all_of;
      if (all.empty() || !std::all_of(all.begin(), all.end(), [&](const auto& n) { return defined.count(n) > 0; }))
        continue;
      for (const auto& n : all) ev[spec.id].push_back(n + "()");
    }
  std::vector<std::string> defines;
  for (const auto& [id, _] : ev) defines.push_back(id);
  // An F3 file may define the F1/F2 functions its attention uses: F3 wins.
  if (ev.size() > 1)
    if (auto r = building_on(ev, text)) {
      r->defines = defines;
      return *r;
    }
  if (auto r = decide(ev, shown, "it defines", "# exercise:")) {
    r->defines = defines;
    return *r;
  }
  Recognition r;
  r.message = "cannot tell which exercise " + shown + " answers: " + python_names_text() +
              suggestion("# exercise:");
  return r;
}

/// The interface headers (cpp_headers) the C++ `text` includes, by
/// exercise, comments aside: `#include "masked_softmax.hpp"` -> F2.
Evidence included_headers(const std::string& text) {
  const std::string no_comments = strip_cpp(text, false);
  static const std::regex include("^[ \\t]*#[ \\t]*include[ \\t]*[<\"]([^>\"]+)[>\"]",
                                  std::regex::multiline);
  Evidence included;
  for (std::sregex_iterator it(no_comments.begin(), no_comments.end(), include), end; it != end;
       ++it) {
    const std::string header = fs::path(std::string((*it)[1])).filename().string();
    const auto h = cpp_headers().find(header);
    if (h != cpp_headers().end()) included[h->second].push_back(h->first);
  }
  return included;
}

/// `name` without blanks and a leading "::" ("f2 :: masked_softmax" -> "f2::masked_softmax").
std::string squeeze(const std::string& name) {
  std::string out;
  for (char c : name)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  if (out.rfind("::", 0) == 0) out.erase(0, 2);
  return out;
}

/// What a C++ file's text shows, read without compiling it: the exercise
/// namespaces it opens, and the functions it defines at namespace scope
/// (their qualified names, from the enclosing namespaces and the name as
/// written) with the names each one's body calls.
struct CppOutline {
  std::vector<std::string> namespaces;  ///< "f2", in order, once each
  /// Qualified name -> the names its body calls ("f3::attention" -> {"f2::masked_softmax", ...}).
  std::map<std::string, std::set<std::string>> functions;
  /// The qualified definitions as written ("f2::masked_softmax" for
  /// `Matrix f2::masked_softmax(...) {`), in order, once each.
  std::vector<std::string> qualified;
};

/// Reads `code` (comments and literals blanked, strip_cpp) brace by brace:
/// a `{` after `namespace N` opens N, one after a parameter list at
/// namespace scope opens a function body, any other (a class, an
/// initialiser, a lambda, a block) is followed to its `}`. Preprocessor
/// lines are left out. A heuristic reading of the text, never a parse:
/// it only has to find what a student's file of the exercises defines.
CppOutline outline_cpp(std::string code) {
  // Preprocessor lines (and their continuations) say nothing here.
  for (std::size_t i = 0; i < code.size();) {
    std::size_t eol = code.find('\n', i);
    if (eol == std::string::npos) eol = code.size();
    const std::size_t first = code.find_first_not_of(" \t", i);
    if (first < eol && code[first] == '#') {
      for (;;) {
        for (std::size_t k = i; k < eol; ++k) code[k] = ' ';
        if (eol == 0 || eol >= code.size() || code[eol - 1] != '\\') break;
        i = eol + 1;
        eol = code.find('\n', i);
        if (eol == std::string::npos) eol = code.size();
      }
    }
    i = eol + 1;
  }
  CppOutline out;
  static const std::regex ns_head("\\bnamespace\\s*([A-Za-z_][A-Za-z0-9_:\\s]*)?$");
  static const std::regex function_name("((?:::\\s*)?[A-Za-z_~][A-Za-z0-9_]*(?:\\s*::\\s*[A-Za-z_~][A-Za-z0-9_]*)*)\\s*\\(");
  static const std::regex record("^\\s*(?:template\\s*<[^{]*>\\s*)?(class|struct|union|enum)\\b");
  static const std::regex call("((?:[A-Za-z_][A-Za-z0-9_]*\\s*::\\s*)*[A-Za-z_][A-Za-z0-9_]*)\\s*\\(");
  struct Scope {
    enum Kind { ns, function, other } kind;
    std::string name;        ///< a namespace's name; a function's qualified name
    std::size_t body = 0;    ///< where a function's body starts
  };
  std::vector<Scope> scopes;
  std::size_t head = 0;  // where the current statement's text starts
  auto prefix = [&]() {
    std::string p;
    for (const auto& s : scopes)
      if (s.kind == Scope::ns && !s.name.empty()) p += s.name + "::";
    return p;
  };
  auto in_function = [&]() {
    return std::any_of(scopes.begin(), scopes.end(), [](const Scope& s) { return s.kind != Scope::ns; });
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == ';') {
      if (!in_function()) head = i + 1;
    } else if (c == '{') {
      if (in_function()) {
        scopes.push_back({Scope::other, "", 0});
        continue;
      }
      const std::string text = code.substr(head, i - head);
      std::smatch m;
      if (std::regex_search(text, m, ns_head)) {
        const std::string name = squeeze(m[1]);
        scopes.push_back({Scope::ns, name, 0});
        if (cpp_namespaces().count(name) &&
            std::find(out.namespaces.begin(), out.namespaces.end(), name) == out.namespaces.end())
          out.namespaces.push_back(name);
      } else if (text.find("extern") != std::string::npos && text.find('(') == std::string::npos) {
        scopes.push_back({Scope::ns, "", 0});  // extern "C" { ... }
      } else if (!std::regex_search(text, record) && std::regex_search(text, m, function_name) &&
                 text.substr(0, std::size_t(m.position(0))).find('=') == std::string::npos) {
        const std::string name = squeeze(m[1]);
        const std::string full = prefix() + name;
        out.functions[full];
        if (name.find("::") != std::string::npos &&
            std::find(out.qualified.begin(), out.qualified.end(), name) == out.qualified.end())
          out.qualified.push_back(name);
        scopes.push_back({Scope::function, full, i + 1});
      } else {
        scopes.push_back({Scope::other, "", 0});
      }
      head = i + 1;
    } else if (c == '}') {
      if (!scopes.empty()) {
        const Scope s = scopes.back();
        scopes.pop_back();
        if (s.kind == Scope::function) {
          const std::string body = code.substr(s.body, i - s.body);
          for (std::sregex_iterator it(body.begin(), body.end(), call), end; it != end; ++it)
            out.functions[s.name].insert(squeeze((*it)[1]));
        }
      }
      if (!in_function()) head = i + 1;
    }
  }
  return out;
}

/// The defined functions of `outline` that a call to `callee` (as written
/// in a body) may mean: the one of that qualified name, or one whose
/// qualified name ends in it ("masked_softmax" -> f2::masked_softmax).
std::vector<std::string> callees(const CppOutline& outline, const std::string& callee) {
  std::vector<std::string> out;
  for (const auto& [f, _] : outline.functions)
    if (f == callee || (f.size() > callee.size() + 2 &&
                        f.compare(f.size() - callee.size() - 2, std::string::npos, "::" + callee) == 0))
      out.push_back(f);
  return out;
}

/// For a C++ file whose namespaces or qualified definitions match several
/// exercises: the exercises whose entry function it defines (`defines`), and
/// the one whose entry uses (calls, directly or through its other functions)
/// an entry of every other one, as building_on does for Python (an F3 file
/// whose f3::attention calls its own f2::masked_softmax is F3). nullopt
/// when no entry uses all the others.
std::optional<Recognition> cpp_building_on(const CppOutline& outline,
                                           std::vector<std::string>* defines) {
  std::map<std::string, std::vector<std::string>> entries;  // exercise -> its defined entries
  for (const auto& spec : exercise_specs())
    for (const auto& n : spec.cpp.entries)
      if (outline.functions.count(spec.cpp.ns + "::" + n))
        entries[spec.id].push_back(spec.cpp.ns + "::" + n);
  // F4 has F3's signature in namespace f4; T1's naive companion is t1::attention.
  for (const auto& [id, _] : entries) defines->push_back(id);
  if (entries.size() < 2) return std::nullopt;
  std::map<std::string, std::set<std::string>> calls;
  for (const auto& [f, called] : outline.functions)
    for (const auto& c : called)
      for (const auto& g : callees(outline, c))
        if (g != f) calls[f].insert(g);
  return uses_all_others(entries, calls);
}

Recognition recognise_cpp(const std::string& text, const std::string& shown) {
  if (auto ev = markers(text, "//"); !ev.empty()) return from_marker(ev, shown, "// exercise:");
  // What it implements: functions in namespace fN, or defined as fN::name.
  const CppOutline outline = outline_cpp(strip_cpp(text, true));
  Evidence defined;
  for (const auto& ns : outline.namespaces) defined[cpp_namespaces().at(ns)].push_back("namespace " + ns);
  // fN::name for an exercise's namespace and any exercise's entry name.
  std::set<std::string> entry_names;
  for (const auto& spec : exercise_specs()) entry_names.insert(spec.cpp.entries.begin(), spec.cpp.entries.end());
  for (const auto& q : outline.qualified) {
    const std::size_t colons = q.find("::");
    const auto ns = cpp_namespaces().find(q.substr(0, colons));
    if (ns == cpp_namespaces().end() || !entry_names.count(q.substr(colons + 2))) continue;
    auto& items = defined[ns->second];
    if (std::find(items.begin(), items.end(), q) == items.end()) items.push_back(q);
  }
  // Several exercises: one whose entry builds on the others' answers for the file.
  if (defined.size() > 1) {
    std::vector<std::string> defines;
    if (auto r = cpp_building_on(outline, &defines)) {
      r->defines = defines;
      return *r;
    }
    if (auto r = decide(defined, shown, "it defines", "// exercise:")) {
      r->defines = defines;
      return *r;
    }
  }
  if (auto r = decide(defined, shown, "it defines", "// exercise:")) return *r;
  // Else the interface header it includes.
  const Evidence included = included_headers(text);
  if (auto r = decide(included, shown, "it includes", "// exercise:")) return *r;
  Recognition r;
  r.message = "cannot tell which exercise " + shown + " answers: " + cpp_names_text() +
              suggestion("// exercise:");
  return r;
}

Recognition recognise_answers(const fs::path& file, const std::string& shown) {
  Recognition r;
  const AnswersExercise a = read_answers_exercise(file);
  if (!a.refused.empty()) {
    r.message = answers_refused_message(shown, a.refused);
    return r;
  }
  std::vector<std::string> with_answers;
  for (const auto& spec : exercise_specs())
    if (!spec.answers_form.empty()) with_answers.push_back(spec.id);
  if (!a.exercise) {
    r.message = "cannot tell which exercise the answers file " + shown + " answers: " +
                a.problem + "; an answers file names it, {\"exercise\": \"" + with_answers.front() +
                "\", ...}, or say --exercise " + joined(with_answers, "|", "|");
    return r;
  }
  if (std::find(with_answers.begin(), with_answers.end(), *a.exercise) == with_answers.end()) {
    r.message = "the answers file " + shown + " names exercise " + *a.exercise + ", but only " +
                joined(with_answers, " and ") + " have answers files";
    return r;
  }
  r.status = Status::recognised;
  r.exercise = *a.exercise;
  r.how = "its \"exercise\" member";
  return r;
}

}  // namespace

namespace {

Recognition recognise_text(const fs::path& file) {
  const std::string shown = file.string();
  if (is_answers_file(file)) return recognise_answers(file, shown);
  const auto language = detect_language(file);
  if (!language) {
    Recognition r;
    r.message = shown + " is not a .py, .cpp or .json file and not executable";
    return r;
  }
  switch (*language) {
    case Language::python: return recognise_python(unguarded_cells(read_text(file)), shown);
    case Language::cpp: return recognise_cpp(read_text(file), shown);
    case Language::executable: break;
  }
  Recognition r;
  r.status = Status::needs_hello;
  return r;
}

}  // namespace

Recognition recognise_exercise(const fs::path& file) {
  Recognition r = recognise_text(file);
  if (r.defines.empty() && r.status == Status::recognised) r.defines = {r.exercise};
  return r;
}

std::vector<std::string> included_interfaces(const std::vector<fs::path>& files) {
  std::set<std::string> ids;
  for (const auto& f : files)
    if (detect_language(f) == Language::cpp)
      for (const auto& [id, _] : included_headers(read_text(f))) ids.insert(id);
  return {ids.begin(), ids.end()};
}

std::optional<std::string> recognise_batched_kernel(const fs::path& file,
                                                    const std::string& entry) {
  if (detect_language(file) != Language::python) return std::nullopt;
  const std::string text = read_text(file);
  if (!entry.empty()) {
    // The entry's parameter list (up to its closing parenthesis, over lines).
    std::string name;
    for (char ch : entry)
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') name += ch;
    if (name.empty() || name != entry) return std::nullopt;
    const std::regex def("^[ \\t]*def[ \\t]+" + name + "[ \\t]*\\(([^)]*)\\)",
                         std::regex::multiline);
    std::smatch m;
    if (!std::regex_search(text, m, def)) return std::nullopt;
    const std::string params = m[1];
    static const std::regex causal("\\bcausal\\b"), alignment("\\balignment\\b");
    if (std::regex_search(params, causal) && std::regex_search(params, alignment))
      return "the parameters of " + entry + "() include causal and alignment";
    return std::nullopt;
  }
  static const std::regex def("^def[ \\t]+(batched_attention|grouped_query_attention)[ \\t]*\\(",
                              std::regex::multiline);
  std::smatch m;
  if (std::regex_search(text, m, def)) return "it defines " + std::string(m[1]) + "()";
  return std::nullopt;
}

Recognition recognise_from_hello(const Hello& hello) {
  Recognition r;
  if (!hello.exercise.empty()) {
    const std::string id = upper(hello.exercise);
    if (graded(id)) {
      r.status = Status::recognised;
      r.exercise = id;
      r.how = "its hello's \"exercise\": \"" + hello.exercise + "\"";
    } else {
      r.message = "the submission's hello names exercise " + hello.exercise +
                  ", which attnlab does not grade (" + graded_text() + ")";
    }
    return r;
  }
  Evidence ev;
  for (const auto& op : hello.ops) {
    const auto e = protocol_ops().find(op);
    if (e != protocol_ops().end()) ev[e->second].push_back("op " + op);
  }
  // The tiled kernel answers `attention` too, as its naive companion: T1 wins.
  drop_superseded(ev);
  if (auto d = decide(ev, "the submission", "its hello lists", "")) return *d;
  r.message = "cannot tell which exercise the submission answers: its hello names no "
              "\"exercise\" and no known op" + suggestion("");
  return r;
}

}  // namespace attn::grader
