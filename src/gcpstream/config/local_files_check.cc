#include "gcpstream/config/local_files_check.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/file_sink_options.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;

bool IsType(OptionMap& options, absl::string_view type) {
  absl::StatusOr<std::optional<std::string>> value = options.String("type");
  return value.ok() && value->has_value() &&
         absl::EqualsIgnoreCase(**value, type);
}

absl::Status CheckJsonLinesInputs(OptionMap& options) {
  absl::StatusOr<std::optional<std::vector<std::string>>> paths =
      options.StringList("paths");
  if (paths.ok() && paths->has_value()) {
    for (const std::string& path : **paths) {
      std::error_code error;
      if (!fs::is_regular_file(path, error)) {
        return ConfigError(
            options.PositionOf("paths"),
            absl::StrCat(options.what(), ": option 'paths': '", path,
                         "' is not a file that can be read (",
                         fs::exists(path, error) ? "not a regular file"
                                                 : "it does not exist",
                         ")"));
      }
    }
  }
  absl::StatusOr<std::optional<std::string>> directory =
      options.String("directory");
  if (directory.ok() && directory->has_value()) {
    std::error_code error;
    if (!fs::is_directory(**directory, error)) {
      return ConfigError(options.PositionOf("directory"),
                         absl::StrCat(options.what(), ": option 'directory': '",
                                      **directory, "' is not a directory"));
    }
  }
  return absl::OkStatus();
}

// Whether `checkpoint_directory` holds a checkpoint a run resumes from.
bool HasCheckpoint(const std::string& checkpoint_directory) {
  if (checkpoint_directory.empty()) return false;
  std::error_code error;
  return std::ranges::any_of(
      fs::directory_iterator(checkpoint_directory, error),
      [](const fs::directory_entry& entry) {
        const std::string name = entry.path().filename().string();
        return absl::StartsWith(name, "chk-") && absl::EndsWith(name, ".json");
      });
}

absl::Status CheckFileSinkDirectory(OptionMap& options,
                                    const std::string& checkpoint_directory) {
  absl::StatusOr<std::optional<runtime::FileSinkDelivery>> delivery =
      options.Enum(runtime::kFileSinkDeliveryOption);
  if (delivery.ok() && delivery->has_value() &&
      **delivery != runtime::FileSinkDelivery::kExactlyOnce) {
    return absl::OkStatus();  // At-least-once appends to its part files.
  }
  absl::StatusOr<std::optional<std::string>> directory =
      options.String("directory");
  if (!directory.ok() || !directory->has_value()) return absl::OkStatus();
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(**directory, error)) {
    const std::string name = entry.path().filename().string();
    if (!absl::StartsWith(name, "part-")) continue;
    if (HasCheckpoint(checkpoint_directory)) return absl::OkStatus();
    return ConfigError(
        options.PositionOf("directory"),
        absl::StrCat(
            options.what(), ": option 'directory': '", **directory,
            "' already holds part files of an earlier run (", name,
            ", ...) and no checkpoint says they are this run's: remove them "
            "or choose an empty directory; to resume that run, keep its "
            "checkpoint-directory"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckLocalFiles(PipelineFile& file) {
  for (PipelineFile::Source& source : file.sources) {
    if (!IsType(source.options, "json-lines")) continue;
    if (absl::Status checked = CheckJsonLinesInputs(source.options);
        !checked.ok()) {
      return checked;
    }
  }
  for (PipelineFile::Sink& sink : file.sinks) {
    if (!IsType(sink.options, "file")) continue;
    if (absl::Status checked = CheckFileSinkDirectory(
            sink.options, file.options.checkpoint_directory);
        !checked.ok()) {
      return checked;
    }
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::config
