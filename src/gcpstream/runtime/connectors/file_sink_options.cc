#include "gcpstream/runtime/connectors/file_sink_options.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace gcpstream::runtime {
namespace {

absl::Status Invalid(absl::string_view sink_name, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("file sink '", sink_name, "': ", message));
}

// Committables carry paths as JSON strings, which must be UTF-8; a path
// that is not would come back mangled and its data would be lost.
bool IsUtf8(const std::string& text) {
  const std::string dumped = nlohmann::json(text).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  const nlohmann::json back = nlohmann::json::parse(dumped, nullptr, false);
  return back.is_string() && back.get_ref<const std::string&>() == text;
}

}  // namespace

absl::Status CheckFileSinkOptions(const FileSinkOptions& options,
                                  absl::string_view sink_name) {
  if (options.directory.empty()) {
    return Invalid(sink_name, "the directory is empty");
  }
  if (!IsUtf8(options.directory)) {
    return Invalid(sink_name, "the directory must be valid UTF-8");
  }
  if (options.extension.empty() || absl::StrContains(options.extension, '/') ||
      absl::StartsWith(options.extension, ".") || !IsUtf8(options.extension)) {
    return Invalid(sink_name,
                   absl::StrCat("the extension must be a non-empty UTF-8 "
                                "name without '/' or a leading '.'; got '",
                                options.extension, "'"));
  }
  if (options.max_file_bytes < 0) {
    return Invalid(sink_name, "max file bytes must be >= 0");
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::runtime
