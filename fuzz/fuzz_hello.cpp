// libFuzzer target: the hello line a submission sends first
// (grader/src/protocol/hello.cpp). It may be refused with ProtocolError;
// anything else escaping, or a crash, is a bug. Every field kept is
// printable UTF-8 of bounded length.
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "protocol/hello.hpp"
#include "protocol/protocol_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  try {
    const attn::grader::Hello h = attn::grader::parse_hello(line);
    for (const std::string* s : {&h.language, &h.runtime, &h.exercise, &h.entry, &h.error_type,
                                 &h.error_message})
      attn::fuzz::require_safe_text(*s, 4096);
  } catch (const attn::grader::ProtocolError&) {
  }
  return 0;
}
