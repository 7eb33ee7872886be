// libFuzzer target: the teacher configuration (grader/src/grading/
// teacher_config.cpp). Any text is either a configuration or a ConfigError
// naming the member; no other exception, no crash.
#include <cstdint>
#include <string>

#include "grading/teacher_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)attn::grader::parse_teacher_config(text, "fuzz.json");
  } catch (const attn::grader::ConfigError&) {
  }
  return 0;
}
