#include "attn/prop/lib_subject.hpp"

#include <cstddef>
#include <iterator>
#include <string>

#include "attn/attn.hpp"

namespace attn::prop {

template <class T>
std::string LibSubject<T>::name() const {
  return std::string("attn (lib/, ") + ref::format_info(ref::format_of<T>()).cpp_type + ")";
}

template <class T>
Precision LibSubject<T>::precision() const {
  return Precision::of_type<T>();
}

namespace {

// The library's answer for each operation, in T (float or double); each
// throws the library's errors, which run() turns into refusals.

template <class T>
Outcome lib_softmax_rows(const Case& c) {
  return Outcome::make_result(DMatrix(), softmax_rows<T>(c.S.cast<T>()).template cast<double>());
}

template <class T>
Outcome lib_masked_softmax(const Case& c) {
  const Matrix<T> A = c.mask ? masked_softmax<T>(c.S.cast<T>(), *c.mask) : softmax_rows<T>(c.S.cast<T>());
  return Outcome::make_result(DMatrix(), A.template cast<double>());
}

template <class T>
Outcome lib_attention(const Case& c) {
  const auto r = attention<T>(c.Q.cast<T>(), c.K.cast<T>(), c.V.cast<T>(), c.mask);
  return Outcome::make_result(r.O.template cast<double>(), r.A.template cast<double>());
}

template <class T>
Outcome lib_attention_tiled(const Case& c) {
  const auto r = attention_tiled<T>(c.Q.cast<T>(), c.K.cast<T>(), c.V.cast<T>(), c.mask,
                                    TileSizes{c.tile_q, c.tile_k});
  Outcome o = Outcome::make_result(r.O.template cast<double>(), DMatrix());
  o.logsumexp = r.logsumexp.template cast<double>();
  return o;
}

template <class T>
Outcome lib_multi_head_attention(const Case& c) {
  MultiHeadWeights<T> w;
  for (const HeadProjections& h : c.heads) w.heads.push_back({h.W_Q.cast<T>(), h.W_K.cast<T>(), h.W_V.cast<T>()});
  w.W_O = c.W_O.cast<T>();
  const Matrix<T> O = multi_head_attention<T>(c.X.cast<T>(), w, c.mask);
  return Outcome::make_result(O.template cast<double>(), DMatrix());
}

template <class T>
Outcome lib_causal_mask(const Case& c) {
  Outcome o = Outcome::make_result(DMatrix(), DMatrix());
  const auto& m = c.mask_shape;
  o.mask = attn::causal_mask(m.T_q, m.T_v,
                             m.bottom_right ? CausalAlignment::bottom_right : CausalAlignment::top_left);
  return o;
}

template <class T>
Outcome lib_padding_mask(const Case& c) {
  Outcome o = Outcome::make_result(DMatrix(), DMatrix());
  const auto& m = c.mask_shape;
  o.mask = attn::padding_mask(m.T_q, m.T_v, m.key_length);
  return o;
}

template <class T>
Outcome lib_batched_attention(const Case&) {
  // The library has no grouped-query kernel: attnlab check takes one from outside.
  return Outcome::make_fault("the library does not implement batched_attention");
}

template <class T>
Outcome lib_attention_backward(const Case& c) {
  const Matrix<T> Q = c.Q.cast<T>(), K = c.K.cast<T>(), V = c.V.cast<T>(), dO = c.dO.cast<T>();
  AttentionGradients<T> g;
  if (c.tile_q > 0 && c.tile_k > 0) {
    // FlashAttention-2's order: the forward's O and logsumexp, then P recomputed.
    const TileSizes tiles{c.tile_q, c.tile_k};
    const auto fwd = attention_tiled<T>(Q, K, V, c.mask, AttentionOptions{}, tiles);
    g = attention_backward_tiled<T>(Q, K, V, fwd.O, fwd.logsumexp, dO, c.mask, AttentionOptions{}, tiles);
  } else {
    g = attention_backward<T>(Q, K, V, dO, c.mask);
  }
  return Outcome::make_gradients(g.dQ.template cast<double>(), g.dK.template cast<double>(),
                                 g.dV.template cast<double>());
}

/// Each operation's library answer (its hook beside its OperationSpec row):
/// one row per enumerator, in the enumerator's order (checked below).
template <class T>
struct LibOperation {
  Operation op;
  Outcome (*answer)(const Case& c);
};
template <class T>
constexpr LibOperation<T> kLibOperations[] = {
    {Operation::softmax_rows, lib_softmax_rows<T>},
    {Operation::masked_softmax, lib_masked_softmax<T>},
    {Operation::attention, lib_attention<T>},
    {Operation::attention_tiled, lib_attention_tiled<T>},
    {Operation::multi_head_attention, lib_multi_head_attention<T>},
    {Operation::causal_mask, lib_causal_mask<T>},
    {Operation::padding_mask, lib_padding_mask<T>},
    {Operation::batched_attention, lib_batched_attention<T>},
    {Operation::attention_backward, lib_attention_backward<T>},
};

template <class T>
constexpr bool lib_operations_in_enumerator_order() {
  if (std::size(kLibOperations<T>) != operation_specs().size()) return false;
  for (std::size_t i = 0; i < std::size(kLibOperations<T>); ++i)
    if (kLibOperations<T>[i].op != operation_specs()[i].op) return false;
  return true;
}
static_assert(lib_operations_in_enumerator_order<double>(),
              "kLibOperations: one row per OperationSpec, in the enumerator's order");

}  // namespace

template <class T>
Outcome LibSubject<T>::run(const Case& c) {
  try {
    const auto i = static_cast<std::size_t>(c.op);
    if (i >= std::size(kLibOperations<T>)) return Outcome::make_fault("unknown operation");
    return kLibOperations<T>[i].answer(c);
  } catch (const ShapeError& e) {
    return Outcome::make_refusal("ShapeError", e.what());
  } catch (const FullyMaskedRowError& e) {
    return Outcome::make_refusal("FullyMaskedRowError", e.what());
  } catch (const NonFiniteInputError& e) {
    return Outcome::make_refusal("NonFiniteInputError", e.what());
  } catch (const std::exception& e) {
    return Outcome::make_fault(std::string("unexpected exception: ") + e.what());
  }
}

template class LibSubject<float>;
template class LibSubject<double>;

}  // namespace attn::prop
