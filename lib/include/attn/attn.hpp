#pragma once
// The attnlab reference attention library (namespace attn).
#include "attn/attention.hpp"
#include "attn/attention_backward.hpp"
#include "attn/attention_options.hpp"
#include "attn/attention_tiled.hpp"
#include "attn/varlen_attention.hpp"
#include "attn/errors.hpp"
#include "attn/masked_softmax.hpp"
#include "attn/masks.hpp"
#include "attn/matrix.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/positional_encoding.hpp"
#include "attn/scores.hpp"
