// The oracle's values remembered within one process (oracle_memo.hpp).
#include "oracle_memo.hpp"

#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <variant>

#include "attn/ref/extended_reference.hpp"

namespace attn::prop::detail {

namespace {

std::size_t reals(const ref::RealMatrix& M) { return M.data.size(); }

std::size_t reals(const ref::ExactAttention& x) {
  return reals(x.S) + reals(x.A) + reals(x.O) + x.logsumexp.size();
}
std::size_t reals(const ref::ExactSoftmax& x) {
  return reals(x.S) + reals(x.A) + x.logsumexp.size();
}
std::size_t reals(const ref::ExactGradients& x) {
  return reals(x.forward) + reals(x.dP) + x.D.size() + reals(x.dS) + reals(x.dQ) + reals(x.dK) +
         reals(x.dV);
}

using Value = std::variant<ref::ExactAttention, ref::ExactSoftmax, ref::ExactGradients>;

/// Least recently used first out, within kOracleMemoBytes.
class Memo {
 public:
  /// The value under `key`, or null (a miss, counted).
  std::shared_ptr<const Value> find(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->value;
  }

  void insert(const std::string& key, std::shared_ptr<const Value> value) {
    const std::size_t bytes =
        2 * key.size() + std::visit([](const auto& v) { return reals(v); }, *value) * sizeof(ref::Real);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > kOracleMemoBytes || index_.count(key)) return;
    while (used_ + bytes > kOracleMemoBytes && !order_.empty()) {
      used_ -= order_.back().bytes;
      index_.erase(order_.back().key);
      order_.pop_back();
    }
    order_.push_front({key, std::move(value), bytes});
    index_.emplace(key, order_.begin());
    used_ += bytes;
  }

  OracleMemoStats stats() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    order_.clear();
    used_ = 0;
    stats_ = {};
  }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const Value> value;
    std::size_t bytes;
  };
  std::mutex mutex_;
  std::list<Entry> order_;
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::size_t used_ = 0;
  OracleMemoStats stats_;
};

Memo& memo() {
  static Memo m;
  return m;
}

/// The remembered value of type T under `key`, else compute() remembered.
template <class T, class F>
T remembered(const OracleKey& key, F compute) {
  if (const auto hit = memo().find(key.bytes())) return std::get<T>(*hit);
  auto value = std::make_shared<const Value>(compute());  // an OracleRefusal propagates, unremembered
  T result = std::get<T>(*value);
  memo().insert(key.bytes(), std::move(value));
  return result;
}

}  // namespace

OracleKey::OracleKey(const char* what) : bytes_(what) { bytes_.push_back('\0'); }

void OracleKey::add_shape(std::ptrdiff_t rows, std::ptrdiff_t cols) {
  const std::int64_t dims[2] = {rows, cols};
  bytes_.append(reinterpret_cast<const char*>(dims), sizeof dims);
}

OracleKey& OracleKey::add(const ref::DMatrix& M) {
  bytes_.push_back('M');
  add_shape(M.rows(), M.cols());
  bytes_.append(reinterpret_cast<const char*>(M.data()), std::size_t(M.size()) * sizeof(double));
  return *this;
}

OracleKey& OracleKey::add(const std::optional<ref::BoolMatrix>& mask) {
  if (!mask) {
    bytes_.push_back('n');
    return *this;
  }
  bytes_.push_back('B');
  add_shape(mask->rows(), mask->cols());
  for (Eigen::Index k = 0; k < mask->size(); ++k) bytes_.push_back(mask->data()[k] ? '1' : '0');
  return *this;
}

OracleKey& OracleKey::add(std::optional<double> scale) {
  if (!scale) {
    bytes_.push_back('n');
    return *this;
  }
  bytes_.push_back('d');
  char raw[sizeof(double)];
  std::memcpy(raw, &*scale, sizeof raw);
  bytes_.append(raw, sizeof raw);
  return *this;
}

ref::ExactAttention memo_exact_attention(const ref::DMatrix& Q, const ref::DMatrix& K,
                                         const ref::DMatrix& V,
                                         const std::optional<ref::BoolMatrix>& mask,
                                         std::optional<double> scale) {
  OracleKey key("exact_attention");
  key.add(Q).add(K).add(V).add(mask).add(scale);
  return remembered<ref::ExactAttention>(key,
                                         [&] { return ref::exact_attention(Q, K, V, mask, scale); });
}

ref::ExactAttention memo_extended_attention(const ref::DMatrix& Q, const ref::DMatrix& K,
                                            const ref::DMatrix& V,
                                            const std::optional<ref::BoolMatrix>& mask) {
  OracleKey key("extended_attention");
  key.add(Q).add(K).add(V).add(mask);
  return remembered<ref::ExactAttention>(key,
                                         [&] { return ref::extended_attention(Q, K, V, mask); });
}

ref::ExactSoftmax memo_exact_masked_softmax(const ref::DMatrix& S,
                                            const std::optional<ref::BoolMatrix>& mask) {
  OracleKey key("exact_masked_softmax");
  key.add(S).add(mask);
  return remembered<ref::ExactSoftmax>(key, [&] { return ref::exact_masked_softmax(S, mask); });
}

ref::ExactSoftmax memo_extended_masked_softmax(const ref::DMatrix& S,
                                               const std::optional<ref::BoolMatrix>& mask) {
  OracleKey key("extended_masked_softmax");
  key.add(S).add(mask);
  return remembered<ref::ExactSoftmax>(key, [&] { return ref::extended_masked_softmax(S, mask); });
}

ref::ExactGradients memo_exact_attention_backward(const ref::DMatrix& Q, const ref::DMatrix& K,
                                                  const ref::DMatrix& V, const ref::DMatrix& dO,
                                                  const std::optional<ref::BoolMatrix>& mask) {
  OracleKey key("exact_attention_backward");
  key.add(Q).add(K).add(V).add(dO).add(mask);
  return remembered<ref::ExactGradients>(
      key, [&] { return ref::exact_attention_backward(Q, K, V, dO, mask); });
}

OracleMemoStats oracle_memo_stats() { return memo().stats(); }

void clear_oracle_memo() { memo().clear(); }

}  // namespace attn::prop::detail
