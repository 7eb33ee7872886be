// The catalogue (catalogue.hpp): every family file registers its families.
#include "attn/mis/catalogue.hpp"

#include "backward_models.hpp"
#include "families.hpp"

namespace attn::mis {

const std::vector<Family>& catalogue() {
  static const std::vector<Family> all = [] {
    std::vector<Family> v;
    detail::add_masking_families(v);
    detail::add_scale_families(v);
    detail::add_softmax_families(v);
    detail::add_numerics_families(v);
    detail::add_refusal_families(v);
    detail::add_tiled_families(v);
    detail::add_multi_head_families(v);
    detail::add_mask_builder_families(v);
    detail::add_backward_families(v);
    return v;
  }();
  return all;
}

const Family* find_family(const std::string& key) {
  for (const Family& f : catalogue())
    if (f.key == key) return &f;
  return nullptr;
}

std::vector<const Family*> families_for(Operation op) {
  std::vector<const Family*> v;
  for (const Family& f : catalogue())
    if (f.applies_to(op)) v.push_back(&f);
  return v;
}

}  // namespace attn::mis
