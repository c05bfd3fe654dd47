#ifndef GCPSTREAM_ICEBERG_PARTITION_H_
#define GCPSTREAM_ICEBERG_PARTITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/footer_metrics.h"
#include "gcpstream/iceberg/schema.h"
#include "gcpstream/iceberg/table_metadata.h"

namespace gcpstream::iceberg {

// One partition value: a boolean, an integer (int, long, date, time,
// timestamps, and every temporal or bucket transform's result) or bytes
// (string, binary). nullopt is the null partition.
using PartitionLiteral = std::variant<bool, int64_t, std::string>;
using PartitionTuple = std::vector<std::optional<PartitionLiteral>>;

// The type a partition field's values have: the source type for identity,
// truncate and void, int for year, month, day, hour and bucket.
// Unimplemented for transforms or source types add-files does not support
// (decimal, uuid, float and double sources; unknown transforms).
absl::StatusOr<Type> PartitionResultType(const PartitionField& field,
                                         const Schema& schema);

// The transform `transform_name` applied to `value` of `source` type (Iceberg's
// spec "Partition Transforms"; bucket with Murmur3 x86 32-bit).
absl::StatusOr<std::optional<PartitionLiteral>> ApplyTransform(
    absl::string_view transform_name, const Type& source,
    const std::optional<PartitionLiteral>& value);

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

// The spec's fields as a manifest's `partition-spec` header spells them.
std::string PartitionSpecFieldsJson(const PartitionSpec& spec);

// Murmur3 x86 32-bit hash with seed 0, as Iceberg's bucket transform uses.
int32_t Murmur3Hash32(absl::string_view bytes);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARTITION_H_
