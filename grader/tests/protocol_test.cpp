// The protocol on Cases and Outcomes: request lines, reply lines, hello lines.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "protocol/hello.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/protocol_error.hpp"
#include "protocol/reply.hpp"
#include "protocol/request.hpp"

using namespace attn::grader;
using attn::prop::Case;
using attn::prop::Operation;
using attn::prop::Outcome;
using nlohmann::json;

namespace {

/// T_q = 2, T_v = 3, d_k = 2, d_v = 1, with a mask.
Case small_case() {
  Case c;
  c.op = Operation::attention;
  c.Q.resize(2, 2);
  c.Q << 1, 0, 0, std::numeric_limits<double>::infinity();
  c.K.resize(3, 2);
  c.K << 1, 1, 2, 0, -0.0, 0.1;
  c.V.resize(3, 1);
  c.V << 1, 2, 3;
  attn::Mask m(2, 3);
  m << false, true, true, false, false, false;
  c.mask = m;
  return c;
}

std::string ok_reply(int id, const std::string& O, const std::string& A) {
  return R"({"v":1,"id":)" + std::to_string(id) + R"(,"ok":true,"O":)" + O + R"(,"A":)" + A + "}";
}

}  // namespace

TEST_CASE("request line carries the case", "[protocol]") {
  const Case c = small_case();
  const std::string line = request_line(c, 42);
  CHECK(line.find('\n') == std::string::npos);
  const json r = json::parse(line);
  CHECK(r["v"] == 1);
  CHECK(r["id"] == 42);
  CHECK(r["op"] == "attention");
  CHECK(decode_matrix(r["Q"], "Q").cols() == 2);
  CHECK(r["Q"][1][1] == "Infinity");
  CHECK(std::signbit(decode_matrix(r["K"], "K")(2, 0)));
  CHECK(decode_mask(r["mask"], "mask") == *c.mask);
  CHECK(r["shapes"]["K"] == json::array({3, 2}));
  CHECK(r["shapes"]["V"] == json::array({3, 1}));

  Case unmasked = c;
  unmasked.mask.reset();
  CHECK(json::parse(request_line(unmasked, 1))["mask"].is_null());

  Case soft;
  soft.op = Operation::softmax_rows;
  soft.S = attn::Matrix<double>::Constant(2, 2, 0.5);
  const json s = json::parse(request_line(soft, 7));
  CHECK(s["op"] == "softmax_rows");
  CHECK(s.contains("S"));
  CHECK_FALSE(s.contains("Q"));
}

TEST_CASE("a well-formed result becomes a result", "[protocol]") {
  const Case c = small_case();
  const Outcome o = parse_reply(ok_reply(5, "[[1.5],[\"NaN\"]]", "[[1,0,0],[0.25,0.25,0.5]]"), 5, c);
  REQUIRE(o.kind == Outcome::Kind::result);
  CHECK(o.O(0, 0) == 1.5);
  CHECK(std::isnan(o.O(1, 0)));
  CHECK(o.A(1, 2) == 0.5);
}

TEST_CASE("an error reply becomes a refusal, a fault reply a fault", "[protocol]") {
  const Case c = small_case();
  const Outcome r = parse_reply(
      R"({"v":1,"id":3,"ok":false,"error":{"type":"ValueError","message":"row 0 is fully masked"}})",
      3, c);
  REQUIRE(r.kind == Outcome::Kind::refusal);
  CHECK(r.error_type == "ValueError");
  CHECK(r.message == "row 0 is fully masked");

  const Outcome f = parse_reply(R"({"v":1,"id":3,"ok":false,"fault":"returned a float"})", 3, c);
  REQUIRE(f.kind == Outcome::Kind::fault);
  CHECK_THAT(f.message, Catch::Contains("returned a float"));
}

