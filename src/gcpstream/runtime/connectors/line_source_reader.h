#ifndef GCPSTREAM_RUNTIME_CONNECTORS_LINE_SOURCE_READER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_LINE_SOURCE_READER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/file_splits.h"
#include "gcpstream/runtime/connectors/line_reader.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// Reads the files of its splits one after the other, in assignment order,
// turning each line into a record. Each split's state is the offset of its
// next unread line, advanced only once the line's record was emitted (or the
// line skipped), so a restore resumes exactly at the next line. Files are
// opened one at a time, when reached. A Line is a std::string (a copy) or
// json::PaddedBytes (a view sharing the read block).
template <typename T, typename Line = std::string>
class LineSourceReader final : public SourceReader<T> {
 public:
  // Turns one line (without terminator) into a record, and may move from
  // it; nullopt skips the line. An error fails the job; the reader adds the
  // file and line number.
  using ParseLine = std::function<absl::StatusOr<std::optional<T>>(Line&)>;
  // Decides on a line longer than max_line_bytes (passed over unread): OK
  // skips it, an error fails the job (the reader adds file and line).
  using OversizedLine = std::function<absl::Status(int64_t bytes)>;

  LineSourceReader(std::string source_name, std::vector<FileSplit> splits,
                   int max_lines_per_poll, int64_t max_line_bytes,
                   ParseLine parse, OversizedLine oversized)
      : source_name_(std::move(source_name)),
        splits_(std::move(splits)),
        max_lines_per_poll_(max_lines_per_poll),
        max_line_bytes_(max_line_bytes),
        parse_(std::move(parse)),
        oversized_(std::move(oversized)) {}

  absl::StatusOr<PollResult> PollNext(ReaderOutput<T>& output) override {
    Line line;
    for (int lines = 0;
         current_ < splits_.size() && lines < max_lines_per_poll_;) {
      FileSplit& split = splits_[current_];
      if (!file_.has_value()) {
        absl::StatusOr<LineReader> opened =
            LineReader::Open(split.path, split.offset, max_line_bytes_);
        if (!opened.ok()) return Annotate(opened.status());
        file_.emplace(*std::move(opened));
      }
      absl::StatusOr<bool> more = file_->Next(line);
      if (!more.ok()) return Annotate(more.status());
      if (!*more) {
        file_.reset();
        ++current_;
        continue;
      }
      ++lines;
      if (const int64_t bytes = file_->oversized_line_bytes(); bytes > 0) {
        if (absl::Status skipped = oversized_(bytes); !skipped.ok()) {
          return AnnotateLine(skipped);
        }
        split.offset = file_->offset();
        continue;
      }
      absl::StatusOr<std::optional<T>> record = parse_(line);
      if (!record.ok()) return AnnotateLine(record.status());
      split.offset = file_->offset();
      if (record->has_value()) output.Collect(**std::move(record));
    }
    if (current_ == splits_.size()) {
      return PollResult{InputStatus::kEndOfInput};
    }
    return PollResult{InputStatus::kMoreAvailable};
  }

  absl::StatusOr<std::vector<Split>> SnapshotState(
      int64_t /*checkpoint_id*/) override {
    std::vector<Split> out;
    out.reserve(splits_.size());
    for (const FileSplit& split : splits_) out.push_back(split.ToSplit());
    return out;
  }

  void Close() override { file_.reset(); }

 private:
  absl::Status Annotate(const absl::Status& status) const {
    return absl::Status(
        status.code(),
        absl::StrCat("file source '", source_name_, "': ", status.message()));
  }

  // Names the file and line of the record that failed to parse.
  absl::Status AnnotateLine(const absl::Status& status) const {
    const absl::StatusOr<int64_t> number =
        file_->LineNumberAt(file_->line_start());
    const std::string where =
        number.ok() ? absl::StrCat("line ", *number)
                    : absl::StrCat("byte offset ", file_->line_start());
    return absl::Status(
        status.code(),
        absl::StrCat("file source '", source_name_, "': '", file_->path(), "' ",
                     where, ": ", status.message()));
  }

  const std::string source_name_;
  std::vector<FileSplit> splits_;
  const int max_lines_per_poll_;
  const int64_t max_line_bytes_;
  const ParseLine parse_;
  const OversizedLine oversized_;
  size_t current_ = 0;
  std::optional<LineReader> file_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_LINE_SOURCE_READER_H_
