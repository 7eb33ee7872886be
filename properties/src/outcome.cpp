#include "attn/prop/outcome.hpp"

namespace attn::prop {

Outcome Outcome::make_result(DMatrix O, DMatrix A) {
  Outcome o;
  o.kind = Kind::result;
  o.O = std::move(O);
  o.A = std::move(A);
  return o;
}

Outcome Outcome::make_refusal(std::string error_type, std::string message) {
  Outcome o;
  o.kind = Kind::refusal;
  o.error_type = std::move(error_type);
  o.message = std::move(message);
  return o;
}

Outcome Outcome::make_fault(std::string message) {
  Outcome o;
  o.kind = Kind::fault;
  o.message = std::move(message);
  return o;
}

Outcome Outcome::make_gradients(DMatrix dQ, DMatrix dK, DMatrix dV) {
  Outcome o;
  o.kind = Kind::result;
  o.dQ = std::move(dQ);
  o.dK = std::move(dK);
  o.dV = std::move(dV);
  return o;
}

const char* kind_name(Outcome::Kind k) {
  switch (k) {
    case Outcome::Kind::result: return "result";
    case Outcome::Kind::refusal: return "refusal";
    case Outcome::Kind::fault: return "fault";
  }
  return "unknown";
}

}  // namespace attn::prop
