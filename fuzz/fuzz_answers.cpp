// libFuzzer target: the answers file of every exercise that has one (F2 and
// F4 in the registry; grader/src/exercises/answers.cpp). Any file is a verdict (a malformed file is the student's
// answer and fails) or, for the exercise it names, a usage problem; never an
// exception or a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
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
  static const std::vector<attn::grader::Exercise> with_answers = [] {
    std::vector<attn::grader::Exercise> exercises;
    for (const auto& spec : attn::grader::exercise_specs())
      if (!spec.answers_form.empty()) exercises.push_back(attn::grader::load_exercise(spec.id));
    if (exercises.empty()) std::abort();  // the registry lost its answers files
    return exercises;
  }();
  for (const auto& e : with_answers) {
    (void)attn::grader::answers_usage_problem(e, path);
    (void)attn::grader::check_answers(e, path);
  }
  return 0;
}
