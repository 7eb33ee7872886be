// The grader's per-operation tables (protocol/operation_codec.cpp,
// report/reproduction.cpp): a row for every Operation, and its content. The
// static_asserts check the rows' order; these tests check what the rows do:
// a generated Case of each operation goes through the protocol (request
// fields as the operation's input:: flags name; the library's answer, as a
// harness would write it, read back unchanged), each reproduction calls
// the operation's function, each operation check takes has a pseudo-exercise
// (exercises/exercise.cpp kernel_exercise), and case_sizes (which the
// feedback's hints and the mutants' listing read) agrees with the request's
// shapes and the library's answer.
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "attn/prop/case.hpp"
#include "attn/prop/generators.hpp"
#include "attn/prop/lib_subject.hpp"
#include "attn/prop/operation.hpp"
#include "attn/prop/property.hpp"
#include "exercises/exercise.hpp"
#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/operation_codec.hpp"
#include "protocol/reply.hpp"
#include "protocol/request.hpp"
#include "report/reproduction.hpp"

using namespace attn::grader;
using attn::prop::Case;
using attn::prop::Operation;
using attn::prop::OperationSpec;
using attn::prop::Outcome;
using nlohmann::json;
namespace input = attn::prop::input;
namespace answer = attn::prop::answer;

namespace {

/// A Case of `op` from the operation's own generator (its row of
/// kOperationGenerators through gen_case; seed fixed, size 10).
Case generated_case(Operation op, std::uint64_t seed) {
  attn::prop::GenConfig cfg;
  cfg.op = op;
  const rc::Gen<Case> gen = attn::prop::gen_case(cfg, attn::prop::MaskPolicy::any);
  Case c = gen(rc::Random(seed), 10).value();
  REQUIRE(c.op == op);
  return c;
}

/// Calls fn(spec, c) for a generated case of every operation at seeds 1-5
/// (INFO names the operation and seed for a failing check).
template <class Fn>
void for_each_generated_case(const Fn& fn) {
  for (const OperationSpec& spec : attn::prop::operation_specs())
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      INFO(spec.name << ", seed " << seed);
      fn(spec, generated_case(spec.op, seed));
    }
}

/// Same shape and the same entries (NaN equal to NaN, -0 to -0).
template <class A, class B>
bool same(const A& a, const B& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double x = a(i, j), y = b(i, j);
      if (!(x == y && std::signbit(x) == std::signbit(y)) && !(std::isnan(x) && std::isnan(y)))
        return false;
    }
  return true;
}

/// The reply a harness writes for answer `o` to a request for `c`: the
/// members the operation's answer:: flags name.
std::string reply_for(const Case& c, const Outcome& o, std::int64_t id) {
  const unsigned answers = attn::prop::operation_spec(c.op).answers;
  json r = {{"v", 1}, {"id", id}, {"ok", true}};
  if (answers & answer::outputs) {
    if (c.op == Operation::batched_attention) {
      const auto& b = c.batched;
      r["O"] = encode_tensor(o.O, {b.Q[0], b.Q[1], b.Q[2], b.V[3]});
    } else {
      r["O"] = encode_matrix(o.O);
    }
  }
  if (answers & answer::weights) r["A"] = encode_matrix(o.A);
  if (answers & answer::logsumexp) {
    r["logsumexp"] = json::array();
    for (Eigen::Index i = 0; i < o.logsumexp.rows(); ++i)
      r["logsumexp"].push_back(encode_double(o.logsumexp(i, 0)));
  }
  if (answers & answer::mask) r["mask"] = encode_mask(o.mask);
  if (answers & answer::gradients) {
    r["dQ"] = encode_matrix(o.dQ);
    r["dK"] = encode_matrix(o.dK);
    r["dV"] = encode_matrix(o.dV);
  }
  return r.dump();
}

