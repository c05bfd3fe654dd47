#include "gcpstream/storage/gcs_uri.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gcpstream::storage {

absl::StatusOr<std::pair<std::string, std::string>> ParseGcsUri(
    const std::string& uri) {
  absl::string_view rest = uri;
  if (!absl::ConsumePrefix(&rest, "gs://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "' is not a gs:// URI"));
  }
  const size_t slash = rest.find('/');
  if (slash == 0 || slash == absl::string_view::npos ||
      slash + 1 == rest.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "' names no object: write gs://BUCKET/OBJECT"));
  }
  return std::make_pair(std::string(rest.substr(0, slash)),
                        std::string(rest.substr(slash + 1)));
}

}  // namespace gcpstream::storage
