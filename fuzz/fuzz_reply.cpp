// libFuzzer target: the grader's reading of a submission's reply line
// (grader/src/protocol/reply.cpp) for each kind of case. Any input must give
// an Outcome, never a crash or an exception; the text it keeps of the reply
// must be printable UTF-8 of bounded length (untrusted_text.hpp).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz_support.hpp"
#include "protocol/reply.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const attn::prop::Case c = attn::fuzz::case_for_selector(data[0]);
  const std::string_view line(reinterpret_cast<const char*>(data + 1), size - 1);
  const attn::prop::Outcome o = attn::grader::parse_reply(line, 7, c);
  attn::fuzz::require_safe_text(o.message, 4096);
  attn::fuzz::require_safe_text(o.error_type, 1024);
  return 0;
}
