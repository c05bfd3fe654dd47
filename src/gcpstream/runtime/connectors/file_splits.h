#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_SPLITS_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_SPLITS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// Which files a file source reads. Set exactly one of `paths` and
// `directory`.
struct FileSourceOptions {
  // These files, in this order.
  std::vector<std::string> paths;
  // Or every regular file directly in this directory (not recursive) whose
  // name ends with `suffix` (e.g. ".jsonl"; empty: any), in name order.
  // Names starting with '.' are skipped: they are hidden or in progress,
  // like the file sink's staging files.
  std::string directory;
  std::string suffix;
  // The most lines one PollNext() reads, so the task serves its mailbox and
  // checkpoints in between.
  int max_lines_per_poll = 1000;
  // max-line-bytes: a longer line is never held in memory; the file source
  // fails on it, the json-lines source applies its malformed-line policy.
  int64_t max_line_bytes = int64_t{16} << 20;
};

// The error for a line longer than `options.max_line_bytes`.
absl::Status OversizedLineError(int64_t bytes,
                                const FileSourceOptions& options);

// InvalidArgument naming `source_name` when the options are unusable.
absl::Status CheckFileSourceOptions(const FileSourceOptions& options,
                                    absl::string_view source_name);

// One file and the byte offset of its next unread line. As a Split the id is
// the path and the state the offset in decimal.
struct FileSplit {
  std::string path;
  int64_t offset = 0;

  Split ToSplit() const;
};

// One split per file at offset 0, listed when called: a directory is read as
// it is at the first start; restores read the files the checkpoint names.
absl::StatusOr<std::vector<Split>> PlanFileSplits(
    const FileSourceOptions& options, absl::string_view source_name);

// Parses every split of a reader; the first bad one is the error.
absl::StatusOr<std::vector<FileSplit>> ParseFileSplits(
    const std::vector<Split>& splits, absl::string_view source_name);

absl::StatusOr<FileSplit> ParseFileSplit(const Split& split,
                                         absl::string_view source_name);

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_SPLITS_H_
