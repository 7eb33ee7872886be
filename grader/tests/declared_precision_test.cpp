// The declared precision: the hello's members, and the choice between the
// command line, the hello and the default (declared_precision.hpp).
#include <catch2/catch.hpp>

#include "protocol/hello.hpp"
#include "protocol/protocol_error.hpp"
#include "submission/declared_precision.hpp"

using namespace attn::grader;
using attn::ref::NumberFormat;

namespace {
Hello hello_with(const std::string& members) {
  return parse_hello(R"({"v":1,"hello":"attnlab-protocol/1","ok":true)" + members + "}");
}
}  // namespace

TEST_CASE("the hello's precision and accumulate are read as canonical type names", "[protocol][precision]") {
  const Hello h = hello_with(R"(,"precision":"bf16","accumulate":"float")");
  CHECK(h.precision == "bfloat16");
  CHECK(h.accumulate == "float32");
  CHECK(hello_with("").precision.empty());
  CHECK_THROWS_AS(hello_with(R"(,"precision":"float8")"), ProtocolError);
  CHECK_THROWS_AS(hello_with(R"(,"accumulate":32)"), ProtocolError);
}

TEST_CASE("the command line wins over the hello, the hello over float64", "[precision]") {
  const DeclaredPrecision none = choose_precision({}, Hello{});
  CHECK(none.precision.storage == NumberFormat::float64);
  CHECK(none.describe() == "float64 (the default)");

  const Hello f32 = hello_with(R"(,"precision":"float32")");
  const DeclaredPrecision from_hello = choose_precision({}, f32);
  CHECK(from_hello.precision.storage == NumberFormat::float32);
  CHECK(from_hello.precision.accumulate == NumberFormat::float32);
  CHECK(from_hello.describe() == "float32 (from the hello)");

  PrecisionRequest cli;
  cli.storage = NumberFormat::bfloat16;
  const DeclaredPrecision over = choose_precision(cli, f32);
  CHECK(over.precision.storage == NumberFormat::bfloat16);
  CHECK(over.precision.accumulate == NumberFormat::float32);
  CHECK(over.describe() == "bfloat16 accumulating in float32 (from the command line)");

  // The hello's accumulation type goes with its storage type.
  const Hello mixed = hello_with(R"(,"precision":"float16","accumulate":"float64")");
  CHECK(choose_precision({}, mixed).precision.accumulate == NumberFormat::float64);
  CHECK(choose_precision(cli, mixed).precision.accumulate == NumberFormat::float32);
  PrecisionRequest acc;
  acc.accumulate = NumberFormat::float16;
  const DeclaredPrecision both = choose_precision(acc, hello_with(R"(,"precision":"float16")"));
  CHECK(both.precision.accumulate == NumberFormat::float16);
  CHECK(both.describe() == "float16 (from the hello and the command line)");

  // A pair that does not fit is refused.
  CHECK_THROWS_AS(choose_precision({}, hello_with(R"(,"precision":"bfloat16","accumulate":"float16")")),
                  std::invalid_argument);
}
