#pragma once
// One student's upload graded as a whole: Gradescope's
// /autograder/submission, a PrairieLearn /grade/student (`attnlab grade
// FOLDER` with --results-json, --prairielearn-json or --report, no --out).
//
// Every entry that the class folder's rules choose for the upload
// (class_folder.hpp collect_upload: a file of F2 and F3 is two entries, an
// F2 file and an F3 file are two, "attempts": "best" keeps every attempt)
// is graded as the exercise whole (GradeOptions::whole_exercise), and the
// upload's reports hold every exercise, each out of its fixed maximum as
// the class gradebook's column has it (gradebook.hpp class_columns: the
// fixed exercise, else the configuration's "exercises", else the exercises
// uploaded), so that every student of an assignment has one maximum. An
// exercise of those columns with nothing uploaded is "no submission", 0 of
// its maximum; of several attempts at one exercise the best counts, as in
// the gradebook. results.json and PrairieLearn's results:
// report/results_json.hpp and report/prairielearn_json.hpp (UploadPart);
// the JUnit file has one <testsuite> per entry; the text report is every
// entry's, in order.

#include <ostream>
#include <string>
#include <vector>

#include "grading/batch.hpp"

namespace attn::grader {

/// Grades `inputs` (collect_upload's entries of one upload; not empty)
/// with `base` (each entry's file, name, exercise, answers, helpers and
/// folder set from its BatchInput), prints each entry's choice and text
/// report on `text`, and writes `files` whole once every entry is graded
/// (one that cannot be written is said on stderr). `fixed`: the exercise
/// fixed by --exercise or the configuration (empty: none). Returns the
/// exit status: 2 if an entry could not be graded (usage or
/// infrastructure error), else 1 if one failed, was not gradable, or an
/// exercise of the columns was not uploaded, else 0. Does not throw.
int grade_upload(const std::vector<BatchInput>& inputs, const GradeOptions& base,
                 const std::string& fixed, const ReportFiles& files, std::ostream& text);

}  // namespace attn::grader