/// The request members the input:: flags name (besides "v", "id", "op", "shapes").
std::vector<std::string> members_named_by_flags(const OperationSpec& spec) {
  std::vector<std::string> m;
  if (spec.inputs & input::logits) m.push_back("S");
  if (spec.inputs & (input::qkv | input::batched)) m.insert(m.end(), {"Q", "K", "V"});
  if (spec.inputs & input::upstream) m.push_back("dO");
  if (spec.inputs & input::projections) m.insert(m.end(), {"X", "W_Q", "W_K", "W_V", "W_O"});
  if (spec.inputs & input::mask) m.push_back("mask");
  return m;
}

}  // namespace

TEST_CASE("every operation has a codec row of its own", "[protocol][operation_table]") {
  for (const OperationSpec& spec : attn::prop::operation_specs()) {
    INFO(spec.name);
    const OperationCodec& row = operation_codec(spec.op);
    CHECK(row.op == spec.op);
    CHECK(row.encode != nullptr);
    CHECK(row.decode != nullptr);
    CHECK(row.answer_text != nullptr);
    CHECK(row.answer_numbers != nullptr);
  }
}

TEST_CASE("a generated case of each operation round-trips through the protocol",
          "[protocol][operation_table]") {
  attn::prop::LibSubject<double> library;
  for_each_generated_case([&](const OperationSpec& spec, const Case& c) {
    const json request = json::parse(request_line(c, 9));
    CHECK(request["op"] == std::string(spec.name));
    for (const std::string& m : members_named_by_flags(spec)) CHECK(request.contains(m));
    if (spec.inputs & input::logits) CHECK(same(decode_matrix(request["S"], "S"), c.S));
    if (spec.inputs & input::qkv) {
      CHECK(same(decode_matrix(request["Q"], "Q"), c.Q));
      CHECK(same(decode_matrix(request["K"], "K"), c.K));
      CHECK(same(decode_matrix(request["V"], "V"), c.V));
    }
    if (spec.inputs & input::upstream) CHECK(same(decode_matrix(request["dO"], "dO"), c.dO));
    if (spec.inputs & input::projections) CHECK(same(decode_matrix(request["X"], "X"), c.X));
    if ((spec.inputs & input::mask) && !(spec.inputs & input::batched)) {
      if (c.mask) CHECK(decode_mask(request["mask"], "mask") == *c.mask);
      else CHECK(request["mask"].is_null());
    }
    if (spec.inputs & input::mask_shape) CHECK(request["T_q"] == c.mask_shape.T_q);
    if (spec.op == Operation::attention_tiled) {  // its tiles (the backward's are not sent)
      CHECK(request.value("tile_q", Eigen::Index(-1)) == c.tile_q);
      CHECK(request.value("tile_k", Eigen::Index(-1)) == c.tile_k);
    }

    const Outcome expected = library.run(c);
    if (expected.kind != Outcome::Kind::result) return;  // a refusal has no answer to carry
    const Outcome got = parse_reply(reply_for(c, expected, 9), 9, c);
    INFO(got.message);
    REQUIRE(got.kind == Outcome::Kind::result);
    CHECK(same(got.O, expected.O));
    CHECK(same(got.A, expected.A));
    CHECK(same(got.logsumexp, expected.logsumexp));
    CHECK(got.mask == expected.mask);
    CHECK(same(got.dQ, expected.dQ));
    CHECK(same(got.dK, expected.dK));
    CHECK(same(got.dV, expected.dV));
    // The bound on the reply's length counts every number of the answer.
    CHECK(operation_codec(spec.op).answer_numbers(c) ==
          static_cast<std::size_t>(expected.O.size() + expected.A.size() +
                                   expected.logsumexp.size() + expected.mask.size() +
                                   expected.dQ.size() + expected.dK.size() + expected.dV.size()));
  });
}

TEST_CASE("every operation has a reproduction row that calls its function",
          "[reproduction][operation_table]") {
  for (const OperationSpec& spec : attn::prop::operation_specs()) {
    INFO(spec.name);
    const Case c = generated_case(spec.op, 3);
    const std::string name(spec.name);
    const std::string fn = spec.op == Operation::attention ? "scaled_dot_product_attention" : name;
    const std::string py = python_reproduction(c, "attention.py");
    CHECK(py.find("from attention import " + fn + "\n") != std::string::npos);
    CHECK(py.find(fn + "(") != std::string::npos);
    const std::string cpp = cpp_reproduction(c, "F3");
    if (spec.op == Operation::batched_attention)
      CHECK(cpp.find(name + " has no C++ interface") != std::string::npos);
    else
      CHECK(cpp.find("::" + name + "(") != std::string::npos);
  }
}

