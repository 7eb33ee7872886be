// Scoring rules from the points table and the teacher configuration, and
// the completion of a grading's scores.
#include "grading/scoring_rules.hpp"

#include <sstream>

#include "sandbox/exit_status.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {
namespace {

std::string mib(std::uint64_t bytes) {
  if (bytes == 0) return "unlimited";
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

ScoringRules scoring_rules(const Exercise& exercise, const TeacherConfig* config,
                           const std::string& generated_visibility) {
  ScoringRules r;
  r.points = exercise.points;
  if (config) {
    if (config->examples_visibility) r.examples_visibility = *config->examples_visibility;
    if (config->generated_visibility) r.generated_visibility = *config->generated_visibility;
    if (config->answers_visibility) r.answers_visibility = *config->answers_visibility;
    if (auto it = config->exercises.find(exercise.id); it != config->exercises.end()) {
      for (const auto& [item, p] : it->second.points) r.points[item] = p;
      for (const auto& [item, vis] : it->second.visibility) r.visibility[item] = vis;
    }
  }
  if (!generated_visibility.empty()) r.generated_visibility = generated_visibility;
  return r;
}

void complete_scoring(GradeResult& r, const GradeOptions& options) {
  if (r.header.submission.empty())
    r.header.submission = options.display_name.empty() ? options.file.string() : options.display_name;
  if (r.header.exercise.empty()) r.header.exercise = r.exercise;
  if (r.header.mode.empty()) r.header.mode = options.mode;
  if (r.header.sandbox.empty() && options.sandbox) r.header.sandbox = options.sandbox->status();
  const bool unscored = r.items.size() < r.verdicts.size();
  const bool needs_max = r.status != GradeResult::Status::graded && r.max_score == 0;
  if ((!unscored && !needs_max) || r.exercise.empty()) return;
  Exercise exercise;
  try {
    exercise = load_exercise(r.exercise);
  } catch (const std::exception&) {
    return;
  }
  const ScoringRules rules = scoring_rules(exercise, options.config.get(), options.generated_visibility);
  for (std::size_t k = r.items.size(); k < r.verdicts.size(); ++k) {
    ScoredItem item = score_verdict(r.verdicts[k], rules);
    if (item.counted) {
      r.score += item.points;
      r.max_score += item.max_points;
    }
    r.items.push_back(std::move(item));
  }
  if (needs_max) r.max_score = exercise_maximum(exercise, options.config.get());
}

void count_missing_part(const GradeOptions& options, const Exercise& exercise, bool answers_only,
                        GradeResult& r) {
  if (!options.whole_exercise || !exercise.has_answers() || !options.only_property.empty()) return;
  const ScoringRules rules = scoring_rules(exercise, options.config.get());
  if (answers_only) {
    double code = 0;
    for (const auto& p : exercise.properties) {
      code += rules.points_for(p.id);
      r.missing_items.push_back({p.id, rules.points_for(p.id)});
    }
    r.max_score += code;
    r.missing = "the code (" + exercise.id + "'s properties): 0 of " + format_points(code) +
                " points";
  } else if (!options.answers) {
    const double points = rules.points_for(kAnswersItem);
    r.max_score += points;
    r.missing_items.push_back({kAnswersItem, points});
    r.missing = "the answers file: 0 of " + format_points(points) + " points";
  }
}

double exercise_maximum(const Exercise& exercise, const TeacherConfig* config) {
  const ScoringRules rules = scoring_rules(exercise, config);
  double max = 0;
  for (const auto& p : exercise.properties) max += rules.points_for(p.id);
  if (exercise.has_answers()) max += rules.points_for(kAnswersItem);
  return max;
}

std::string describe_limits(const GradeOptions& options) {
  std::ostringstream os;
  os << (options.submission_timeout.count() > 0 ? describe_duration(options.submission_timeout)
                                                : std::string("no limit"))
     << " per submission, memory " << mib(options.launch.limits.address_space_bytes)
     << ", files " << mib(options.launch.limits.file_size_bytes)
     << ", no core dumps; the process group is killed at the end";
  return os.str();
}

}  // namespace attn::grader