TEST_CASE("malformed replies become faults that say what is wrong", "[protocol]") {
  const Case c = small_case();
  const std::string A = "[[1,0,0],[0.25,0.25,0.5]]";
  struct Bad {
    std::string line;
    const char* says;
  };
  const Bad bad[] = {
      {"this is not json", "not JSON"},
      {"[1,2,3]", "not a JSON object"},
      {ok_reply(6, "[[1],[2]]", A), "\"id\": 6, expected 5"},
      {R"({"v":2,"id":5,"ok":true,"O":[[1],[2]],"A":)" + A + "}", "\"v\": 2"},
      {R"({"v":1,"id":5,"ok":true,"A":)" + A + "}", "no \"O\""},
      {R"({"v":1,"id":5,"ok":"yes","O":[[1],[2]],"A":)" + A + "}", "\"ok\""},
      {ok_reply(5, "[[1],[2],[3]]", A), "O is 3 x 1, expected 2 x 1"},
      {ok_reply(5, "[[1],[2]]", "[[1,0],[0,1]]"), "A is 2 x 2, expected 2 x 3"},
      {ok_reply(5, "[[1],[2]]", "[[1,0,0],[0.5,0.5]]"), "not rectangular"},
      {ok_reply(5, "[[1],[\"one\"]]", A), "O[1][0]"},
      {ok_reply(5, "[[1],[null]]", A), "O[1][0]"},
      {R"({"v":1,"id":5,"ok":false})", "no \"error\""},
      {R"({"v":1,"id":5,"ok":false,"error":{"type":"ValueError"}})", "\"message\""},
  };
  for (const auto& b : bad) {
    INFO(b.line);
    const Outcome o = parse_reply(b.line, 5, c);
    CHECK(o.kind == Outcome::Kind::fault);
    CHECK_THAT(o.message, Catch::Contains(b.says));
  }
}

TEST_CASE("an answer of the wrong shape is a fault that keeps what was decoded", "[protocol]") {
  const Case c = small_case();  // A must be 2 x 3
  const Outcome o = parse_reply(ok_reply(5, "[[1],[2]]", "[[1,0],[0,0.5],[0,0.5]]"), 5, c);
  REQUIRE(o.kind == Outcome::Kind::fault);
  CHECK_THAT(o.message, Catch::Contains("A is 3 x 2, expected 2 x 3"));
  // The feedback reads the answer as given: here A transposed.
  REQUIRE(o.A.rows() == 3);
  REQUIRE(o.A.cols() == 2);
  CHECK(o.A(1, 1) == 0.5);
  CHECK(o.O.rows() == 2);
  // A reply that does not decode keeps nothing.
  const Outcome bad = parse_reply(ok_reply(5, "[[1],[2]]", "[[1,0,0],[0.5,0.5]]"), 5, c);
  REQUIRE(bad.kind == Outcome::Kind::fault);
  CHECK(bad.A.size() == 0);
}

TEST_CASE("softmax operations expect A only, shaped like S", "[protocol]") {
  Case c;
  c.op = Operation::masked_softmax;
  c.S = attn::Matrix<double>::Zero(1, 2);
  const Outcome ok = parse_reply(R"({"v":1,"id":1,"ok":true,"A":[[0.5,0.5]]})", 1, c);
  REQUIRE(ok.kind == Outcome::Kind::result);
  CHECK(ok.A.cols() == 2);
  const Outcome bad = parse_reply(R"({"v":1,"id":1,"ok":true,"A":[[1]]})", 1, c);
  CHECK(bad.kind == Outcome::Kind::fault);
}

