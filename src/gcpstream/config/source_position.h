#ifndef GCPSTREAM_CONFIG_SOURCE_POSITION_H_
#define GCPSTREAM_CONFIG_SOURCE_POSITION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace gcpstream::config {

// Where something was written in a pipeline file; line and column count
// from 1, as editors show them.
struct SourcePosition {
  std::string file;
  int line = 0;
  int column = 0;

  // "pipeline.yaml:12:5".
  std::string ToString() const;
};

// InvalidArgument "file:line:column: message": every configuration error
// points at what the user must change.
absl::Status ConfigError(const SourcePosition& position,
                         absl::string_view message);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_SOURCE_POSITION_H_
