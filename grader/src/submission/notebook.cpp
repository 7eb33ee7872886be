// Jupyter notebooks to Python (see notebook.hpp).
#include "submission/notebook.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "submission/submission.hpp"

namespace attn::grader {

bool is_notebook(const std::filesystem::path& file) {
  return lower_extension(file) == ".ipynb";
}

std::string notebook_to_python(const std::filesystem::path& notebook) {
  std::ifstream in(notebook, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + notebook.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(notebook.string() + " is not a notebook: " + e.what());
  }
  if (!j.is_object() || !j.contains("cells") || !j["cells"].is_array())
    throw std::runtime_error(notebook.string() + " is not a notebook: it has no \"cells\" list");
  std::ostringstream out;
  int n = 0;
  for (const auto& cell : j["cells"]) {
    if (!cell.is_object() || cell.value("cell_type", "") != "code") continue;
    ++n;
    std::string source;
    const auto it = cell.find("source");
    if (it != cell.end() && it->is_string()) {
      source = it->get<std::string>();
    } else if (it != cell.end() && it->is_array()) {
      for (const auto& part : *it)
        if (part.is_string()) source += part.get<std::string>();
    }
    out << "# --- cell " << n << "\n";
    std::istringstream lines(source);
    std::string line;
    while (std::getline(lines, line)) {
      const auto first = line.find_first_not_of(" \t");
      const bool magic = first != std::string::npos && (line[first] == '%' || line[first] == '!');
      out << (magic ? "# (IPython, skipped) " : "") << line << "\n";
    }
  }
  return out.str();
}

}  // namespace attn::grader
