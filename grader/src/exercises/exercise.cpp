// The exercise registry: F1..F4 and the library operations T1, M1, C1, with
// their properties and points tables.
#include "exercises/exercise.hpp"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/grader/paths.hpp"
#include "exercises/visible_examples.hpp"
#include "sandbox/escaped_name.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

using attn::prop::Operation;

double Exercise::max_points() const {
  double total = 0;
  auto add = [&](const std::string& id) {
    if (auto it = points.find(id); it != points.end()) total += it->second;
  };
  for (const auto& p : properties) add(p.id);
  if (has_answers) add(kAnswersItem);
  return total;
}

std::vector<std::string> exercise_ids() { return {"F1", "F2", "F3", "F4"}; }

std::vector<std::string> library_exercise_ids() { return {"T1", "M1", "C1"}; }

namespace {

std::map<std::string, double> read_points(const std::string& id) {
  const std::filesystem::path file =
      std::filesystem::path(paths::exercises_dir) / id / "points.json";
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the points table " + file.string());
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    return j.at("points").get<std::map<std::string, double>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("points table " + file.string() + ": " + e.what());
  }
}

/// The properties that grade a softmax exercise (F1 on softmax_rows, F2 on
/// masked_softmax), after its visible example.
std::vector<attn::prop::Property> softmax_properties(attn::prop::Property example, Operation op) {
  namespace p = attn::prop;
  return {std::move(example),          p::row_stochastic(op),   p::exact_zeros(op),
          p::fully_forbidden_refused(op), p::shift_invariance(op), p::oracle_agreement(op)};
}

}  // namespace

Exercise load_exercise(const std::string& id) {
  Exercise e;
  e.id = id;
  if (id == "F1") {
    e.title = "The row-wise softmax";
    e.section = "32.2.8 (F1), solution 32.2.9";
    e.op = Operation::softmax_rows;
    e.properties = softmax_properties(f1_visible_example(), e.op);
    e.python_entry_points = {"softmax_rows"};
    e.cpp_header = "softmax_rows.hpp";
    e.cpp_entry = "f1::softmax_rows";
  } else if (id == "F2") {
    e.title = "The masked, stable softmax";
    e.section = "32.2.8 (F2), solution 32.2.9";
    e.op = Operation::masked_softmax;
    e.properties = softmax_properties(f2_visible_example(), e.op);
    e.properties.push_back(attn::prop::masked_equals_deleted(e.op));
    e.python_entry_points = {"masked_softmax"};
    e.cpp_header = "masked_softmax.hpp";
    e.cpp_entry = "f2::masked_softmax";
    e.has_answers = true;
  } else if (id == "F3" || id == "F4") {
    e.op = Operation::attention;
    e.properties = attn::prop::attention_properties();
    e.python_entry_points = {"scaled_dot_product_attention", "attention"};
    if (id == "F3") {
      e.title = "Attention with an optional mask";
      e.section = "32.2.8 (F3), solution 32.2.9";
      e.cpp_header = "attention.hpp";
      e.cpp_entry = "f3::attention";
    } else {
      e.title = "Masking before the softmax (the corrected F4 code)";
      e.section = "32.2.8 (F4), solution 32.2.9";
      e.cpp_header = "masked_attention.hpp";
      e.cpp_entry = "f4::attention";
      e.has_answers = true;
    }
  } else if (id == "T1") {
    // Not an exercise of the text: the tiled kernel of the library's
    // attention_tiled (section 32.2.4, cost; FlashAttention), graded like one
    // so the bug-injection catalogue can hold its mutants. Python or C++.
    namespace p = attn::prop;
    e.title = "Tiled attention with an online softmax (library operation)";
    e.section = "32.2.4 (cost); FlashAttention, Dao et al. 2022, Theorem 1";
    e.op = Operation::attention_tiled;
    e.properties = {p::tiled_equals_naive(), p::oracle_agreement(e.op),
                    p::fully_forbidden_refused(e.op), p::masked_equals_deleted(e.op)};
    e.python_entry_points = {"attention_tiled"};
    e.cpp_header = "attention_tiled.hpp";
    e.cpp_entry = "t1::attention_tiled, t1::attention";
  } else if (id == "M1") {
    // Not an exercise of the text: multi-head self-attention (section
    // 32.2.5), the library's multi_head_attention, graded like one so the
    // bug-injection catalogue can hold its mutants.
    e.title = "Multi-head self-attention (library operation)";
    e.section = "32.2.5; Vaswani et al. 2017, section 3.2.2";
    e.op = Operation::multi_head_attention;
    e.properties = attn::prop::multi_head_properties();
    e.python_entry_points = {"multi_head_attention"};
    e.cpp_header = "multi_head_attention.hpp";
    e.cpp_entry = "m1::multi_head_attention";
  } else if (id == "C1") {
    // Not an exercise of the text: building the masks of section 32.2.4
    // (the library's causal_mask and padding_mask), graded like one so the
    // bug-injection catalogue can hold the mistakes made when building a mask.
    e.title = "Building the causal and padding masks (library operation)";
    e.section = "32.2.4 (masks)";
    e.op = Operation::causal_mask;
    e.properties = {attn::prop::causal_mask_matches_definition(),
                    attn::prop::padding_mask_matches_definition()};
    e.python_entry_points = {"causal_mask", "padding_mask"};
    e.cpp_header = "masks.hpp";
    e.cpp_entry = "c1::causal_mask, c1::padding_mask";
  } else if (id == "F5") {
    throw std::invalid_argument(
        "exercise F5 is not graded by attnlab: its answer is a written experiment protocol "
        "(see exercises/F5/README.md and the rubric in solutions/F5/rubric.md)");
  } else {
    throw std::invalid_argument("unknown exercise " + escaped_name(id) +
                                " (attnlab grades F1, F2, F3, F4 and the library operations T1, M1, C1)");
  }
  e.points = read_points(id);
  return e;
}

