#ifndef GCPSTREAM_ICEBERG_PARQUET_PARQUET_FOOTER_H_
#define GCPSTREAM_ICEBERG_PARQUET_PARQUET_FOOTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/io/file_io.h"

namespace gcpstream::iceberg {

// What add-files learns from a Parquet file without reading its data: the
// footer's schema, row groups and per-chunk statistics. Enumerations carry
// the format's numbers.

enum class ParquetPhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class ParquetRepetition : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

// The legacy annotation (ConvertedType) that older writers set instead of,
// and newer ones beside, the logical type.
enum class ParquetConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class ParquetTimeUnit { kMillis, kMicros, kNanos };

struct ParquetLogicalType {
  enum class Kind {
    kString,
    kMap,
    kList,
    kEnum,
    kDecimal,
    kDate,
    kTime,
    kTimestamp,
    kInteger,
    kUnknown,  // Always null.
    kJson,
    kBson,
    kUuid,
    kFloat16,
    kVariant,
    kGeometry,
    kGeography,
    kUnrecognized,  // A kind newer than this reader.
  };
  Kind kind = Kind::kUnknown;
  int32_t scale = 0;                                // kDecimal.
  int32_t precision = 0;                            // kDecimal.
  bool adjusted_to_utc = false;                     // kTime, kTimestamp.
  ParquetTimeUnit unit = ParquetTimeUnit::kMillis;  // kTime, kTimestamp.
  int32_t bit_width = 0;  // kInteger: 8, 16, 32 or 64.
  bool is_signed = true;  // kInteger.
};

// One node of the schema tree, which the footer lists depth first, the root
// (the message itself) first.
struct ParquetSchemaElement {
  std::string name;
  // Set on leaves (primitive columns) only.
  std::optional<ParquetPhysicalType> type;
  std::optional<int32_t> type_length;  // FIXED_LEN_BYTE_ARRAY width.
  // Set on every element but the root (where some writers set it too).
  std::optional<ParquetRepetition> repetition;
  // Children that follow, depth first; groups only.
  int32_t num_children = 0;
  bool is_group = false;
  std::optional<ParquetConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<ParquetLogicalType> logical_type;
};

// A column chunk's statistics. Every field is optional in the format, and
// an absent null count is unknown, never zero.
struct ParquetStatistics {
  std::optional<int64_t> null_count;
  // Bounds in the column's order (min_value / max_value).
  std::optional<std::string> min_value;
  std::optional<std::string> max_value;
  // The deprecated bounds (min / max), in signed byte order whatever the
  // column's type; older writers set only these.
  std::optional<std::string> legacy_min;
  std::optional<std::string> legacy_max;
};

struct ParquetColumnChunk {
  // Physical names from below the root to the leaf (`tags.list.element`).
  std::vector<std::string> path;
  ParquetPhysicalType type = ParquetPhysicalType::kBoolean;
  int64_t num_values = 0;  // Nulls included.
  int64_t total_compressed_size = 0;
  int64_t total_uncompressed_size = 0;
  std::optional<ParquetStatistics> statistics;
};

struct ParquetRowGroup {
  int64_t num_rows = 0;
  int64_t total_byte_size = 0;
  // One per leaf of the schema, in schema order.
  std::vector<ParquetColumnChunk> columns;
};

struct ParquetFooter {
  int32_t version = 0;
  int64_t num_rows = 0;
  std::vector<ParquetSchemaElement> schema;
  std::vector<ParquetRowGroup> row_groups;
  std::string created_by;
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
  // The serialized FileMetaData's size, as the file's trailer states it.
  int64_t footer_bytes = 0;
};

// The largest footer read: far beyond any real file's (a footer grows with
// columns × row groups), small enough that a corrupt length cannot make the
// reader allocate without bound.
inline constexpr int64_t kMaxParquetFooterBytes = int64_t{256} << 20;

// Decodes a serialized FileMetaData (Thrift compact protocol) and checks it
// is whole: a schema tree whose child counts add up, one chunk per leaf in
// every row group with the leaf's path and type, row counts that add up.
// DataLoss describing the first inconsistency when it is corrupt;
// Unimplemented when columns or the footer are encrypted.
absl::StatusOr<ParquetFooter> DecodeParquetFooter(absl::string_view metadata);

// Reads the footer of the Parquet file at `path` (its last 8 bytes: the
// footer's length and the `PAR1` magic, then the footer itself; no data
// pages). InvalidArgument when it is not a Parquet file, Unimplemented for
// an encrypted footer (`PARE`), DataLoss when corrupt; each message starts
// with the path.
absl::StatusOr<ParquetFooter> ReadParquetFooter(FileIO& io,
                                                const std::string& path);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARQUET_PARQUET_FOOTER_H_
