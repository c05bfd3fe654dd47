#include "gcpstream/config/source_position.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::config {

std::string SourcePosition::ToString() const {
  return absl::StrCat(file, ":", line, ":", column);
}

absl::Status ConfigError(const SourcePosition& position,
                         absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(position.ToString(), ": ", message));
}

}  // namespace gcpstream::config
