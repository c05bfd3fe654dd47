#ifndef GCPSTREAM_ICEBERG_PARQUET_FOOTER_METRICS_H_
#define GCPSTREAM_ICEBERG_PARQUET_FOOTER_METRICS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// How the table keeps a column's metrics (`write.metadata.metrics.*`).
struct MetricsMode {
  enum class Kind { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;  // kTruncate.
};

// "none", "counts", "truncate(N)" (N >= 1) or "full"; InvalidArgument
// naming the property and the value otherwise.
absl::StatusOr<MetricsMode> ParseMetricsMode(absl::string_view property,
                                             absl::string_view value);

// The table's metrics configuration.
struct MetricsConfig {
  // Per field id, where no override applies.
  std::map<int32_t, MetricsMode> defaults;
  MetricsMode fallback;
  // `write.metadata.metrics.column.<name>`, by column name.
  std::map<std::string, MetricsMode> overrides;

  // The mode of the column with `field_id` whose name in the file is
  // `name` (Iceberg looks overrides up by the file's name).
  MetricsMode ModeFor(int32_t field_id, const std::string& name) const;
};

// An explicit `write.metadata.metrics.default` applies to every column;
// without it, truncate(16) for the first
// `write.metadata.metrics.max-inferred-column-defaults` (100) field ids of
// the schema (depth first, structs included) and none for the rest.
absl::StatusOr<MetricsConfig> MetricsConfigFor(
    const std::map<std::string, std::string>& table_properties,
    const Schema& table_schema);

// One leaf of the file (the footer's leaves in order) as the table reads it.
struct LeafBinding {
  int32_t field_id = 0;
  // The table column's type: bounds are converted into it.
  Type table_type;
  // The file's dotted name, for the mode lookup.
  std::string name;
  // At or below a list or map: a column size only.
  bool under_container = false;
};

struct FileMetrics {
  int64_t record_count = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  // Single-value serialized (spec "Binary single-value serialization").
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
};

// A data file's metrics from its footer, as Iceberg computes them
// (docs/iceberg.md, "Metrics"); `leaves[i]` is nullopt for a leaf the table
// has no column for. InvalidArgument naming the column when the file
// cannot be registered faithfully: an unsigned 32-bit column holding values
// from 2^31, which readers would return as negative numbers.
absl::StatusOr<FileMetrics> MetricsFromFooter(
    const ParquetFooter& footer,
    const std::vector<std::optional<LeafBinding>>& leaves,
    const MetricsConfig& config);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARQUET_FOOTER_METRICS_H_
