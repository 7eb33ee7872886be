#include "attn/grader/mutants.hpp"

#include <algorithm>
#include <fstream>
#include <future>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "attn/grader/exercise.hpp"

namespace attn::grader {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// The model solutions (solutions/FN/*.py, *.cpp) of every exercise the
/// catalogue covers: they must stay clean under the same properties.
std::vector<std::pair<std::string, std::filesystem::path>> solutions_for(
    const std::vector<MutantInfo>& list, const std::filesystem::path& source_dir) {
  std::set<std::string> exercises;
  for (const auto& m : list) exercises.insert(m.exercise);
  std::vector<std::pair<std::string, std::filesystem::path>> out;
  for (const auto& ex : exercises) {
    const auto dir = source_dir / "solutions" / ex;
    if (!std::filesystem::is_directory(dir)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".py" || ext == ".cpp")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.push_back({ex, f});
  }
  return out;
}

struct Graded {
  GradeResult result;
  std::string report;
};

Graded grade_one(GradeOptions options, const std::filesystem::path& file, const std::string& exercise) {
  options.file = file;
  options.exercise = exercise;
  std::ostringstream report;
  Graded g{grade_file(options, report), report.str()};
  return g;
}

/// Shape of a verdict's counterexample as "T_qxT_vxd_kxd_v" (or "T_qxT_v").
std::string case_size(const attn::prop::Verdict& v, int& largest_dim) {
  if (!v.counterexample) return "-";
  const auto& c = *v.counterexample;
  std::ostringstream os;
  if (attn::prop::takes_qkv(c.op)) {
    os << c.Q.rows() << "x" << c.K.rows() << "x" << c.Q.cols() << "x" << c.V.cols();
    largest_dim = int(std::max({c.Q.rows(), c.K.rows(), c.Q.cols(), c.V.cols()}));
  } else {
    os << c.S.rows() << "x" << c.S.cols();
    largest_dim = int(std::max(c.S.rows(), c.S.cols()));
  }
  return os.str();
}

}  // namespace

MutantInfo read_mutant_info(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read mutant " + file.string());
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line)) {
    std::string body = trim(line);
    if (body.rfind("#", 0) == 0)
      body = body.substr(1);
    else if (body.rfind("//", 0) == 0)
      body = body.substr(2);
    else
      break;  // the header ends at the first line that is not a comment
    const auto colon = body.find(':');
    if (colon != std::string::npos) fields[trim(body.substr(0, colon))] = trim(body.substr(colon + 1));
  }
  MutantInfo m;
  m.file = file;
  auto need = [&](const char* key) {
    auto it = fields.find(key);
    if (it == fields.end() || it->second.empty())
      throw std::runtime_error("mutant " + file.string() + ": the header has no '" + key + ":' line");
    return it->second;
  };
  m.name = need("mutant");
  m.exercise = need("exercise");
  m.misconception = need("misconception");
  m.violates = need("violates");
  m.caught_by = need("caught by");
  return m;
}

std::vector<MutantInfo> mutant_catalogue(const std::filesystem::path& dir) {
  std::vector<MutantInfo> list;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".py" || ext == ".cpp"))
      list.push_back(read_mutant_info(entry.path()));
  }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return list;
}

