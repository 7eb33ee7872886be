// Contents in the other language than the file's name (see wrong_language.hpp).
#include "submission/wrong_language.hpp"

#include <fstream>
#include <regex>

#include "submission/submission.hpp"

namespace attn::grader {

std::string wrong_language_note(const std::filesystem::path& file) {
  try {
    const auto lang = detect_language(file);
    if (!lang || *lang == Language::executable) return {};
    std::ifstream in(file, std::ios::binary);
    std::string text(64 * 1024, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    static const std::regex python_def(R"((^|\n)def [A-Za-z_]\w*\s*\(.*\)\s*:)");
    static const std::regex python_import(R"((^|\n)(import numpy|from numpy|import [a-z_]+ as ))");
    static const std::regex cpp_marks(R"((^|\n)\s*(#include\s*[<"]|namespace\s+\w+\s*\{|using namespace )|std::)");
    const bool braces = text.find('{') != std::string::npos && text.find('}') != std::string::npos;
    const std::string stem = file.stem().string();
    if (*lang == Language::cpp && std::regex_search(text, python_def) &&
        (!braces || std::regex_search(text, python_import)) && !std::regex_search(text, cpp_marks))
      return file.filename().string() + " looks like Python (it defines functions with `def`), "
             "not C++: rename it to " + stem + ".py";
    if (*lang == Language::python && std::regex_search(text, cpp_marks) && braces &&
        !std::regex_search(text, python_def))
      return file.filename().string() + " looks like C++ (#include, namespace or std::), "
             "not Python: rename it to " + stem + ".cpp";
  } catch (const std::exception&) {
  }
  return {};
}

}  // namespace attn::grader
