// The JSON codec: doubles, matrices and masks round-trip bit-exactly;
// anything that is not a number, a boolean or a rectangular matrix is refused.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/protocol_error.hpp"

using namespace attn::grader;
using nlohmann::json;

namespace {

/// Through text, as on the wire.
double round_trip(double x) { return decode_double(json::parse(encode_double(x).dump()), "x"); }

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

}  // namespace

TEST_CASE("finite doubles round-trip bit-exactly through JSON text", "[codec]") {
  const double denorm_min = std::numeric_limits<double>::denorm_min();
  const double values[] = {0.0,
                           -0.0,
                           0.1,
                           -0.1,
                           1.0 / 3.0,
                           1e308,
                           -1e308,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::min(),
                           std::nextafter(std::numeric_limits<double>::min(), 0.0),  // largest denormal
                           denorm_min,
                           -denorm_min,
                           3 * denorm_min,
                           9007199254740993.0,  // 2^53 + 1 rounds to 2^53
                           9007199254740994.0,
                           1e22,
                           1e23,
                           5e-324,
                           0.30000000000000004,
                           3.141592653589793,
                           std::nextafter(1.0, 2.0),
                           std::nextafter(1.0, 0.0)};
  for (double x : values) {
    INFO("x = " << encode_double(x).dump());
    CHECK(bits(round_trip(x)) == bits(x));
  }
  CHECK(std::signbit(round_trip(-0.0)));
  CHECK(encode_double(-0.0).dump() == "-0.0");
}

TEST_CASE("NaN and infinities travel as strings", "[codec]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(encode_double(std::nan("")).dump() == "\"NaN\"");
  CHECK(encode_double(inf).dump() == "\"Infinity\"");
  CHECK(encode_double(-inf).dump() == "\"-Infinity\"");
  CHECK(std::isnan(round_trip(std::nan(""))));
  CHECK(std::isnan(round_trip(-std::nan(""))));
  CHECK(round_trip(inf) == inf);
  CHECK(round_trip(-inf) == -inf);
}

TEST_CASE("random bit patterns round-trip bit-exactly", "[codec]") {
  std::mt19937_64 rng(20261129);
  int checked = 0;
  for (int k = 0; k < 20000; ++k) {
    const double x = std::bit_cast<double>(rng());
    if (std::isnan(x)) continue;
    const double y = round_trip(x);
    if (bits(y) != bits(x)) FAIL("round trip changed " << encode_double(x).dump());
    ++checked;
  }
  CHECK(checked > 19000);
}

TEST_CASE("integers and float literals are numbers", "[codec]") {
  CHECK(decode_double(json::parse("3"), "x") == 3.0);
  CHECK(decode_double(json::parse("-7"), "x") == -7.0);
  CHECK(decode_double(json::parse("18446744073709551615"), "x") == 18446744073709551615.0);
  CHECK(std::signbit(decode_double(json::parse("-0.0"), "x")));
  CHECK(decode_double(json::parse("1e308"), "x") == 1e308);
  CHECK(decode_double(json::parse("4.9406564584124654e-324"), "x") ==
        std::numeric_limits<double>::denorm_min());
}

TEST_CASE("anything else is not a number", "[codec]") {
  for (const char* text : {"\"nan\"", "\"inf\"", "\"1.5\"", "true", "null", "[1]", "{}"}) {
    INFO(text);
    CHECK_THROWS_AS(decode_double(json::parse(text), "A[0][1]"), ProtocolError);
  }
  CHECK_THROWS_WITH(decode_double(json::parse("\"nan\""), "A[0][1]"),
                    Catch::Contains("A[0][1]") && Catch::Contains("\"NaN\""));
}

TEST_CASE("matrices round-trip bit-exactly, special values included", "[codec]") {
  RowMatrix M(3, 4);
  M << 0.1, -0.0, 1e308, std::numeric_limits<double>::denorm_min(),  //
      std::nan(""), std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(), 2.5,  //
      -1e-300, 7, 1.0 / 3.0, -2.0;
  const RowMatrix R = decode_matrix(json::parse(encode_matrix(M).dump()), "M");
  REQUIRE(R.rows() == 3);
  REQUIRE(R.cols() == 4);
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j) {
      if (std::isnan(M(i, j))) {
        CHECK(std::isnan(R(i, j)));
      } else {
        CHECK(bits(R(i, j)) == bits(M(i, j)));
      }
    }
  }
}

TEST_CASE("matrix shapes: empty and degenerate", "[codec]") {
  CHECK(encode_matrix(RowMatrix(0, 3)).dump() == "[]");
  CHECK(encode_matrix(RowMatrix(2, 0)).dump() == "[[],[]]");
  const RowMatrix e = decode_matrix(json::parse("[]"), "O", 3);
  CHECK(e.rows() == 0);
  CHECK(e.cols() == 3);
  const RowMatrix z = decode_matrix(json::parse("[[],[]]"), "O", 7);
  CHECK(z.rows() == 2);
  CHECK(z.cols() == 0);
}

TEST_CASE("a matrix that is not rectangular or not an array of rows is refused", "[codec]") {
  CHECK_THROWS_WITH(decode_matrix(json::parse("[[1,2],[3]]"), "A"),
                    Catch::Contains("not rectangular") && Catch::Contains("row 1"));
  CHECK_THROWS_AS(decode_matrix(json::parse("[1,2]"), "A"), ProtocolError);
  CHECK_THROWS_AS(decode_matrix(json::parse("{\"a\":1}"), "A"), ProtocolError);
  CHECK_THROWS_AS(decode_matrix(json::parse("null"), "A"), ProtocolError);
  CHECK_THROWS_WITH(decode_matrix(json::parse("[[1,\"x\"]]"), "A"), Catch::Contains("A[0][1]"));
}

TEST_CASE("masks round-trip, only true and false are entries", "[codec]") {
  RowMask m(2, 3);
  m << false, true, true, false, false, true;
  CHECK(encode_mask(m).dump() == "[[false,true,true],[false,false,true]]");
  const RowMask r = decode_mask(json::parse(encode_mask(m).dump()), "mask");
  CHECK(r == m);
  CHECK_THROWS_WITH(decode_mask(json::parse("[[0,1]]"), "mask"), Catch::Contains("mask[0][0]"));
  CHECK_THROWS_AS(decode_mask(json::parse("[[true],[true,false]]"), "mask"), ProtocolError);
}