int run_mutants(const MutantsOptions& options, std::ostream& out) {
  const auto catalogue = mutant_catalogue(options.source_dir / "exercises" / "mutants");
  const auto solutions = solutions_for(catalogue, options.source_dir);

  // Grade everything, `jobs` submissions at a time.
  struct Job {
    std::filesystem::path file;
    std::string exercise;
  };
  std::vector<Job> jobs;
  for (const auto& m : catalogue) jobs.push_back({m.file, m.exercise});
  for (const auto& [ex, path] : solutions) jobs.push_back({path, ex});
  std::vector<Graded> graded(jobs.size());
  const std::size_t width = std::size_t(std::max(1, options.jobs));
  for (std::size_t start = 0; start < jobs.size(); start += width) {
    std::vector<std::future<Graded>> running;
    for (std::size_t k = start; k < std::min(jobs.size(), start + width); ++k)
      running.push_back(std::async(std::launch::async, grade_one, options.grade, jobs[k].file, jobs[k].exercise));
    for (std::size_t k = 0; k < running.size(); ++k) graded[start + k] = running[k].get();
  }

  // The property columns: every property id in report order, across exercises.
  std::vector<std::string> columns;
  for (const auto& g : graded)
    for (const auto& v : g.result.verdicts)
      if (std::find(columns.begin(), columns.end(), v.property_id) == columns.end())
        columns.push_back(v.property_id);

  int problems = 0, infrastructure = 0;
  out << "Kill matrix (X = the property caught the mutant, . = it passed, - = not graded):\n\n";
  for (std::size_t c = 0; c < columns.size(); ++c) out << "  " << std::string(c, ' ') << "+- " << c + 1 << " " << columns[c] << "\n";
  out << "\n";
  std::vector<int> sizes;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const bool is_mutant = k < catalogue.size();
    const Graded& g = graded[k];
    std::string label = is_mutant ? catalogue[k].exercise + " " + catalogue[k].name
                                  : jobs[k].exercise + " solution " + jobs[k].file.filename().string();
    out << "  " << std::left << std::setw(40) << label.substr(0, 40) << std::right << " ";
    for (const auto& id : columns) {
      auto it = std::find_if(g.result.verdicts.begin(), g.result.verdicts.end(),
                             [&](const auto& v) { return v.property_id == id; });
      out << (it == g.result.verdicts.end() || it->skipped ? '-' : it->passed ? '.' : 'X');
    }
    if (g.result.status != GradeResult::Status::graded) {
      out << "  not graded: " << g.result.message.substr(0, g.result.message.find('\n'));
      if (g.result.status != GradeResult::Status::not_gradable) ++infrastructure;
      ++problems;
    } else if (is_mutant) {
      const auto first = std::find_if(g.result.verdicts.begin(), g.result.verdicts.end(),
                                      [](const auto& v) { return !v.passed && !v.skipped; });
      if (first == g.result.verdicts.end()) {
        out << "  NOT CAUGHT";
        ++problems;
      } else {
        int largest = 0;
        out << "  first: " << first->property_id << ", counterexample " << case_size(*first, largest);
        if (first->counterexample && first->generated) sizes.push_back(largest);
        if (!g.result.failed_property(catalogue[k].caught_by)) {
          out << "  (expected " << catalogue[k].caught_by << " to catch it: it did not)";
          ++problems;
        }
      }
    } else if (g.result.failed > 0) {
      out << "  SOLUTION FAILED";
      ++problems;
    } else {
      out << "  clean";
    }
    out << "\n";
  }

  out << "\nMisconceptions:\n";
  for (const auto& m : catalogue)
    out << "  " << m.exercise << " " << m.name << ": " << m.misconception << " [" << m.violates << "]\n";

  if (!sizes.empty()) {
    std::sort(sizes.begin(), sizes.end());
    std::map<int, int> histogram;
    for (int s : sizes) ++histogram[s];
    out << "\nShrunk counterexample sizes (largest of T_q, T_v, d_k, d_v), " << sizes.size()
        << " generated counterexamples, median " << sizes[sizes.size() / 2] << ":\n";
    for (const auto& [s, n] : histogram) out << "  " << s << ": " << std::string(std::size_t(n), '#') << " " << n << "\n";
  }
  out << "\n" << catalogue.size() << " mutants, " << solutions.size() << " solutions, seed "
      << options.grade.run.seed << ": " << (problems == 0 ? "every mutant caught, every solution clean" : std::to_string(problems) + " problem(s)") << "\n";
  if (infrastructure > 0) return 2;
  return problems == 0 ? 0 : 1;
}

}  // namespace attn::grader
