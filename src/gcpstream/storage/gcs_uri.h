#ifndef GCPSTREAM_STORAGE_GCS_URI_H_
#define GCPSTREAM_STORAGE_GCS_URI_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace gcpstream::storage {

// Splits "gs://bucket/a/b" into bucket and object name; InvalidArgument
// naming the URI otherwise.
absl::StatusOr<std::pair<std::string, std::string>> ParseGcsUri(
    const std::string& uri);

}  // namespace gcpstream::storage

#endif  // GCPSTREAM_STORAGE_GCS_URI_H_
