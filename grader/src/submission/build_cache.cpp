// The cache of built C++ submissions (see build_cache.hpp).
#include "submission/build_cache.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <vector>

namespace attn::grader {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'a', 't', 't', 'n', 'l', 'a', 'b', '1'};
constexpr std::size_t kHeader = 8 + 8 + 32;
constexpr std::uintmax_t kStudentFolderBytes = std::uintmax_t{2} << 20;

std::optional<std::string> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

std::array<unsigned char, 32> sha256(std::string_view bytes) {
  std::array<unsigned char, 32> md{};
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md.data(), &n, EVP_sha256(), nullptr) != 1 || n != 32)
    throw std::runtime_error("OpenSSL's SHA-256 failed");
  return md;
}

/// <cache>/cpp, made 0700 if missing; nullopt unless it is a folder (not a
/// link) of this user's that no one else may write.
std::optional<fs::path> entries_dir(const fs::path& cache_dir) {
  if (cache_dir.empty()) return std::nullopt;
  const fs::path dir = cache_dir / "cpp";
  std::error_code ec;
  if (fs::create_directories(dir, ec)) {
    ::chmod(cache_dir.c_str(), 0700);
    ::chmod(dir.c_str(), 0700);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 022) != 0)
    return std::nullopt;
  return dir;
}

/// Removes the least recently used entries (by modification time, which a
/// hit renews) until the entries hold at most `max_bytes`.
void trim(const fs::path& dir, std::uint64_t max_bytes) {
  struct Entry {
    fs::file_time_type used;
    std::uintmax_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    // Another grader's entry being written is not counted or removed.
    if (!e.is_regular_file(ec) || e.path().filename().string().rfind(".tmp-", 0) == 0) continue;
    const std::uintmax_t size = e.file_size(ec);
    if (ec) continue;
    entries.push_back({e.last_write_time(ec), size, e.path()});
    total += size;
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const auto& e : entries) {
    if (total <= max_bytes) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

}  // namespace

fs::path default_build_cache_dir() {
  if (const char* off = std::getenv("ATTNLAB_NO_CACHE"); off && *off && std::string(off) != "0") return {};
  if (const char* dir = std::getenv("ATTNLAB_CACHE_DIR"); dir && *dir) return fs::path(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "attnlab";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "attnlab";
  return {};
}

struct BuildKey::State {
  EVP_MD_CTX* ctx = nullptr;
};

BuildKey::BuildKey() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (!state_->ctx || EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL's SHA-256 failed");
}

BuildKey::~BuildKey() { EVP_MD_CTX_free(state_->ctx); }

void BuildKey::add(std::string_view part) {
  const std::string length = std::to_string(part.size()) + ":";
  if (EVP_DigestUpdate(state_->ctx, length.data(), length.size()) != 1 ||
      EVP_DigestUpdate(state_->ctx, part.data(), part.size()) != 1)
    throw std::runtime_error("OpenSSL's SHA-256 failed");
}

bool BuildKey::add_file_bytes(const fs::path& file) {
  const auto bytes = read_bytes(file);
  if (!bytes) return false;
  add(*bytes);
  return true;
}

bool BuildKey::add_folder(const fs::path& dir) {
  std::vector<fs::path> files;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) {
      files.push_back(it->path());
      total += it->file_size(ec);
    }
  if (ec) return false;
  std::sort(files.begin(), files.end());
  const bool by_bytes = total <= kStudentFolderBytes;
  for (const auto& f : files) {
    add(fs::relative(f, dir, ec).string());
    if (by_bytes) {
      if (!add_file_bytes(f)) return false;
      continue;
    }
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) return false;
    add(std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
        std::to_string(st.st_mtim.tv_nsec));
  }
  return true;
}

std::string BuildKey::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(state_->ctx, md, &n) != 1) throw std::runtime_error("OpenSSL's SHA-256 failed");
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned int k = 0; k < n; ++k) {
    out += digits[md[k] >> 4];
    out += digits[md[k] & 15];
  }
  return out;
}

bool fetch_cached_build(const fs::path& cache_dir, const std::string& key, const fs::path& dest) {
  try {
    const auto dir = entries_dir(cache_dir);
    if (!dir) return false;
    const fs::path entry = *dir / key;
    const auto bytes = read_bytes(entry);
    if (!bytes) return false;
    std::uint64_t length = 0;
    const bool whole = bytes->size() >= kHeader && std::memcmp(bytes->data(), kMagic, 8) == 0 &&
                       (std::memcpy(&length, bytes->data() + 8, 8), bytes->size() - kHeader == length) &&
                       std::memcmp(bytes->data() + 16, sha256(std::string_view(*bytes).substr(kHeader)).data(),
                                   32) == 0;
    std::error_code ec;
    if (!whole) {
      fs::remove(entry, ec);
      return false;
    }
    {
      std::ofstream out(dest, std::ios::binary | std::ios::trunc);
      out.write(bytes->data() + kHeader, static_cast<std::streamsize>(length));
      if (!out.flush()) return false;
    }
    fs::permissions(dest, fs::perms(0755), fs::perm_options::replace);
    fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);  // recently used
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool store_cached_build(const fs::path& cache_dir, const std::string& key, const fs::path& executable,
                        std::uint64_t max_bytes) {
  try {
    const auto dir = entries_dir(cache_dir);
    const auto body = read_bytes(executable);
    if (!dir || !body) return false;
    std::string entry(kMagic, 8);
    const std::uint64_t length = body->size();
    entry.append(reinterpret_cast<const char*>(&length), 8);
    const auto md = sha256(*body);
    entry.append(reinterpret_cast<const char*>(md.data()), md.size());
    entry += *body;
    std::string temp = (*dir / (".tmp-" + key + "-XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) return false;
    std::size_t done = 0;
    while (done < entry.size()) {
      const ssize_t n = ::write(fd, entry.data() + done, entry.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    const bool written = ::close(fd) == 0 && done == entry.size();
    if (!written || ::rename(temp.c_str(), (*dir / key).c_str()) != 0) {
      ::unlink(temp.c_str());
      return false;
    }
    trim(*dir, max_bytes);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace attn::grader
