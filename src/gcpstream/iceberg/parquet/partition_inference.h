#ifndef GCPSTREAM_ICEBERG_PARQUET_PARTITION_INFERENCE_H_
#define GCPSTREAM_ICEBERG_PARQUET_PARTITION_INFERENCE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/parquet/footer_metrics.h"
#include "gcpstream/iceberg/spec/partition.h"
#include "gcpstream/iceberg/spec/schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// The file's partition inferred from its footer's full-mode metrics: for
// each field, the transform of its source column's lower and upper bounds,
// which must agree. The null partition when every value is null or the
// file lacks the column. InvalidArgument ("Could not determine the file's
// partition: …") when it cannot be known: no bounds, bounds that transform
// differently, or nulls beside values.
absl::StatusOr<PartitionTuple> PartitionFromMetrics(const PartitionSpec& spec,
                                                    const Schema& schema,
                                                    const FileMetrics& metrics);

// The partition a Hive-style directory names (`day=2026-01-02/kind=a`, the
// part of the file's path after the partition prefix): one `name=value`
// per partition field, in any order, values in their human form
// (`__HIVE_DEFAULT_PARTITION__` or `null` for null). InvalidArgument naming
// what is missing or malformed.
absl::StatusOr<PartitionTuple> PartitionFromPath(const PartitionSpec& spec,
                                                 const Schema& schema,
                                                 absl::string_view directory);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARQUET_PARTITION_INFERENCE_H_
