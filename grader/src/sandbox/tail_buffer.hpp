#pragma once
// TailBuffer: keeps only the last `capacity` bytes written to it, for the
// stderr of a submission (which may print without bound).

#include <cstddef>
#include <string>
#include <string_view>

namespace attn::grader {

class TailBuffer {
 public:
  explicit TailBuffer(std::size_t capacity = 4096) : capacity_(capacity) {}

  void append(std::string_view data) {
    total_ += data.size();
    if (data.size() >= capacity_) {
      text_.assign(data.substr(data.size() - capacity_));
      return;
    }
    text_.append(data);
    if (text_.size() > capacity_) text_.erase(0, text_.size() - capacity_);
  }

  /// The kept bytes (at most capacity()).
  const std::string& text() const { return text_; }
  /// The kept bytes from the first whole line: when earlier bytes were
  /// dropped, the partial line they cut is dropped too (unless the kept
  /// bytes hold no other line), so a report never starts mid-line.
  std::string whole_lines() const {
    if (!truncated()) return text_;
    const std::size_t nl = text_.find('\n');
    if (nl == std::string::npos || nl + 1 >= text_.size()) return text_;
    return text_.substr(nl + 1);
  }
  /// Bytes ever appended, kept or not.
  std::size_t total() const { return total_; }
  bool truncated() const { return total_ > text_.size(); }
  std::size_t capacity() const { return capacity_; }
  void clear() {
    text_.clear();
    total_ = 0;
  }

 private:
  std::size_t capacity_;
  std::size_t total_ = 0;
  std::string text_;
};

}  // namespace attn::grader
