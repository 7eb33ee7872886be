// The catalogue's properties carry what the grader and `check` need of
// them (Property's members): a title and a source for the report, a hint for
// a failure, and a kind that says what a failure charges. Ids name what a
// property is: one ending in "_refused" is a refusal property and no other is.
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <string>

#include "attn/prop/catalog.hpp"

using namespace attn::prop;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("catalogue: every property has a title, a source and a hint of its own", "[catalogue]") {
  const auto all = catalogue_properties();
  REQUIRE(all.size() > 40);
  std::map<std::string, std::string> headline_of;
  for (const Property& p : all) {
    INFO(p.id << " for " << operation_name(p.op));
    CHECK_FALSE(p.id.empty());
    CHECK_FALSE(p.title.empty());
    CHECK_FALSE(p.source.empty());
    CHECK_FALSE(p.hint.headline.empty());
    CHECK_FALSE(p.hint.advice.empty());
    CHECK_FALSE(p.hint.cites.empty());
    CHECK((p.generator || !p.fixed_cases.empty()));
    CHECK(p.check);
    // One headline per id (the same hint whatever the operation), and no two
    // ids share a headline: a student reading it knows which property failed.
    const auto [it, fresh] = headline_of.emplace(p.id, p.hint.headline);
    if (!fresh) CHECK(it->second == p.hint.headline);
  }
  std::map<std::string, std::string> id_of;
  for (const auto& [id, headline] : headline_of) {
    const auto [it, fresh] = id_of.emplace(headline, id);
    INFO(id << " and " << it->second << " share the headline " << headline);
    CHECK(fresh);
  }
}

TEST_CASE("catalogue: a property is a refusal exactly when its id says it refuses", "[catalogue]") {
  for (const Property& p : catalogue_properties()) {
    INFO(p.id << " for " << operation_name(p.op));
    CHECK((p.kind == PropertyKind::refusal) == ends_with(p.id, "_refused"));
  }
}

TEST_CASE("catalogue: only properties judging any valid case take the fixed edge cases",
          "[catalogue]") {
  // edge_cases.hpp: a property that generates its own regime (a fully
  // forbidden row, a d_k mismatch, a related case) would be charged for a
  // case outside it.
  for (const Property& p : catalogue_properties()) {
    INFO(p.id << " for " << operation_name(p.op));
    const bool any = p.edge_cases.lowest_logits || p.edge_cases.long_rows || p.edge_cases.non_finite;
    if (any) CHECK(p.kind == PropertyKind::value);
    if (p.edge_cases.non_finite) CHECK(p.id == "oracle_agreement");
  }
}

TEST_CASE("catalogue: an exercise's list is its operation's, and no exercise is over the others",
          "[catalogue]") {
  // The text's worked example comes first where the text prints one.
  for (const Operation op : {Operation::softmax_rows, Operation::masked_softmax, Operation::attention}) {
    const auto list = graded_properties_for(op);
    REQUIRE_FALSE(list.empty());
    CHECK(list.front().id == "textbook_example");
    CHECK(list.front().op == op);
  }
  CHECK(graded_properties_for(Operation::attention_backward).size() == backward_properties().size());
  CHECK_THROWS_AS(graded_properties_for(Operation::batched_attention), std::invalid_argument);
  CHECK_THROWS_AS(graded_properties_for(Operation::padding_mask), std::invalid_argument);
  CHECK_THROWS_AS(softmax_textbook_example(Operation::attention), std::invalid_argument);
}

TEST_CASE("operation specs: one per operation, names unique and read back, inputs and answers set",
          "[catalogue]") {
  const auto specs = operation_specs();
  REQUIRE(specs.size() == std::size_t(Operation::attention_backward) + 1);
  std::map<std::string, Operation> by_name;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const OperationSpec& s = specs[i];
    INFO(s.name);
    CHECK(std::size_t(s.op) == i);
    CHECK(&operation_spec(s.op) == &s);
    CHECK(std::string(operation_name(s.op)) == s.name);
    CHECK(by_name.emplace(std::string(s.name), s.op).second);
    REQUIRE(operation_named(s.name).has_value());
    CHECK(*operation_named(s.name) == s.op);
    CHECK(s.inputs != 0);
    CHECK(s.answers != 0);
    // A mask builder answers a mask alone and is never checked as a kernel.
    CHECK(builds_mask(s.op) == (s.answers == answer::mask));
    CHECK(s.checked_as_kernel == !builds_mask(s.op));
    // An operation takes its numbers one way: logits, matrices Q K V, X and
    // projections, stacked tensors, or a mask to build.
    const unsigned ways = s.inputs & (input::logits | input::qkv | input::projections | input::batched |
                                      input::mask_shape);
    CHECK((ways != 0 && (ways & (ways - 1)) == 0));
  }
  CHECK_FALSE(operation_named("attention_batched").has_value());
  CHECK_FALSE(operation_named("").has_value());
  CHECK(takes_qkv(Operation::attention_backward));
  CHECK_FALSE(takes_qkv(Operation::batched_attention));
  CHECK(takes_logits(Operation::masked_softmax));
  CHECK(returns_outputs(Operation::batched_attention));
  CHECK_FALSE(returns_outputs(Operation::attention_backward));
}
