#pragma once
// Signed gradebook rows: what lets `attnlab merge` tell a shard a grader
// wrote from one edited afterwards (shard_merge.hpp).
//
// Each row of summary.json's "submissions" carries "report_sha256", the
// SHA-256 (FIPS 180-4) of each of its report files as the grader wrote
// them (students/<stem>.txt, .results.json, .junit.xml), and, when the run
// had a signing key (the teacher configuration's "signing_key",
// teacher_config.hpp), "signature": HMAC-SHA256 (RFC 2104) keyed by it
// over the row as summary.json writes it, digests included, without the
// signature. Whoever edits a row, its points or score, its settings hash,
// or one of its reports without the key cannot make a signature that
// holds. A signature says a run holding the key wrote the row; it does not
// say the row is that student's latest grading.

#include <filesystem>
#include <string>
#include <vector>

#include "grading/batch.hpp"

namespace attn::grader {

/// The report files of `row`, relative to the output folder: its text
/// report (SummaryRow::report, "students/<stem>.txt") and the
/// .results.json and .junit.xml beside it.
std::vector<std::string> report_files(const SummaryRow& row);

/// Sets row.report_sha256 to the digests of those of report_files(row)
/// that exist in `out_dir` (read as they are now: call it once the reports
/// are written), in name order. Throws std::runtime_error if one exists but cannot be read.
void record_report_digests(SummaryRow& row, const std::filesystem::path& out_dir);

/// HMAC-SHA256 (RFC 2104, FIPS 180-4) of `message` keyed by `key`, as 64
/// lower-case hex digits (OpenSSL's HMAC). Throws std::runtime_error if
/// OpenSSL fails.
std::string hmac_sha256_hex(const std::string& key, const std::string& message);

/// The signature of `row` under `key`: 64 hex digits of HMAC-SHA256 over
/// "attnlab-row/1\n" and the row's summary.json text without "signature".
/// Throws std::runtime_error if OpenSSL fails.
std::string row_signature(const SummaryRow& row, const std::string& key);

/// True when row.signature is row_signature(row, key) (compared in
/// constant time, CRYPTO_memcmp).
bool signature_holds(const SummaryRow& row, const std::string& key);

}  // namespace attn::grader
