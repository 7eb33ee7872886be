// The data files a submission's code names (data_files.hpp).
#include "grading/data_files.hpp"

#include <fstream>
#include <iterator>
#include <regex>
#include <set>

namespace attn::grader {

namespace fs = std::filesystem;

std::vector<std::string> opened_file_names(const fs::path& code) {
  std::ifstream in(code, std::ios::binary);
  if (!in) return {};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A call that opens a file, then its first argument as a literal (a
  // notebook's JSON escapes the quote: \"scale.txt\").
  static const std::regex call(
      R"re(\b(?:open|loadtxt|genfromtxt|load|fromfile|read_csv|fopen|ifstream\s+\w+|fstream\s+\w+|ifstream|fstream)\s*[({]\s*[rbuf]?\\?["']([^"'\\\n]{1,200})\\?["'])re");
  // A file opened to be written (open("out.txt", "w"), mode="a") is made by the code.
  static const std::regex written(R"re(^\s*,\s*(?:mode\s*=\s*)?\\?["'][rbt+]*[wax])re");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str();
    const auto after = (*it)[0].second;
    if (std::regex_search(after, text.end(), written, std::regex_constants::match_continuous)) continue;
    const fs::path p(name);
    if (p.is_absolute() || name.find("..") != std::string::npos || name.find('{') != std::string::npos ||
        name.find('%') != std::string::npos)
      continue;
    if (seen.insert(name).second) out.push_back(name);
  }
  return out;
}

std::vector<std::string> missing_data_files(const fs::path& code, const fs::path& folder) {
  std::vector<std::string> out;
  for (const auto& name : opened_file_names(code)) {
    std::error_code ec;
    if (!fs::exists(folder / name, ec)) out.push_back(name);
  }
  return out;
}

}  // namespace attn::grader
