// libFuzzer target: the answers file of F2 and F4 (grader/src/exercises/
// answers.cpp). Any file is a verdict (a malformed file is the student's
// answer and fails) or, for the exercise it names, a usage problem; never an
// exception or a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "attn/prop/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = [] {
    char name[] = "/tmp/attnlab-fuzz-answers-XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    return std::string(name);
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  static const attn::grader::Exercise f2 = attn::grader::load_exercise("F2");
  static const attn::grader::Exercise f4 = attn::grader::load_exercise("F4");
  for (const auto* e : {&f2, &f4}) {
    (void)attn::grader::answers_usage_problem(*e, path);
    (void)attn::grader::check_answers(*e, path);
  }
  return 0;
}
