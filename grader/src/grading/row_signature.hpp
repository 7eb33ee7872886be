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
// holds. A row's signature covers the id of the gradebook it was graded
// into (SummaryRow::shard_id), and the gradebook's record (summary.json's
// "shard", gradebook.hpp ShardRecord) is signed too: over its id, the ids
// whose rows it may hold, its full student list and every row's signature
// in order. So a row copied in from another run's gradebook (another
// shard, last year's class) carries an id the record does not list, and a
// row removed, added or replaced by an older grading of the same student
// no longer matches the signed record. What no signature can tell is a
// whole gradebook put back as it was at an earlier write.

#include <filesystem>
#include <string>
#include <vector>

#include "grading/batch.hpp"

namespace attn::grader {

struct Gradebook;

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

/// A new gradebook id: 128 random bits (OpenSSL RAND_bytes) as 32
/// lower-case hex digits. Throws std::runtime_error if OpenSSL has no
/// randomness to give.
std::string new_gradebook_id();

/// The signature of `book`'s record (ShardRecord) under `key`: 64 hex
/// digits of HMAC-SHA256 over "attnlab-shard/1\n" and the JSON text of
/// its id, ids, students and its rows' signatures in row order. Throws
/// std::runtime_error if OpenSSL fails.
std::string shard_signature(const Gradebook& book, const std::string& key);

/// Sets book.shard.students to the students of its rows and, with a key,
/// book.shard.signature to shard_signature (without one, clears it).
void sign_shard(Gradebook& book, const std::string& key);

/// True when book.shard.signature is shard_signature(book, key) (constant time).
bool shard_signature_holds(const Gradebook& book, const std::string& key);

}  // namespace attn::grader
