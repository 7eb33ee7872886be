// exercise: F3
// Test fixture (a template: the test fills in @CONFIG@, @REPO@ and @SOLUTION@).
// It tries to read the teacher configuration and a model solution and to
// list the repository, at run time, and reports what it saw in the exception
// it throws on every case. Inside the sandbox it must see none of them.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attention.hpp"

namespace {

std::string read(const char* path) {
  std::ifstream in(path);
  if (!in) return "cannot read";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string list(const char* path) {
  DIR* d = opendir(path);
  if (!d) return "cannot list";
  std::string names;
  while (dirent* e = readdir(d)) names += std::string(e->d_name) + ",";
  closedir(d);
  return names;
}

}  // namespace

namespace f3 {

AttentionResult attention(const Matrix&, const Matrix&, const Matrix&,
                          const std::optional<Mask>&) {
  throw std::runtime_error("saw config: " + read("@CONFIG@") +
                           "; solution: " + read("@SOLUTION@") +
                           "; repo: " + list("@REPO@"));
}

}  // namespace f3