Exercise kernel_exercise(Operation op, attn::prop::FullyForbidden fully_forbidden) {
  if (op == Operation::attention_backward) {
    // No exercise serves it: answered by the Python harness's --exercise
    // attention_backward, NAME(Q, K, V, dO, mask=None, scale=None,
    // causal=False) -> (dQ, dK, dV), or by an executable speaking the
    // protocol (no C++ interface: toolchain_for refuses it).
    Exercise e;
    e.id = attn::prop::operation_name(op);
    e.title = "kernel check, operation attention_backward";
    e.section = "the backward pass of attention (the chain rule through O = P V and the softmax)";
    e.op = op;
    e.properties = attn::prop::kernel_properties_for(op, fully_forbidden);
    for (const auto& p : e.properties) e.points[p.id] = 1;
    e.python_entry_points = {"attention_backward"};
    return e;
  }
  if (op == Operation::batched_attention) {
    // No exercise serves it: the pseudo-exercise is the operation itself,
    // answered by the Python harness's --exercise batched_attention (no C++
    // interface: toolchain_for refuses it).
    Exercise e;
    e.id = attn::prop::operation_name(op);
    e.title = "kernel check, operation batched_attention";
    e.section = "every property of the text that applies to batched_attention";
    e.op = op;
    e.properties = attn::prop::kernel_properties_for(op, fully_forbidden);
    for (const auto& p : e.properties) e.points[p.id] = 1;
    e.python_entry_points = {"batched_attention", "grouped_query_attention"};
    return e;
  }
  const char* id = op == Operation::attention              ? "F3"
                   : op == Operation::masked_softmax       ? "F2"
                   : op == Operation::softmax_rows         ? "F1"
                   : op == Operation::attention_tiled      ? "T1"
                   : op == Operation::multi_head_attention ? "M1"
                                                            : nullptr;
  if (!id) {
    throw std::invalid_argument(std::string("attnlab check does not take the operation ") +
                                attn::prop::operation_name(op));
  }
  // The interface (harness, C++ header, entry names) of that exercise, the
  // kernel's property list instead of its graded one.
  Exercise e = load_exercise(id);
  e.title = std::string("kernel check, operation ") + attn::prop::operation_name(op);
  e.section = "every property of the text that applies to " +
              std::string(attn::prop::operation_name(op));
  e.properties = attn::prop::kernel_properties_for(op, fully_forbidden);
  e.points.clear();
  for (const auto& p : e.properties) e.points[p.id] = 1;
  e.has_answers = false;
  e.fully_forbidden = fully_forbidden;
  return e;
}

}  // namespace attn::grader
