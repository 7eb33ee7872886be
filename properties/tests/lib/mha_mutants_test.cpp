// The multi-head mutants of the bug-injection catalogue
// (exercises/mutants/lib/mha_*.hpp): multi-head attention has no protocol
// op, so its mutants are in-process C++ subjects. Each must be caught by the
// library-level properties of section 32.2.5 that the library itself passes
// (mha_mutant_properties.hpp: the oracle comparison of mha_against_oracle.cpp
// and the head order of mha_heads_independent.cpp), under RapidCheck's own
// generation and shrinking, with the CI seed and 5 more; the shrunk
// counterexample is printed and must be small (h = 2 heads, the rest <= 3).
#include <catch2/catch.hpp>

#include <iostream>

#include "mha_heads_reversed.hpp"
#include "mha_mutant_properties.hpp"
#include "mha_one_wo_per_head.hpp"

using namespace attn::libprop;

namespace {

const Mha library = [](const auto& X, const auto& w, const auto& mask) {
  return attn::multi_head_attention<double>(X, w, mask);
};

const std::vector<std::pair<std::string, Mha>>& mutants() {
  static const std::vector<std::pair<std::string, Mha>> list = {
      {"heads_reversed",
       [](const auto& X, const auto& w, const auto& mask) {
         return attn::mutants::mha_heads_reversed<double>(X, w, mask);
       }},
      {"one_wo_per_head",
       [](const auto& X, const auto& w, const auto& mask) {
         return attn::mutants::mha_one_wo_per_head<double>(X, w, mask);
       }},
  };
  return list;
}

const std::uint64_t kSeeds[] = {20261129u, 1u, 2u, 3u, 4u, 5u};

}  // namespace

TEST_CASE("mha mutants: the library passes both properties (control)", "[lib][multi_head][mutants]") {
  for (const std::uint64_t seed : {kSeeds[0], kSeeds[1]})
    for (const auto& [id, p] : mha_mutant_properties()) {
      MhaSizes unused;
      INFO(id << ", seed " << seed);
      CHECK_FALSE(mha_property_fails(p, library, seed, 100, unused));
    }
}

TEST_CASE("mha mutants: every multi-head mutant is caught with a small counterexample",
          "[lib][multi_head][mutants]") {
  for (const auto& [name, mha] : mutants())
    for (const std::uint64_t seed : kSeeds)
      for (const auto& [id, p] : mha_mutant_properties()) {
        MhaSizes s;
        INFO(name << " by " << id << ", seed " << seed);
        REQUIRE(mha_property_fails(p, mha, seed, 100, s));
        std::cout << "mha mutant " << name << ": caught by " << id << " (seed " << seed
                  << "), shrunk counterexample h = " << s.h << ", T = " << s.T
                  << ", d_model = " << s.d_model << ", d_k = " << s.d_k << ", d_v = " << s.d_v
                  << ", d_out = " << s.d_out << "\n";
        // Two heads are the least that can tell the orders (or the W_O blocks) apart.
        CHECK(s.h == 2);
        CHECK(s.T <= 3);
        CHECK(s.d_k <= 3);
        CHECK(s.d_v <= 3);
      }
}
