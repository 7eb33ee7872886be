// run_property: RapidCheck drives generation and shrinking; the property's
// own check says what is wrong. The last failing case RapidCheck tried is
// its final shrunk counterexample (it only moves to a smaller case that
// still fails), so recording it gives the counterexample as matrices.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListenerAdapter.h>

#include "attn/prop/property.hpp"
#include "check_util.hpp"
#include "edge_cases.hpp"

namespace attn::prop {

int default_case_count(int base) {
  const char* scale = std::getenv("ATTNLAB_CASES_SCALE");
  if (!scale || !*scale) return base;
  char* end = nullptr;
  const double k = std::strtod(scale, &end);
  if (end == scale || *end != '\0' || !(k > 0 && k < 1e300)) {  // also NaN, Inf
    // Said once per process, on stderr: a typo must not pass for a deep run.
    static bool warned = false;
    if (!warned) {
      warned = true;
      std::cerr << "attnlab: warning: ATTNLAB_CASES_SCALE=" << scale
                << " is ignored: it must be a number > 0 (e.g. 100 for 100 times the cases)\n";
    }
    return base;
  }
  const double n = base * k;
  return n < 1 ? 1 : n > 1e8 ? 100000000 : int(n);
}

namespace {

/// RapidCheck announces its configuration on std::cerr the first time it is
/// read; a grader's report has no use for that line, so read it once quietly.
void load_rapidcheck_configuration_quietly() {
  static const bool loaded = [] {
    std::streambuf* saved = std::cerr.rdbuf(nullptr);
    rc::detail::configuration();
    std::cerr.rdbuf(saved);
    return true;
  }();
  (void)loaded;
}

/// A shrunk counterexample keeps at least this error/bound ratio (or the
/// first failure's, if smaller): a bug that is far off is shown far off,
/// not on the case where it is off by 1.01 times its bound.
constexpr double kLoudRatio = 10;

/// A failure's worst error over its bound; +Inf for failures of an exact
/// rule (a refusal, an exact zero, NaN) or without a worst entry.
double failure_ratio(const Failure& f) {
  if (!f.worst || !(f.worst->bound > 0) || !std::isfinite(f.worst->error))
    return std::numeric_limits<double>::infinity();
  return f.worst->error / f.worst->bound;
}

/// "T_q x T_v = 3 x 5" for a shown case (its logits' shape for the softmax
/// operations).
std::string case_shape(const Case& c) {
  const bool softmax = c.S.size() > 0 && c.Q.size() == 0;
  const Index T_q = softmax ? c.S.rows() : c.Q.rows(), T_v = softmax ? c.S.cols() : c.K.rows();
  return "T_q x T_v = " + std::to_string(T_q) + " x " + std::to_string(T_v);
}

/// One fixed edge case through p.check. A subject must not throw; one that
/// does gives a failure saying so, with `threw` set.
struct EdgeCaseResult {
  std::optional<Failure> failure;
  bool threw = false;
};
EdgeCaseResult check_edge_case(const Property& p, Subject& s, const Case& c) {
  EdgeCaseResult r;
  detail::clear_left_mark();
  try {
    r.failure = p.check(s, c);
  } catch (const std::exception& e) {
    r.threw = true;
    r.failure = Failure{};
    r.failure->summary = std::string("the subject threw instead of answering: ") + e.what();
  }
  return r;
}

/// A random failure that is off by less than kLoudRatio times its bound may be
/// a small case of a fault that grows with length or magnitude (16-bit sums,
/// a stalled running sum), or one that is near rounding level: the fixed edge
/// cases (long rows, large logits) are tried too, and the loudest failure among
/// them, when louder, becomes the counterexample; its summary names the small
/// case, so a student still has one to debug by hand.
void show_loudest_edge_case(const Property& p, Subject& s, const RunConfig& cfg, const GenConfig& gc,
                            Verdict& v) {
  const double small = failure_ratio(*v.failure);
  double best = small;
  std::optional<Case> loud_case;
  std::optional<Failure> loud_failure;
  for (const Case& c : detail::edge_cases(p, gc)) {
    if (!cfg.shapes.admits(c)) continue;
    EdgeCaseResult r = check_edge_case(p, s, c);
    if (r.threw) continue;  // a throwing subject is shown on its own small case
    std::optional<Failure>& f = r.failure;
    if (!f || !(failure_ratio(*f) > best)) continue;
    best = failure_ratio(*f);
    loud_case = c;
    loud_failure = std::move(f);
    if (best >= kLoudRatio) break;
  }
  if (!loud_failure) return;
  std::ostringstream note;
  note.precision(3);
  const Case& small_case = v.failure->shown ? *v.failure->shown : *v.counterexample;
  note << " (a smaller case, " << case_shape(small_case) << ", is off by " << small
       << " times its bound)";
  loud_failure->summary += note.str();
  v.counterexample = std::move(loud_case);
  v.failure = std::move(loud_failure);
}

/// How much shrinking may check: the sum of shrink_cost over the candidates,
/// a few seconds of the 50-digit oracle (a 2 x 2000 case with d_k = d_v = 64
/// costs 5.1e5), so that no shrink runs for minutes on long cases.
constexpr double kShrinkWork = 4e6;

/// The work of checking c: multiply-adds of its logits and outputs, or its
/// logits' entries for the softmax operations.
double shrink_cost(const Case& c) {
  if (c.Q.size() == 0 && c.X.size() == 0) return std::max<double>(double(c.S.size()), 1);
  const DMatrix& q = c.X.size() > 0 ? c.X : c.Q;
  const double T_v = double(c.X.size() > 0 ? c.X.rows() : c.K.rows());
  return std::max(double(q.rows()) * T_v * double(q.cols() + std::max<Index>(c.V.cols(), 1)), 1.0);
}

Verdict& with_shown_case(Verdict& v) {
  show_failure_case(v);
  return v;
}

/// What a property judged: cases judged, and the first case left to another
/// property (one fault, one charge: detail::leave_to) with its mark.
struct Judging {
  int judged = 0;            // judged on an answer
  int judged_by_refusal = 0; // an input refusing answers, refused (detail::mark_judged_by_refusal)
  std::optional<Case> first_left;
  std::optional<detail::LeftMark> first_mark;
};

/// After a check that found no failure on c: counts it as judged, or tags it
/// as left to another property (detail::left_tag, in Verdict::regimes) when
/// the check marked it so.
void count_judging(Verdict& v, Judging& j, const Case& c) {
  const auto& mark = detail::left_mark();
  if (!mark) {
    ++(detail::judged_by_refusal() ? j.judged_by_refusal : j.judged);
    return;
  }
  ++v.regimes[detail::left_tag(*mark)];
  if (!j.first_left) {
    j.first_left = c;
    j.first_mark = mark;
  }
}

/// A run that passed without judging any case on an answer fails: nothing
/// judged is no pass (a skeleton that refuses every input, its rightful
/// refusals of NaN and Inf inputs included; an answer NaN everywhere).
void fail_if_nothing_judged(Verdict& v, const Judging& j) {
  if (!v.passed() || j.judged > 0 || !j.first_mark) return;
  std::string example = j.first_mark->example.substr(0, j.first_mark->example.find('\n'));
  if (example.size() > 200) example = example.substr(0, 200) + "...";
  Failure f;
  f.summary = "nothing judged: every case it ran was one with " + j.first_mark->why + ", which " +
              j.first_mark->owner + " charges (" + example + ")" +
              (j.judged_by_refusal > 0
                   ? ", or an input (NaN, Inf) that it rightly refused, which judges no value"
                   : "") +
              "; a property passes only on cases it could judge";
  v.status = VerdictStatus::failed;
  v.counterexample = j.first_left;
  v.failure = std::move(f);
}

/// A verdict naming p, the subject and the seed, not yet decided.
Verdict blank_verdict(const Property& p, const Subject& s, const RunConfig& cfg) {
  Verdict v;
  v.property_id = p.id;
  v.title = p.title;
  v.source = p.source;
  v.kind = p.kind;
  v.hint = p.hint;
  v.subject = s.name();
  v.seed = cfg.seed;
  return v;
}

/// The verdict of a property that cannot run on s (an operation it lacks,
/// weights it does not return), or nullopt when it can.
std::optional<Verdict> not_applicable(const Property& p, const Subject& s, Verdict v) {
  if (!s.supports(p.op)) {
    v.status = VerdictStatus::error;
    v.error = s.name() + " does not implement " + operation_name(p.op);
    return v;
  }
  if (p.needs_weights && (!s.returns_weights() || p.op == Operation::attention_tiled)) {
    v.status = VerdictStatus::skipped;
    v.error = "skipped: " + s.name() + " does not return the weights A";
    return v;
  }
  return std::nullopt;
}

/// A property with fixed cases (no generator): each case the shapes admit,
/// in order; the first failure is the verdict.
Verdict run_fixed_cases(const Property& p, Subject& s, const RunConfig& cfg, Verdict v) {
  v.generated = false;
  if (std::none_of(p.fixed_cases.begin(), p.fixed_cases.end(),
                   [&](const Case& c) { return cfg.shapes.admits(c); })) {
    v.status = VerdictStatus::skipped;
    v.error = "skipped: its cases have shapes the subject does not take (" + cfg.shapes.describe() + ")";
    return v;
  }
  Judging judging;
  for (const Case& c : p.fixed_cases) {
    if (!cfg.shapes.admits(c)) continue;
    for (const auto& t : c.tags) ++v.regimes[t];
    detail::clear_left_mark();
    if (auto f = p.check(s, c)) {
      v.status = VerdictStatus::failed;
      v.counterexample = c;
      v.failure = std::move(f);
      return with_shown_case(v);
    }
    count_judging(v, judging, c);
    ++v.cases;
  }
  v.status = VerdictStatus::passed;
  fail_if_nothing_judged(v, judging);
  return v;
}

/// The state of one seed's generated cases over RapidCheck's two passes.
/// The first pass holds back a failure that is quiet (off by less than
/// kLoudRatio times its bound) and keeps looking for a loud one among the
/// remaining cases; a loud failure is shrunk at once. When only quiet
/// failures were found, the second pass (`replay`) replays the same cases
/// without checking them up to the loudest quiet one, and shrinks that.
struct SeedRun {
  const Property& p;
  Subject& s;
  const RunConfig& cfg;
  Verdict& v;
  std::optional<Case> last_case{};
  std::optional<Failure> last_failure{};
  bool failed_once = false, replay = false;
  double loud = 0;  // the error/bound ratio a shrunk failure must keep
  int ran = 0, not_judged = 0, index = 0;
  int quiet_index = -1;
  double quiet_ratio = 0;
  double shrink_work = 0;  // shrink_cost of the candidates checked while shrinking
  Judging judging{};      // the first pass's cases judged and left
};

/// RapidCheck's property body: counts and checks one generated case c,
/// holding back a quiet failure, failing the RapidCheck run on a loud one
/// (or, while shrinking, on one that stays loud).
void check_generated_case(SeedRun& run, const Case& c) {
  const int this_index = run.index++;
  // A case outside the declared shapes (a property that derives its own
  // shapes, as scale_off's d_k) is not sent.
  const bool outside = !run.cfg.shapes.admits(c);
  if (!run.failed_once && !run.replay) {
    ++run.ran;
    if (outside) ++run.not_judged;
    for (const auto& t : c.tags) ++run.v.regimes[t];
  }
  if (outside) return;
  if (run.replay && !run.failed_once && this_index != run.quiet_index) return;  // judged in the first pass
  if (run.failed_once) {
    // A bounded shrink: past kShrinkWork, the remaining candidates are not
    // run and the counterexample is the last failing one.
    if (run.shrink_work > kShrinkWork) return;
    run.shrink_work += shrink_cost(c);
  }
  detail::clear_not_judged();
  detail::clear_left_mark();
  std::optional<Failure> f = run.p.check(run.s, c);
  if (!f && detail::not_judged() && !run.failed_once && !run.replay) ++run.not_judged;
  else if (!f && !run.failed_once && !run.replay) count_judging(run.v, run.judging, c);
  // While shrinking, a case that fails only by a little is not the same
  // failure: a loud one stays loud (failure_ratio, kLoudRatio).
  if (f && run.failed_once && failure_ratio(*f) < run.loud) f.reset();
  if (f && !run.failed_once && !run.replay && run.cfg.shrink && failure_ratio(*f) < kLoudRatio) {
    if (run.quiet_index < 0 || failure_ratio(*f) > run.quiet_ratio) {
      run.quiet_index = this_index;
      run.quiet_ratio = failure_ratio(*f);
    }
    return;  // held back: a louder failure may come
  }
  if (f) {
    if (!run.failed_once) run.loud = std::min(failure_ratio(*f), kLoudRatio);
    run.failed_once = true;
    run.last_case = c;
    run.last_failure = std::move(f);
    RC_FAIL(run.last_failure->summary);
  }
}

/// Runs the seed's generated cases through RapidCheck (check_generated_case),
/// and a second time (SeedRun::replay) when only quiet failures were found.
rc::detail::TestResult run_generated_cases(SeedRun& run, const rc::Gen<Case>& gen) {
  rc::detail::TestParams params;
  params.seed = run.cfg.seed;
  params.maxSuccess = run.cfg.cases;
  params.maxSize = run.cfg.max_size;
  params.disableShrinking = !run.cfg.shrink;
  rc::detail::TestMetadata metadata;
  metadata.id = run.p.id;
  metadata.description = run.p.title;
  // A silent listener: the verdict is ours to report, and RapidCheck's own
  // end-of-process "reproduce" banner would only confuse a student.
  rc::detail::TestListenerAdapter listener;
  auto property = [&] { check_generated_case(run, *gen); };
  rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener);
  if (result.template is<rc::detail::SuccessResult>() && run.quiet_index >= 0) {
    run.replay = true;
    run.index = 0;
    result = rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener);
  }
  return result;
}

