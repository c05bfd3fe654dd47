#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_CLASSIFICATION_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_CLASSIFICATION_H_

#include "gcpstream/base/status_class.h"

namespace gcpstream::bigquery {

// How the BigQuery sink classifies an AppendRows answer
// (docs/bigquery.md, "Failures"). Request level: an in-stream error or the
// stream's end. INVALID_ARGUMENT without row errors is narrowed down by
// splitting the request until the refused row is alone, then routed. The
// stream's own end with UNKNOWN, INTERNAL or CANCELLED may have applied
// the append: at-least-once resends it. Decided before this table:
// NOT_FOUND (the table: re-created under create-if-needed, else the job
// fails naming it). Entry level: the rows a response's row_errors name.
inline constexpr ClassificationTable::Level kBigQueryRequestLevel(
    {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord},
     {absl::StatusCode::kUnavailable, StatusClass::kTransient},
     {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
     {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
     {absl::StatusCode::kAborted, StatusClass::kTransient},
     {absl::StatusCode::kInternal, StatusClass::kTransient},
     {absl::StatusCode::kUnknown, StatusClass::kTransient},
     {absl::StatusCode::kCancelled, StatusClass::kTransient}},
    StatusClass::kFatal);

inline constexpr ClassificationTable::Level kBigQueryRowLevel(
    {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord}},
    StatusClass::kPerRecord);

inline constexpr ClassificationTable kBigQueryClassification(
    kBigQueryRequestLevel, kBigQueryRowLevel);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_CLASSIFICATION_H_
