#pragma once
// The conventions for a query row whose every key is forbidden. Apart from
// catalog.hpp so that code naming a convention does not parse the catalogue.

namespace attn::prop {

/// What a kernel answers for a query row whose every key is forbidden (the
/// softmax is undefined there, Lemma 2 excludes it). The text's rule, kept by
/// the library and every exercise, is an error; other kernels document
/// another answer (`attnlab check --fully-forbidden`): NaN (PyTorch before
/// 2.5) or zeros (flash-attention, PyTorch from 2.5 on).
enum class FullyForbidden { error, nan, zeros };
/// "error", "nan", "zeros".
const char* fully_forbidden_name(FullyForbidden f);

}  // namespace attn::prop
