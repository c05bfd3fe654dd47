#ifndef GCPSTREAM_BIGQUERY_LOAD_COMMITTABLE_H_
#define GCPSTREAM_BIGQUERY_LOAD_COMMITTABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::bigquery {

// What a file-loads writer hands its committer for one table at a
// checkpoint: the staged newline-delimited JSON files (gs:// URIs) that
// hold `rows` rows, to be loaded into `table` ("project.dataset.table").
struct LoadCommittable {
  std::string table;
  std::vector<std::string> uris{};
  int64_t rows = 0;

  // A JSON object {"table":..,"uris":[..],"rows":..}.
  std::string Encode() const;
  // InvalidArgument for anything Encode() did not write.
  static absl::StatusOr<LoadCommittable> Decode(absl::string_view text);
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_LOAD_COMMITTABLE_H_
