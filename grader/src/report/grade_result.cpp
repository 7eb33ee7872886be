// GradeResult's exit code and queries.
#include "report/grade_result.hpp"

#include <algorithm>

namespace attn::grader {

int GradeResult::exit_code() const {
  switch (status) {
    case Status::graded: return failed == 0 ? 0 : 1;
    case Status::not_gradable: return 1;
    case Status::usage_error:
    case Status::infrastructure_error: return 2;
  }
  return 2;
}

bool GradeResult::failed_property(const std::string& id) const {
  return std::any_of(verdicts.begin(), verdicts.end(),
                     [&](const auto& v) { return v.property_id == id && !v.passed(); });
}

}  // namespace attn::grader
