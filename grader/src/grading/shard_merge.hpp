#pragma once
// `attnlab merge`: joining the gradebooks of several --out folders (the
// shards of --shard K/N) into one, trusting none of them.
//
// With the key the shards were graded with (the teacher configuration's
// "signing_key"), every row must carry a signature that holds under it
// (row_signature.hpp: the row, its points, score, settings hash and its
// reports' SHA-256), so a shard edited after grading is refused, however
// consistently it was edited. Without a key a signed row is refused (its
// signature would go unchecked), and unsigned rows are held only to the
// checks below: a shard forged consistently (rows, reports and
// results.json edited to agree) cannot be told from a real one, which
// `attnlab merge` then says.
//
// Every row of every shard is checked before anything is written:
// - its exercise is one attnlab grades (exercises/exercise.hpp), its items
//   are that exercise's properties (or its answers item), each earned
//   within [0, its maximum], and its score is the sum of what they earned
//   (a row that is not graded scores 0); its maximum is at least the sum
//   of the items' maxima;
// - its report is where the grader writes it (students/<stem>.txt of its
//   own name, student_names.hpp), and a graded row's results.json (a
//   regular file inside the shard, no symlink) gives the same score;
// - a row that records its reports' SHA-256 (row_signature.hpp) has
//   exactly those report files, each with its digest;
// - every row of every shard was graded with the same settings (the
//   settings hash of gradebook.hpp: seed, cases, limits, configuration),
//   which are the settings its summary.json holds, and attnlab version,
//   each exercise has the same items, item maxima and maximum in every
//   shard, and each shard's run completed;
// - no student is in two shards, unless overlaps are allowed (then the
//   last shard given wins);
// - its gradebook's record (gradebook.hpp ShardRecord, row_signature.hpp)
//   lists every row's gradebook id (a row copied in from another run's
//   gradebook is refused) and exactly its rows' students (a removed or
//   added row is refused); with the key, the record's signature holds (a
//   row replaced by an older grading of the same student is refused), and
//   a gradebook without a record (an older attnlab) is refused.
// Then the report files are copied (regular files of one name read
// through no symlink, written whole) and the gradebook is written last,
// its columns made from those settings (gradebook.hpp class_columns), not
// read from a shard; the rows keep their signatures, and the merged
// gradebook gets a record of its own (a new id, its shards' ids, signed
// with the key), so it can be merged again.

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grading/gradebook.hpp"

namespace attn::grader {

/// A shard that cannot be merged; what() names the shard, the row and why.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MergeOptions {
  std::vector<std::filesystem::path> shards;  ///< --out folders of attnlab grade
  std::filesystem::path out;                  ///< the merged folder (may be one of them)
  bool allow_overlap = false;                 ///< a student in several shards: the last wins
  /// The signing key the shards were graded with (row_signature.hpp);
  /// empty: none given (signed rows are then refused, unsigned ones unchecked).
  std::string key;
};

/// Checks the shards as above, copies their reports into options.out and
/// writes the merged gradebook there (under out_folder.hpp's lock).
/// Returns it. Throws MergeError (a shard is refused, or options.out already
/// holds a gradebook that is not one of the shards: it would be replaced),
/// OutFolderError (out cannot be used) or std::runtime_error (a file cannot
/// be read or written). A merge that throws removes the folder out if it
/// made it.
Gradebook merge_shards(const MergeOptions& options);

}  // namespace attn::grader
