// Causal and padding masks (section 32.2.4), true = forbidden.
#include <catch2/catch.hpp>

#include "attn/attn.hpp"

TEST_CASE("causal mask, top-left: query i sees keys j <= i", "[masks]") {
  const attn::Mask M = attn::causal_mask(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(M(i, j) == (j > i));
}

TEST_CASE("causal mask, bottom-right: the last query sees every key", "[masks]") {
  const attn::Mask M = attn::causal_mask(2, 4, attn::CausalAlignment::bottom_right);
  CHECK_FALSE(M.row(1).any());
  CHECK(M(0, 3));
  CHECK_FALSE(M(0, 2));
  // T_q > T_v: the first rows are fully forbidden and attention refuses them.
  const attn::Mask tall = attn::causal_mask(3, 2, attn::CausalAlignment::bottom_right);
  CHECK(tall.row(0).all());
  CHECK_THROWS_AS(attn::attention<double>(attn::Matrix<double>::Ones(3, 1),
                                          attn::Matrix<double>::Ones(2, 1),
                                          attn::Matrix<double>::Ones(2, 1), tall),
                  attn::FullyMaskedRowError);
}

TEST_CASE("padding mask forbids keys at and after key_length", "[masks]") {
  const attn::Mask M = attn::padding_mask(2, 5, 3);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) CHECK(M(i, j) == (j >= 3));
  CHECK_THROWS_AS(attn::padding_mask(2, 5, 6), attn::ShapeError);
  CHECK_THROWS_AS(attn::causal_mask(-1, 2), attn::ShapeError);
}