/// After the random cases passed: the fixed edge cases, on every seed
/// (edge_cases.hpp), so the regimes real bugs need are reached even when the
/// random cases missed them. A failure there is the counterexample as it is
/// (already one row of three keys, its values the ones that matter).
void run_edge_cases(const Property& p, Subject& s, const RunConfig& cfg, const GenConfig& gc,
                    Verdict& v, Judging& judging) {
  v.status = VerdictStatus::passed;
  for (const Case& c : detail::edge_cases(p, gc)) {
    if (!cfg.shapes.admits(c)) continue;  // a shape the subject does not take
    for (const auto& t : c.tags) ++v.regimes[t];
    EdgeCaseResult r = check_edge_case(p, s, c);
    if (r.failure) {
      v.status = VerdictStatus::failed;
      v.counterexample = c;
      v.failure = std::move(r.failure);
      return;
    }
    count_judging(v, judging, c);
  }
  fail_if_nothing_judged(v, judging);
}

/// The verdict of a generated run from RapidCheck's result: a pass (then the
/// edge cases), the recorded shrunk failure (a quiet one replaced by a
/// louder edge case), or RapidCheck's own trouble.
void decide_generated(const rc::detail::TestResult& result, SeedRun& run, const GenConfig& gc) {
  Verdict& v = run.v;
  if (result.template is<rc::detail::SuccessResult>()) {
    // A random failure, which comes first, keeps its shrunk counterexample.
    run_edge_cases(run.p, run.s, run.cfg, gc, v, run.judging);
  } else if (result.template is<rc::detail::FailureResult>()) {
    v.status = run.last_failure ? VerdictStatus::failed : VerdictStatus::error;
    v.counterexample = run.last_case;
    v.failure = run.last_failure;
    v.cases = result.template get<rc::detail::FailureResult>().numSuccess;
    if (!run.last_failure)  // an exception escaped the check itself
      v.error = result.template get<rc::detail::FailureResult>().description;
    else if (failure_ratio(*run.last_failure) < kLoudRatio)
      show_loudest_edge_case(run.p, run.s, run.cfg, gc, v);
  } else if (result.template is<rc::detail::GaveUpResult>()) {
    v.status = VerdictStatus::error;
    v.error = "gave up: " + result.template get<rc::detail::GaveUpResult>().description;
  } else {
    v.status = VerdictStatus::error;
    v.error = "RapidCheck error: " + result.template get<rc::detail::Error>().description;
  }
}

}  // namespace

Verdict run_property(const Property& p, Subject& s, const RunConfig& cfg) {
  load_rapidcheck_configuration_quietly();
  Verdict v = blank_verdict(p, s, cfg);
  if (auto not_run = not_applicable(p, s, v)) return *not_run;
  if (!p.fixed_cases.empty()) return run_fixed_cases(p, s, cfg, std::move(v));
  const GenConfig gc{p.op, s.precision(), cfg.shapes};
  const rc::Gen<Case> gen = p.generator(gc);
  SeedRun run{p, s, cfg, v};
  const detail::ShapesInForce shapes(cfg.shapes);
  const rc::detail::TestResult result = run_generated_cases(run, gen);
  v.cases = run.ran;
  if (result.template is<rc::detail::SuccessResult>() && run.ran > 0 && run.not_judged == run.ran) {
    v.status = VerdictStatus::skipped;
    v.error = "skipped: none of its cases fits the shapes the subject takes (" + cfg.shapes.describe() + ")";
    return v;
  }
  decide_generated(result, run, gc);
  return with_shown_case(v);
}

}  // namespace attn::prop
