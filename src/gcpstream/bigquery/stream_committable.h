#ifndef GCPSTREAM_BIGQUERY_STREAM_COMMITTABLE_H_
#define GCPSTREAM_BIGQUERY_STREAM_COMMITTABLE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::bigquery {

// What an exactly-once BigQuery writer hands its committer for one table
// at a checkpoint: a finalized PENDING stream holding `rows` rows, to be
// committed into `table` (its resource name).
struct StreamCommittable {
  std::string table;
  std::string stream;
  int64_t rows = 0;

  // A JSON object {"table":..,"stream":..,"rows":..}: readable in a
  // checkpoint and extensible.
  std::string Encode() const;
  // InvalidArgument for anything Encode() did not write.
  static absl::StatusOr<StreamCommittable> Decode(absl::string_view text);
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_STREAM_COMMITTABLE_H_
