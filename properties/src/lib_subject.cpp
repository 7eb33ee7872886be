#include "attn/prop/lib_subject.hpp"

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

template <class T>
Outcome LibSubject<T>::run(const Case& c) {
  try {
    switch (c.op) {
      case Operation::attention: {
        const auto r = attention<T>(c.Q.cast<T>(), c.K.cast<T>(), c.V.cast<T>(), c.mask);
        return Outcome::make_result(r.O.template cast<double>(), r.A.template cast<double>());
      }
      case Operation::attention_tiled: {
        const auto r = attention_tiled<T>(c.Q.cast<T>(), c.K.cast<T>(), c.V.cast<T>(), c.mask,
                                          TileSizes{c.tile_q, c.tile_k});
        Outcome o = Outcome::make_result(r.O.template cast<double>(), DMatrix());
        o.logsumexp = r.logsumexp.template cast<double>();
        return o;
      }
      case Operation::masked_softmax: {
        const Matrix<T> A = c.mask ? masked_softmax<T>(c.S.cast<T>(), *c.mask)
                                   : softmax_rows<T>(c.S.cast<T>());
        return Outcome::make_result(DMatrix(), A.template cast<double>());
      }
      case Operation::multi_head_attention: {
        MultiHeadWeights<T> w;
        for (const HeadProjections& h : c.heads)
          w.heads.push_back({h.W_Q.cast<T>(), h.W_K.cast<T>(), h.W_V.cast<T>()});
        w.W_O = c.W_O.cast<T>();
        const Matrix<T> O = multi_head_attention<T>(c.X.cast<T>(), w, c.mask);
        return Outcome::make_result(O.template cast<double>(), DMatrix());
      }
      case Operation::causal_mask:
      case Operation::padding_mask: {
        Outcome o = Outcome::make_result(DMatrix(), DMatrix());
        const auto& m = c.mask_shape;
        o.mask = c.op == Operation::causal_mask
                     ? attn::causal_mask(m.T_q, m.T_v,
                                         m.bottom_right ? CausalAlignment::bottom_right
                                                        : CausalAlignment::top_left)
                     : attn::padding_mask(m.T_q, m.T_v, m.key_length);
        return o;
      }
      case Operation::softmax_rows:
        return Outcome::make_result(DMatrix(), softmax_rows<T>(c.S.cast<T>()).template cast<double>());
      case Operation::attention_backward: {
        const Matrix<T> Q = c.Q.cast<T>(), K = c.K.cast<T>(), V = c.V.cast<T>(), dO = c.dO.cast<T>();
        AttentionGradients<T> g;
        if (c.tile_q > 0 && c.tile_k > 0) {
          // FlashAttention-2's order: the forward's O and logsumexp, then P recomputed.
          const TileSizes tiles{c.tile_q, c.tile_k};
          const auto fwd = attention_tiled<T>(Q, K, V, c.mask, AttentionOptions{}, tiles);
          g = attention_backward_tiled<T>(Q, K, V, fwd.O, fwd.logsumexp, dO, c.mask,
                                          AttentionOptions{}, tiles);
        } else {
          g = attention_backward<T>(Q, K, V, dO, c.mask);
        }
        return Outcome::make_gradients(g.dQ.template cast<double>(), g.dK.template cast<double>(),
                                       g.dV.template cast<double>());
      }
      case Operation::batched_attention:
        // The library has no grouped-query kernel: attnlab check takes one from outside.
        return Outcome::make_fault("the library does not implement batched_attention");
    }
    return Outcome::make_fault("unknown operation");
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