TEST_CASE("hello lines", "[protocol]") {
  const Hello h = parse_hello(
      R"({"v":1,"hello":"attnlab-protocol/1","ok":true,"language":"python","entry":"attention","ops":["attention","softmax_rows"]})");
  CHECK(h.ok);
  CHECK(h.language == "python");
  CHECK(h.entry == "attention");
  CHECK(h.ops.size() == 2);

  const Hello minimal = parse_hello(R"({"v":1,"hello":"attnlab-protocol/1","ok":true})");
  CHECK(minimal.ops == std::vector<std::string>{"attention"});

  const Hello failed = parse_hello(
      R"({"v":1,"hello":"attnlab-protocol/1","ok":false,"error":{"type":"SyntaxError","message":"invalid syntax"}})");
  CHECK_FALSE(failed.ok);
  CHECK(failed.error_type == "SyntaxError");

  CHECK_THROWS_WITH(parse_hello(R"({"v":1,"hello":"attnlab-protocol/2","ok":true})"),
                    Catch::Contains("attnlab-protocol/2"));
  CHECK_THROWS_AS(parse_hello("hello"), ProtocolError);
  CHECK_THROWS_AS(parse_hello(R"({"v":1,"id":1,"ok":true})"), ProtocolError);
  CHECK_THROWS_AS(parse_hello(R"({"v":1,"hello":"attnlab-protocol/1"})"), ProtocolError);
}


// Found by fuzz/fuzz_hello: a number too large for the JSON reader threw
// nlohmann's out_of_range through parse_hello (the grader would terminate).
TEST_CASE("protocol: a hello with an overflowing number is a ProtocolError, not a crash", "[protocol]") {
  const std::string found("\x36\x33\x33\x45\x32\x32\x32\x32\x36\x36\x36\x22\x3a\x36\x36\x33\x36\xcb\xb5\xcc\xcc\xf8\xf8\xf8\x6c\x6c\x6f\x22\xf8\xf8\xf8\xf8\xf8\xf8\xcd\xcd\x3a", 37);
  CHECK_THROWS_AS(attn::grader::parse_hello(found), attn::grader::ProtocolError);
  CHECK_THROWS_AS(
      attn::grader::parse_hello(R"({"v":1,"hello":"attnlab-protocol/1","ok":true,"x":1e99999})"),
      attn::grader::ProtocolError);
  // Invalid UTF-8 quoted back in the message is made safe.
  try {
    attn::grader::parse_hello("{\"hello\":\"\xff\x1b[2J\"}");
    FAIL("accepted");
  } catch (const attn::grader::ProtocolError& e) {
    const std::string m = e.what();
    CHECK(m.find('\x1b') == std::string::npos);
    CHECK(m.find('\xff') == std::string::npos);
  }
}

// Found by fuzz/fuzz_reply: the JSON reader's message quoted the reply's raw
// bytes (control characters) into the fault.
TEST_CASE("protocol: a malformed reply's fault message holds printable text only", "[protocol]") {
  const std::string found("\x7b\x22\x76\x30\x2e\x30\x5d\x5d\xa4\x75\x65\x2c\x61\x22\x4f\x22\x3a\x5b\x5b\x31\x2c\x33\x5d\x2c\x5b\x33\x5d\x5d\x38\x2c\x00\x00\x61\x30\x00\x00\xd4\x00\x2e\x35\x2c\x30\x2e\x35\x3d\x2c\x5b\x30\x2e\x32\x35\x2c\x35\x0e\x37\x35\x5d\x41\x7d", 59);
  attn::prop::Case c;
  c.op = attn::prop::Operation::attention;
  c.Q = attn::prop::DMatrix::Ones(2, 3);
  c.K = attn::prop::DMatrix::Ones(2, 3);
  c.V = attn::prop::DMatrix::Ones(2, 2);
  for (const std::string& line : {found.substr(1), std::string("{\"v\":1,\x01\x1b[1A}")}) {
    const attn::prop::Outcome o = attn::grader::parse_reply(line, 7, c);
    REQUIRE(o.kind == attn::prop::Outcome::Kind::fault);
    for (const char ch : o.message) {
      const unsigned char u = static_cast<unsigned char>(ch);
      CHECK((u >= 0x20 || ch == '\n' || ch == '\t'));
      CHECK(u != 0x7f);
    }
  }
}
