#include "gcpstream/runtime/connectors/file_source.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/line_source_reader.h"

namespace gcpstream::runtime {

absl::StatusOr<std::unique_ptr<FileSource>> FileSource::Create(
    std::string name, FileSourceOptions options) {
  absl::Status valid = CheckFileSourceOptions(options, name);
  if (!valid.ok()) return valid;
  return std::make_unique<FileSource>(Token(), std::move(name),
                                      std::move(options));
}

absl::StatusOr<std::vector<Split>> FileSource::PlanSplits(int parallelism) {
  if (parallelism < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("file source '", name_, "': parallelism must be >= 1"));
  }
  return PlanFileSplits(options_, name_);
}

absl::StatusOr<std::unique_ptr<SourceReader<std::string>>>
FileSource::CreateReader(const SourceReaderContext& /*context*/,
                         std::vector<Split> splits) {
  absl::StatusOr<std::vector<FileSplit>> parsed =
      ParseFileSplits(splits, name_);
  if (!parsed.ok()) return parsed.status();
  return std::make_unique<LineSourceReader<std::string>>(
      name_, *std::move(parsed), options_.max_lines_per_poll,
      options_.max_line_bytes,
      [](std::string& line) -> absl::StatusOr<std::optional<std::string>> {
        return std::optional<std::string>(std::move(line));
      },
      [options = options_](int64_t bytes) {
        return OversizedLineError(bytes, options);
      });
}

}  // namespace gcpstream::runtime
