// The diagnosis in words (diagnosis_text.hpp).
#include "diagnosis/diagnosis_text.hpp"
#include "exercises/listed.hpp"

#include <cstdio>
#include <sstream>

namespace attn::grader {
namespace {

using attn::mis::Diagnosis;

std::string params_text(const attn::mis::Fit& f) {
  std::string s;
  for (const auto& p : f.params) s += (s.empty() ? " (" : ", ") + p.said();
  return s.empty() ? s : s + ")";
}

}  // namespace

std::string wrap_paragraph(const std::string& text, const std::string& indent, std::size_t width) {
  std::istringstream words(text);
  std::string word, line, out;
  const std::string continuation = indent + "      ";
  bool first = true;
  while (words >> word) {
    const std::string& lead = first ? indent : continuation;
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > width) {
      out += lead + line + "\n";
      line.clear();
      first = false;
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += (first ? indent : continuation) + line + "\n";
  return out;
}

std::string diagnosis_cost(const FailureDiagnosis& d) {
  if (d.status != FailureDiagnosis::Status::diagnosed) return "";
  if (d.cached) return "reused from " + d.cached_from + " (same counterexample, no case sent)";
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", d.engine.seconds);
  return std::to_string(d.engine.cases_sent) + " extra cases, " +
         std::to_string(d.engine.entries_sent) + " entries, " + secs + " s";
}

std::string diagnosis_summary(const FailureDiagnosis& d) {
  switch (d.status) {
    case FailureDiagnosis::Status::not_applicable: return "";
    case FailureDiagnosis::Status::not_run: return "diagnosis not run: " + d.why_not;
    case FailureDiagnosis::Status::diagnosed: break;
  }
  const Diagnosis& e = d.engine;
  switch (e.verdict) {
    case Diagnosis::Verdict::misconception:
      return "misconception " + e.fits.front().key + params_text(e.fits.front());
    case Diagnosis::Verdict::several: {
      std::string s = "several known mistakes fit:";
      for (std::size_t i = 0; i < e.fits.size(); ++i)
        s += (i ? ", " : " ") + e.fits[i].key + params_text(e.fits[i]);
      return s;
    }
    case Diagnosis::Verdict::combined:
    {
      std::vector<std::string> named;
      for (const auto& f : e.fits) named.push_back(f.key + params_text(f));
      return (e.fits.size() == 3 ? "three mistakes together: " : "two mistakes together: ") + listed(named);
    }
    case Diagnosis::Verdict::no_known_mistake:
      return "no known mistake reproduces these answers";
    case Diagnosis::Verdict::consistent:
      return e.fully_forbidden_rows_left_out.empty()
                 ? "no known mistake: on the diagnosis battery the answers agree with the definition"
                 : "no known mistake: apart from the rows with every key forbidden, the answers "
                   "agree with the definition on the diagnosis battery";
    case Diagnosis::Verdict::fault:
      return "fault, not a misconception" +
             (e.error_type.empty() ? std::string() : " (" + e.error_type + ")");
    case Diagnosis::Verdict::raises_on_every_call:
      return "raises on every case of the diagnosis" +
             (e.error_type.empty() ? std::string() : " (" + e.error_type + ")") +
             ", not a misconception";
  }
  return "";
}

std::string format_diagnosis(const FailureDiagnosis& d, const std::string& indent,
                             std::size_t width) {
  const std::string summary = diagnosis_summary(d);
  if (summary.empty()) return "";
  if (d.status != FailureDiagnosis::Status::diagnosed)
    return wrap_paragraph("diagnosis: " + summary + ".", indent, width);
  if (!d.same_as_property.empty())
    return wrap_paragraph("diagnosis: " + summary + ", the same as under " + d.same_as_property +
                              " above (explained there).",
                          indent, width);
  std::string out = wrap_paragraph("diagnosis: " + summary + ". " + d.engine.explanation, indent, width);
  out += wrap_paragraph("(diagnosis cost: " + diagnosis_cost(d) + ")", indent, width);
  return out;
}

}  // namespace attn::grader
