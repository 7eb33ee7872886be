// Precompiled interface headers: made once, stamped with what they were made from.
#include "submission/precompiled_header.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <system_error>
#include <vector>

#include <unistd.h>

#include <boost/interprocess/sync/file_lock.hpp>
#include <boost/interprocess/sync/scoped_lock.hpp>

#include "sandbox/exit_status.hpp"
#include "sandbox/run_command.hpp"

namespace attn::grader {

namespace fs = std::filesystem;

namespace {

/// "<size> <mtime in ns> <path>" of `p`, or "" if it cannot be read.
std::string pch_stamp_line(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec) return "";
  const auto time = fs::last_write_time(p, ec);
  if (ec) return "";
  return std::to_string(size) + " " + std::to_string(time.time_since_epoch().count()) + " " + p.string();
}

/// The files a make-style dependency list (g++ -MD) names after its target
/// (a space in a path is written "\ ").
std::vector<fs::path> pch_dependencies(const fs::path& deps_file) {
  std::ifstream in(deps_file);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str(), word;
  for (std::size_t at = all.find("\\\n"); at != std::string::npos; at = all.find("\\\n", at))
    all.replace(at, 2, " ");
  const char kept_space = '\x1f';
  for (std::size_t at = all.find("\\ "); at != std::string::npos; at = all.find("\\ ", at))
    all.replace(at, 2, std::string(1, kept_space));
  std::vector<fs::path> out;
  std::istringstream words(all);
  bool target = true;
  while (words >> word) {
    if (target) {
      target = word.back() != ':';
      continue;
    }
    std::replace(word.begin(), word.end(), kept_space, ' ');
    out.emplace_back(word);
  }
  return out;
}

/// Whether every file of the stamp `stamp_file` is as it was when stamped.
bool pch_stamp_holds(const fs::path& stamp_file) {
  std::ifstream in(stamp_file);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    const auto second = line.find(' ', line.find(' ') + 1);
    if (second == std::string::npos || pch_stamp_line(line.substr(second + 1)) != line) return false;
    ++lines;
  }
  return lines > 0;
}

/// Compiles `header` into `gch` (and its stamp beside it) as a student's
/// file is compiled, but from the checkout's folders; "" on success, else why not.
std::string make_pch(const CppToolchain& t, const fs::path& header, const fs::path& gch) {
  const std::string tmp = gch.string() + ".tmp" + std::to_string(::getpid());
  Command c;
  c.argv = {t.compiler};
  c.argv.insert(c.argv.end(), t.flags.begin(), t.flags.end());
  c.argv.push_back("-I" + t.interface_dir);
  for (const auto& dir : t.other_interface_dirs) c.argv.push_back("-I" + dir);
  // Eigen as a system folder: the .gch then marks its lines as a system
  // header's, so warnings in its templates instantiated by the student's
  // code stay silent as without it (Eigen's own pragmas that silence them
  // do not reach past a .gch).
  for (const auto& dir : t.include_dirs) c.argv.insert(c.argv.end(), {"-isystem", dir});
  c.argv.insert(c.argv.end(), {"-x", "c++-header", header.string(), "-o", tmp, "-MD", "-MF", tmp + ".d"});
  c.merge_stderr = true;
  c.limits.cpu_seconds = 0;                         // the timeout bounds it
  c.limits.file_size_bytes = std::uint64_t{1} << 30;  // a .gch of Eigen is about 100 MB
  const CommandResult r = run_command(c, t.timeout);
  std::error_code ec;
  if (!r.succeeded()) {
    fs::remove(tmp, ec);
    fs::remove(tmp + ".d", ec);
    return "the compiler " + (r.started ? describe_exit(r.wait_status) : r.output) + " making it";
  }
  std::ofstream stamp(tmp + ".stamp");
  for (const fs::path& dep : pch_dependencies(tmp + ".d")) stamp << pch_stamp_line(dep) << "\n";
  stamp.close();
  fs::remove(tmp + ".d", ec);
  fs::rename(tmp, gch, ec);
  if (!ec) fs::rename(tmp + ".stamp", gch.string() + ".stamp", ec);
  if (ec) {
    fs::remove(tmp, ec);
    fs::remove(tmp + ".stamp", ec);
    return "cannot store it in " + gch.parent_path().string();
  }
  return "";
}

/// <cache dir>/pch/<key>: the key hashes everything a .gch depends on but
/// the headers Eigen brings (those are stamped).
fs::path pch_store(const CppToolchain& t, const std::string& compiler_version) {
  std::string key = t.compiler + "\n" + compiler_version + "\n" + t.interface_dir + "\n";
  for (const auto& f : t.flags) key += f + "\n";
  for (const auto& d : t.other_interface_dirs) key += d + "\n";
  for (const auto& d : t.include_dirs) key += d + "\n";
  for (const auto& h : t.interface_headers) {
    std::ifstream in(h, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    key += h + "\n" + bytes.str() + "\n";
  }
  std::ostringstream hex;
  hex << std::hex << std::hash<std::string>{}(key);
  return t.cache.dir / "pch" / hex.str();
}

}  // namespace

PrecompiledHeaders precompiled_headers(const CppToolchain& t, const std::string& compiler_version,
                                       const fs::path& staged_dir) {
  if (!t.cache.on()) return {false, "none (the compiler cache is off)"};
  const fs::path own = fs::path(t.interface_dir).lexically_normal();
  const fs::path folder = pch_store(t, compiler_version);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return {false, "none (cannot make " + folder.string() + ": " + ec.message() + ")"};
  bool made = false;
  for (const auto& h : t.interface_headers) {
    const fs::path header = fs::path(h).lexically_normal();
    if (header.parent_path() != own) continue;
    const fs::path gch = folder / (header.filename().string() + ".gch");
    const auto ready = [&] { return fs::exists(gch, ec) && pch_stamp_holds(gch.string() + ".stamp"); };
    if (!ready()) {
      // One grader makes it while the others (--jobs, other attnlab runs) wait for it.
      const fs::path lock_file = gch.string() + ".lock";
      std::ofstream{lock_file, std::ios::app};
      try {
        boost::interprocess::file_lock lock(lock_file.c_str());
        boost::interprocess::scoped_lock<boost::interprocess::file_lock> held(lock);
        if (!ready()) {
          if (const std::string why = make_pch(t, header, gch); !why.empty()) return {false, "none (" + why + ")"};
          made = true;
        }
      } catch (const boost::interprocess::interprocess_exception& e) {
        return {false, "none (cannot lock " + lock_file.string() + ": " + e.what() + ")"};
      }
    }
    // A copy that failed half way is removed: GCC must never find a broken one.
    const fs::path copy = staged_dir / gch.filename();
    if (!fs::copy_file(gch, copy, fs::copy_options::overwrite_existing, ec) || ec) {
      fs::remove(copy, ec);
      return {false, "none (cannot copy it to the build folder)"};
    }
  }
  return {true, made ? "made" : "ready"};
}

}  // namespace attn::grader