TEST_CASE("every operation check takes has a pseudo-exercise to run it",
          "[exercise][operation_table]") {
  for (const OperationSpec& spec : attn::prop::operation_specs()) {
    INFO(spec.name);
    if (!spec.checked_as_kernel) {
      CHECK_THROWS_AS(kernel_exercise(spec.op), std::invalid_argument);
      continue;
    }
    const Exercise e = kernel_exercise(spec.op);
    CHECK(e.op == spec.op);
    CHECK_FALSE(e.properties.empty());
    // A Python kernel is found by these names when --entry names none.
    CHECK_FALSE(e.python_entry_points.empty());
    // A C++ interface is a header and the function it declares, or neither.
    CHECK(e.cpp_header.empty() == e.cpp_entry.empty());
    CHECK(e.points.size() == e.properties.size());
  }
}

TEST_CASE("case_sizes says the sizes the protocol sends and the library answers with",
          "[operation_table]") {
  attn::prop::LibSubject<double> library;
  for_each_generated_case([&](const OperationSpec& spec, const Case& c) {
    const attn::prop::CaseSizes s = attn::prop::case_sizes(c);
    CHECK(s.T_q >= 1);
    CHECK(s.T_v >= 1);
    // The request's shapes: the last two dimensions of Q, K, V (matrices
    // or stacked tensors), S, X and one head's projections.
    const json request = json::parse(request_line(c, 9));
    const json& shapes = request.contains("shapes") ? request["shapes"] : json::object();
    const auto last = [&](const char* m, std::size_t from_end) {
      const json& d = shapes.at(m);
      return d.at(d.size() - from_end).get<Eigen::Index>();
    };
    if (spec.inputs & input::mask_shape) {
      CHECK(request.at("T_q") == s.T_q);
      CHECK(request.at("T_v") == s.T_v);
    }
    if (spec.inputs & input::logits) {
      CHECK(last("S", 2) == s.T_q);
      CHECK(last("S", 1) == s.T_v);
    }
    if (spec.inputs & (input::qkv | input::batched)) {
      CHECK(last("Q", 2) == s.T_q);
      CHECK(last("K", 2) == s.T_v);
      CHECK(s.d_k == std::optional<Eigen::Index>(last("Q", 1)));
      CHECK(s.d_v == std::optional<Eigen::Index>(last("V", 1)));
    }
    if (spec.inputs & input::batched)
      CHECK(s.heads == std::optional<Eigen::Index>(shapes.at("Q").at(1).get<Eigen::Index>()));
    if (spec.inputs & input::projections) {
      CHECK(last("X", 2) == s.T_q);
      CHECK(s.T_v == s.T_q);  // self-attention
      CHECK(s.heads == std::optional<Eigen::Index>(Eigen::Index(c.heads.size())));
      if (!c.heads.empty()) {
        CHECK(s.d_k == std::optional<Eigen::Index>(last("W_Q", 1)));
        CHECK(s.d_v == std::optional<Eigen::Index>(last("W_V", 1)));
      }
    }
    // The library's answer has T_q rows (and T_v columns where it has keys').
    const Outcome o = library.run(c);
    if (o.kind != Outcome::Kind::result) return;
    if (o.O.size() > 0) CHECK(o.O.rows() == s.T_q);
    if (o.A.size() > 0) CHECK((o.A.rows() == s.T_q && o.A.cols() == s.T_v));
    if (o.mask.size() > 0) CHECK((o.mask.rows() == s.T_q && o.mask.cols() == s.T_v));
    if (o.dQ.size() > 0) CHECK((o.dQ.rows() == s.T_q && o.dK.rows() == s.T_v));
  });
}
