#ifndef GCPSTREAM_ICEBERG_SPEC_PARTITION_H_
#define GCPSTREAM_ICEBERG_SPEC_PARTITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/spec/schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// One partition value: a boolean, an integer (int, long, date, time,
// timestamps, and every temporal or bucket transform's result) or bytes
// (string, binary). nullopt is the null partition.
using PartitionLiteral = std::variant<bool, int64_t, std::string>;
using PartitionTuple = std::vector<std::optional<PartitionLiteral>>;

// A partition field's transform, parsed.
struct PartitionTransform {
  enum class Kind {
    kIdentity,
    kYear,
    kMonth,
    kDay,
    kHour,
    kBucket,
    kTruncate,
    kVoid
  };
  Kind kind = Kind::kIdentity;
  int64_t width = 0;  // kBucket, kTruncate.
};

// `text` ("identity", "year", "month", "day", "hour", "void",
// "bucket[N]", "truncate[N]" with N >= 1) parsed; Unimplemented naming it
// otherwise.
absl::StatusOr<PartitionTransform> ParsePartitionTransform(
    absl::string_view text);

// The column of `schema` the partition field transforms. FailedPrecondition
// when the schema has no such column, Unimplemented for source types
// add-files does not support.
absl::StatusOr<const Field*> PartitionSourceField(const PartitionField& field,
                                                  const Schema& schema);

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

// The spec's fields as a manifest's `partition-spec` header spells them.
std::string PartitionSpecFieldsJson(const PartitionSpec& spec);

// Murmur3 x86 32-bit hash with seed 0, as Iceberg's bucket transform uses.
int32_t Murmur3Hash32(absl::string_view bytes);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_PARTITION_H_
