// Signed gradebook rows (see row_signature.hpp).
#include "grading/row_signature.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "grading/gradebook.hpp"
#include "grading/student_names.hpp"

namespace attn::grader {

std::vector<std::string> report_files(const SummaryRow& row) {
  const std::string& text = row.report;
  const std::string stem =
      text.size() > 4 && text.compare(text.size() - 4, 4, ".txt") == 0 ? text.substr(0, text.size() - 4) : text;
  return {stem + ".txt", stem + ".results.json", stem + ".junit.xml"};
}

void record_report_digests(SummaryRow& row, const std::filesystem::path& out_dir) {
  row.report_sha256.clear();
  for (const auto& rel : report_files(row)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(out_dir / rel, ec)) continue;
    std::ifstream in(out_dir / rel, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw std::runtime_error("cannot read the report " + (out_dir / rel).string());
    row.report_sha256.push_back({rel, sha256_hex(text.str())});
  }
  // In name order, as summary.json's object reads back (the signed text is one).
  std::sort(row.report_sha256.begin(), row.report_sha256.end());
}

std::string hmac_sha256_hex(const std::string& key, const std::string& message) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(message.data()), message.size(), md, &n))
    throw std::runtime_error("OpenSSL's HMAC-SHA256 failed");
  return lower_hex(md, n);
}

std::string row_signature(const SummaryRow& row, const std::string& key) {
  nlohmann::ordered_json j = summary_row_json(row);
  j.erase("signature");
  return hmac_sha256_hex(key, "attnlab-row/1\n" + j.dump());
}

namespace {

bool same_hex(const std::string& given, const std::string& want) {
  return given.size() == want.size() && CRYPTO_memcmp(given.data(), want.data(), want.size()) == 0;
}

}  // namespace

bool signature_holds(const SummaryRow& row, const std::string& key) {
  return same_hex(row.signature, row_signature(row, key));
}

std::string new_gradebook_id() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("OpenSSL's RAND_bytes failed");
  return lower_hex(bytes, sizeof bytes);
}

std::string shard_signature(const Gradebook& book, const std::string& key) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& r : book.submissions) rows.push_back(r.signature);
  const nlohmann::ordered_json j{{"id", book.shard.id},
                                 {"ids", book.shard.ids},
                                 {"students", book.shard.students},
                                 {"rows", rows}};
  return hmac_sha256_hex(key, "attnlab-shard/1\n" + j.dump());
}

void sign_shard(Gradebook& book, const std::string& key) {
  book.shard.students = gradebook_students(book);
  book.shard.signature = key.empty() ? std::string() : shard_signature(book, key);
}

bool shard_signature_holds(const Gradebook& book, const std::string& key) {
  return same_hex(book.shard.signature, shard_signature(book, key));
}

}  // namespace attn::grader
