#include "attn/grader/exercise.hpp"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/grader/paths.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

double Exercise::max_points() const {
  double total = 0;
  for (const auto& p : properties) {
    auto it = points.find(p.id);
    if (it != points.end()) total += it->second;
  }
  return total;
}

std::vector<std::string> exercise_ids() { return {"F3"}; }

namespace {

std::map<std::string, double> read_points(const std::string& id) {
  const std::filesystem::path file =
      std::filesystem::path(paths::source_dir) / "exercises" / id / "points.json";
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the points table " + file.string());
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    return j.at("points").get<std::map<std::string, double>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("points table " + file.string() + ": " + e.what());
  }
}

}  // namespace

Exercise load_exercise(const std::string& id) {
  Exercise e;
  e.id = id;
  if (id == "F3") {
    e.title = "Attention with an optional mask";
    e.section = "32.2.8 (F3), solution 32.2.9";
    e.op = attn::prop::Operation::attention;
    e.properties = attn::prop::attention_properties();
    e.python_entry_points = {"scaled_dot_product_attention", "attention"};
  } else {
    throw std::invalid_argument("unknown exercise " + id + " (known: F3)");
  }
  e.points = read_points(id);
  return e;
}

}  // namespace attn::grader
