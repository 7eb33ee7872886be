#pragma once
// ProtocolError: a line received over the attnlab protocol does not follow
// grader/PROTOCOL.md (malformed JSON, a missing member, a matrix that is not
// rectangular, a value that is not a number...).

#include <stdexcept>
#include <string>

namespace attn::grader {

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace attn::grader
