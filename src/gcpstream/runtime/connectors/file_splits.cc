#include "gcpstream/runtime/connectors/file_splits.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::runtime {

absl::Status OversizedLineError(int64_t bytes,
                                const FileSourceOptions& options) {
  return absl::InvalidArgumentError(absl::StrCat(
      "a line of ", bytes,
      " bytes is longer than option "
      "'max-line-bytes' (",
      options.max_line_bytes,
      "); it was not read into memory. Raise the option if such records are "
      "expected"));
}

absl::Status CheckFileSourceOptions(const FileSourceOptions& options,
                                    absl::string_view source_name) {
  if (options.max_line_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "file source '", source_name, "': max-line-bytes must be at least 1"));
  }
  if (options.paths.empty() == options.directory.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("file source '", source_name,
                     "': set either a list of paths or a directory"));
  }
  for (const std::string& path : options.paths) {
    if (path.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("file source '", source_name, "': a path is empty"));
    }
  }
  // Paths are split ids, which must be unique within the source.
  std::vector<std::string> sorted = options.paths;
  std::sort(sorted.begin(), sorted.end());
  const auto duplicate = std::adjacent_find(sorted.begin(), sorted.end());
  if (duplicate != sorted.end()) {
    return absl::InvalidArgumentError(absl::StrCat("file source '", source_name,
                                                   "': path '", *duplicate,
                                                   "' is listed twice"));
  }
  if (options.max_lines_per_poll < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("file source '", source_name,
                     "': max lines per poll must be >= 1; got ",
                     options.max_lines_per_poll));
  }
  return absl::OkStatus();
}

Split FileSplit::ToSplit() const { return Split{path, absl::StrCat(offset)}; }

absl::StatusOr<std::vector<Split>> PlanFileSplits(
    const FileSourceOptions& options, absl::string_view source_name) {
  std::vector<std::string> paths = options.paths;
  if (!options.directory.empty()) {
    std::error_code error;
    std::filesystem::directory_iterator it(options.directory, error);
    for (; !error && it != std::filesystem::directory_iterator();
         it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (absl::StartsWith(name, ".") ||
          !absl::EndsWith(name, options.suffix)) {
        continue;
      }
      std::error_code type_error;
      if (!it->is_regular_file(type_error)) continue;
      paths.push_back(it->path().string());
    }
    if (error) {
      return absl::NotFoundError(
          absl::StrCat("file source '", source_name, "': cannot list '",
                       options.directory, "': ", error.message()));
    }
    std::sort(paths.begin(), paths.end());
  }
  std::vector<Split> splits;
  splits.reserve(paths.size());
  for (std::string& path : paths) {
    splits.push_back(FileSplit{std::move(path), 0}.ToSplit());
  }
  return splits;
}

absl::StatusOr<FileSplit> ParseFileSplit(const Split& split,
                                         absl::string_view source_name) {
  FileSplit parsed{split.id, 0};
  if (split.id.empty() || !absl::SimpleAtoi(split.state, &parsed.offset) ||
      parsed.offset < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("file source '", source_name, "': split '", split.id,
                     "' has state '", split.state, "', not a byte offset"));
  }
  return parsed;
}

absl::StatusOr<std::vector<FileSplit>> ParseFileSplits(
    const std::vector<Split>& splits, absl::string_view source_name) {
  std::vector<FileSplit> parsed;
  parsed.reserve(splits.size());
  for (const Split& split : splits) {
    absl::StatusOr<FileSplit> one = ParseFileSplit(split, source_name);
    if (!one.ok()) return one.status();
    parsed.push_back(*std::move(one));
  }
  return parsed;
}

}  // namespace gcpstream::runtime
