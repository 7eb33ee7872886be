// MemoSubject and case_key (attn/prop/memo_subject.hpp).
#include "attn/prop/memo_subject.hpp"

#include <cstring>

namespace attn::prop {
namespace {

void put_matrix(std::string& key, const DMatrix& M) {
  key += std::to_string(M.rows()) + "x" + std::to_string(M.cols()) + ":";
  const std::size_t n = static_cast<std::size_t>(M.size());
  const std::size_t at = key.size();
  key.resize(at + n * sizeof(double));
  if (n > 0) std::memcpy(&key[at], M.data(), n * sizeof(double));
  key += ';';
}

void put_index(std::string& key, Index n) { key += std::to_string(n) + ","; }

std::size_t held_bytes(const Outcome& o) {
  std::size_t doubles = 0;
  for (const DMatrix* M : {&o.O, &o.A, &o.logsumexp, &o.dQ, &o.dK, &o.dV})
    doubles += static_cast<std::size_t>(M->size());
  return doubles * sizeof(double) + static_cast<std::size_t>(o.mask.size()) +
         o.error_type.size() + o.message.size();
}

}  // namespace

std::string case_key(const Case& c) {
  std::string key = operation_name(c.op);
  key += '|';
  put_matrix(key, c.Q);
  put_matrix(key, c.K);
  put_matrix(key, c.V);
  put_matrix(key, c.S);
  put_matrix(key, c.dO);
  if (c.mask) {
    key += "mask" + std::to_string(c.mask->rows()) + "x" + std::to_string(c.mask->cols()) + ":";
    for (Index i = 0; i < c.mask->size(); ++i) key += c.mask->data()[i] ? '1' : '0';
  }
  key += "|tiles" + std::to_string(c.tile_q) + "," + std::to_string(c.tile_k) + "|";
  put_matrix(key, c.X);
  for (const auto& h : c.heads) {
    put_matrix(key, h.W_Q);
    put_matrix(key, h.W_K);
    put_matrix(key, h.W_V);
  }
  put_matrix(key, c.W_O);
  key += "|shape" + std::to_string(c.mask_shape.T_q) + "," + std::to_string(c.mask_shape.T_v) +
         "," + (c.mask_shape.bottom_right ? "br" : "tl") + "," +
         std::to_string(c.mask_shape.key_length);
  key += "|batched";
  for (const Shape4* s : {&c.batched.Q, &c.batched.K, &c.batched.V})
    for (Index n : *s) put_index(key, n);
  key += "mask";
  for (Index n : c.batched.mask_dims) put_index(key, n);
  if (c.batched.scale) {
    key += "scale";
    const std::size_t at = key.size();
    key.resize(at + sizeof(double));
    std::memcpy(&key[at], &*c.batched.scale, sizeof(double));
  }
  key += c.batched.causal ? (c.batched.bottom_right ? "|causal br" : "|causal tl") : "|";
  return key;
}

Outcome MemoSubject::run(const Case& c) {
  std::string key = case_key(c);
  if (auto it = memo_.find(key); it != memo_.end()) {
    ++reused_;
    return it->second;
  }
  ++asked_;
  Outcome o = inner_.run(c);
  if (o.kind == Outcome::Kind::fault) return o;
  const std::size_t cost = key.size() + held_bytes(o);
  if (bytes_ + cost <= kMemoSubjectBytes) {
    bytes_ += cost;
    memo_.emplace(std::move(key), o);
  }
  return o;
}

}  // namespace attn::prop
