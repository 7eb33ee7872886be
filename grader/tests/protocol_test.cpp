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

TEST_CASE("an answer of the wrong shape is a result kept as answered", "[protocol]") {
  // One fault, one charge: score_shape charges the shape, and the other
  // properties judge the members that have theirs (judge_parts).
  const Case c = small_case();  // A must be 2 x 3, O 2 x 1
  const Outcome o = parse_reply(ok_reply(5, "[[1],[2]]", "[[1,0],[0,0.5],[0,0.5]]"), 5, c);
  REQUIRE(o.kind == Outcome::Kind::result);
  // Read as given: here A transposed, O well shaped.
  REQUIRE(o.A.rows() == 3);
  REQUIRE(o.A.cols() == 2);
  CHECK(o.A(1, 1) == 0.5);
  CHECK(o.O.rows() == 2);
  const Outcome t = parse_reply(ok_reply(5, "[[1,2]]", "[[1,0,0],[0.25,0.25,0.5]]"), 5, c);
  REQUIRE(t.kind == Outcome::Kind::result);  // O transposed: 1 x 2
  CHECK(t.O.rows() == 1);
  CHECK(t.O.cols() == 2);
  CHECK(t.A.rows() == 2);
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
  const Outcome wrong = parse_reply(R"({"v":1,"id":1,"ok":true,"A":[[1]]})", 1, c);
  CHECK(wrong.kind == Outcome::Kind::result);  // the shape is charged by a property
  CHECK(wrong.A.cols() == 1);
  const Outcome bad = parse_reply(R"({"v":1,"id":1,"ok":true,"A":[[1],[0,1]]})", 1, c);
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

namespace {

/// PROTOCOL.md's batched_attention example: N = 1, H = 2 query heads sharing
/// H_kv = 1 kv head, T_q = 1, T_v = 2, d_k = 2, d_v = 1, a (1, 2) mask.
Case batched_case() {
  Case c;
  c.op = Operation::batched_attention;
  c.batched.Q = {1, 2, 1, 2};
  c.batched.K = {1, 1, 2, 2};
  c.batched.V = {1, 1, 2, 1};
  c.Q.resize(2, 2);
  c.Q << 1, 0, 0, 1;
  c.K.resize(2, 2);
  c.K << 1, 0, 0, 1;
  c.V.resize(2, 1);
  c.V << 1, 2;
  attn::Mask m(1, 2);
  m << false, true;
  c.mask = m;
  c.batched.mask_dims = {1, 2};
  return c;
}

}  // namespace

TEST_CASE("batched_attention: the request nests the tensors as PROTOCOL.md shows", "[protocol]") {
  const json r = json::parse(request_line(batched_case(), 3));
  const json expected = json::parse(
      R"({"v":1,"id":3,"op":"batched_attention","Q":[[[[1.0,0.0]],[[0.0,1.0]]]],)"
      R"("K":[[[[1.0,0.0],[0.0,1.0]]]],"V":[[[[1.0],[2.0]]]],"mask":[[false,true]],"scale":null,)"
      R"("causal":false,"alignment":"top_left","shapes":{"Q":[1,2,1,2],"K":[1,1,2,2],)"
      R"("V":[1,1,2,1],"mask":[1,2]}})");
  CHECK(r == expected);

  Case c = batched_case();
  c.batched.scale = 0.375;
  c.batched.causal = true;
  c.batched.bottom_right = true;
  c.mask.reset();
  c.batched.mask_dims.clear();
  const json s = json::parse(request_line(c, 4));
  CHECK(s["scale"] == 0.375);
  CHECK(s["causal"] == true);
  CHECK(s["alignment"] == "bottom_right");
  CHECK(s["mask"].is_null());
}

TEST_CASE("batched_attention: a 4-D mask and its tensor nest in C order", "[protocol]") {
  // (2, 1, 2, 3) stacked as 4 rows: row (n * 1 + h) * 2 + i.
  RowMask m(4, 3);
  m << true, false, false,  //
      false, true, false,   //
      false, false, true,   //
      true, true, false;
  const json j = encode_mask_tensor(m, {2, 1, 2, 3});
  CHECK(j[1][0][0] == json::array({false, false, true}));
  CHECK(j[0][0][1] == json::array({false, true, false}));
  RowMatrix T(4, 3);
  T << 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
  const StackedTensor back = decode_tensor(encode_tensor(T, {2, 1, 2, 3}), "T", 4);
  CHECK(back.shape == std::vector<Eigen::Index>({2, 1, 2, 3}));
  CHECK(back.stacked == T);
  CHECK(back.stacked(3, 1) == 10);
}

TEST_CASE("batched_attention: O nested (N, H, T_q, d_v) is the stacked result, another shape a fault",
          "[protocol]") {
  const Case c = batched_case();
  const Outcome o = parse_reply(R"({"v":1,"id":3,"ok":true,"O":[[[[1.0]],[[2.5]]]]})", 3, c);
  REQUIRE(o.kind == Outcome::Kind::result);
  REQUIRE(o.O.rows() == 2);
  CHECK(o.O(0, 0) == 1.0);
  CHECK(o.O(1, 0) == 2.5);
  // A 2-D O (the heads flattened) or one head too few: faults naming the shapes.
  const Outcome flat = parse_reply(R"({"v":1,"id":3,"ok":true,"O":[[1.0],[2.5]]})", 3, c);
  CHECK(flat.kind == Outcome::Kind::fault);
  const Outcome few = parse_reply(R"({"v":1,"id":3,"ok":true,"O":[[[[1.0]]]]})", 3, c);
  REQUIRE(few.kind == Outcome::Kind::fault);
  CHECK(few.message.find("O is (1, 1, 1, 1), expected (1, 2, 1, 1)") != std::string::npos);
  const Outcome ragged = parse_reply(R"({"v":1,"id":3,"ok":true,"O":[[[[1.0]],[[2.5],[3.0]]]]})", 3, c);
  REQUIRE(ragged.kind == Outcome::Kind::fault);
  CHECK(ragged.message.find("not rectangular") != std::string::npos);
}
