#include "gcpstream/iceberg/parquet/footer_metrics.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gcpstream/iceberg/spec/single_value.h"

namespace gcpstream::iceberg {
namespace {

using Physical = ParquetPhysicalType;
using LogicalKind = ParquetLogicalType::Kind;

constexpr char kDefaultModeProperty[] = "write.metadata.metrics.default";
constexpr char kColumnModePrefix[] = "write.metadata.metrics.column.";
constexpr char kMaxInferredProperty[] =
    "write.metadata.metrics.max-inferred-column-defaults";

// What bounds of a table type are compared and serialized as.
enum class Domain { kBoolean, kInteger, kReal, kDecimal, kBytes, kNone };

Domain DomainOf(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean:
      return Domain::kBoolean;
    case TypeKind::kInt:
    case TypeKind::kLong:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs:
      return Domain::kInteger;
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      return Domain::kReal;
    case TypeKind::kDecimal:
      return Domain::kDecimal;
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kFixed:
    case TypeKind::kUuid:
      return Domain::kBytes;
    default:
      return Domain::kNone;
  }
}

struct Value {
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  absl::int128 decimal = 0;
  std::string bytes;
};

// Nanoseconds per unit, to move a time value between units.
int64_t NanosPer(ParquetTimeUnit unit) {
  switch (unit) {
    case ParquetTimeUnit::kMillis:
      return 1'000'000;
    case ParquetTimeUnit::kMicros:
      return 1'000;
    case ParquetTimeUnit::kNanos:
      return 1;
  }
  return 1;
}

// The time unit of a leaf's values, if it is a time or timestamp.
std::optional<ParquetTimeUnit> LeafUnit(const ParquetSchemaElement& leaf) {
  if (leaf.logical_type.has_value() &&
      (leaf.logical_type->kind == LogicalKind::kTime ||
       leaf.logical_type->kind == LogicalKind::kTimestamp)) {
    return leaf.logical_type->unit;
  }
  if (leaf.converted_type == ParquetConvertedType::kTimeMillis ||
      leaf.converted_type == ParquetConvertedType::kTimestampMillis) {
    return ParquetTimeUnit::kMillis;
  }
  if (leaf.converted_type == ParquetConvertedType::kTimeMicros ||
      leaf.converted_type == ParquetConvertedType::kTimestampMicros) {
    return ParquetTimeUnit::kMicros;
  }
  return std::nullopt;
}

std::optional<ParquetTimeUnit> TableUnit(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
      return ParquetTimeUnit::kMicros;
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs:
      return ParquetTimeUnit::kNanos;
    default:
      return std::nullopt;
  }
}

bool IsUnsigned(const ParquetSchemaElement& leaf) {
  if (leaf.logical_type.has_value() &&
      leaf.logical_type->kind == LogicalKind::kInteger) {
    return !leaf.logical_type->is_signed;
  }
  return leaf.converted_type == ParquetConvertedType::kUint8 ||
         leaf.converted_type == ParquetConvertedType::kUint16 ||
         leaf.converted_type == ParquetConvertedType::kUint32 ||
         leaf.converted_type == ParquetConvertedType::kUint64;
}

// `value` in `from` units as `to` units; lower bounds round down, upper
// bounds up, so the bound still holds; nullopt on overflow.
std::optional<int64_t> ConvertUnit(int64_t value, ParquetTimeUnit from,
                                   ParquetTimeUnit to, bool upper) {
  const int64_t from_nanos = NanosPer(from);
  const int64_t to_nanos = NanosPer(to);
  if (from_nanos >= to_nanos) {
    const int64_t factor = from_nanos / to_nanos;
    int64_t out = 0;
    if (__builtin_mul_overflow(value, factor, &out)) return std::nullopt;
    return out;
  }
  const int64_t divisor = to_nanos / from_nanos;
  int64_t quotient = value / divisor;
  const int64_t remainder = value % divisor;
  if (remainder != 0 && upper && value > 0) ++quotient;
  if (remainder != 0 && !upper && value < 0) --quotient;
  return quotient;
}

std::optional<int64_t> ReadInteger(Physical physical, absl::string_view raw,
                                   bool is_unsigned) {
  if (physical == Physical::kInt32 && raw.size() == 4) {
    if (is_unsigned) {
      uint32_t value = 0;
      std::memcpy(&value, raw.data(), 4);
      return value;
    }
    int32_t value = 0;
    std::memcpy(&value, raw.data(), 4);
    return value;
  }
  if (physical == Physical::kInt64 && raw.size() == 8) {
    int64_t value = 0;
    std::memcpy(&value, raw.data(), 8);
    // A UINT64 would not convert: the schema conversion refuses it.
    return value;
  }
  return std::nullopt;
}

// One statistics value of `leaf` as a value of the table column's type.
std::optional<Value> Decode(const ParquetSchemaElement& leaf,
                            absl::string_view raw, const Type& table,
                            bool upper) {
  const Physical physical = leaf.type.value_or(Physical::kInt96);
  Value out;
  switch (DomainOf(table.kind)) {
    case Domain::kBoolean:
      if (physical != Physical::kBoolean || raw.size() != 1) break;
      out.boolean = raw[0] != 0;
      return out;
    case Domain::kInteger: {
      std::optional<int64_t> value =
          ReadInteger(physical, raw, IsUnsigned(leaf));
      if (!value.has_value()) break;
      const std::optional<ParquetTimeUnit> to = TableUnit(table.kind);
      const std::optional<ParquetTimeUnit> from = LeafUnit(leaf);
      if (to.has_value() && from.has_value()) {
        value = ConvertUnit(*value, *from, *to, upper);
        if (!value.has_value()) break;
      }
      if ((table.kind == TypeKind::kInt || table.kind == TypeKind::kDate) &&
          (*value < std::numeric_limits<int32_t>::min() ||
           *value > std::numeric_limits<int32_t>::max())) {
        break;
      }
      out.integer = *value;
      return out;
    }
    case Domain::kReal:
      if (physical == Physical::kFloat && raw.size() == 4) {
        float value = 0;
        std::memcpy(&value, raw.data(), 4);
        out.real = value;
        return out;
      }
      if (physical == Physical::kDouble && raw.size() == 8) {
        std::memcpy(&out.real, raw.data(), 8);
        return out;
      }
      break;
    case Domain::kDecimal:
      if (physical == Physical::kInt32 || physical == Physical::kInt64) {
        std::optional<int64_t> value = ReadInteger(physical, raw, false);
        if (!value.has_value()) break;
        out.decimal = *value;
        return out;
      }
      if (physical == Physical::kFixedLenByteArray ||
          physical == Physical::kByteArray) {
        std::optional<absl::int128> value = BigEndianToInt128(raw);
        if (!value.has_value()) break;
        out.decimal = *value;
        return out;
      }
      break;
    case Domain::kBytes:
      if (physical != Physical::kByteArray &&
          physical != Physical::kFixedLenByteArray) {
        break;
      }
      out.bytes = std::string(raw);
      return out;
    case Domain::kNone:
      break;
  }
  return std::nullopt;
}

bool Less(Domain domain, const Value& a, const Value& b) {
  switch (domain) {
    case Domain::kBoolean:
      return a.boolean < b.boolean;
    case Domain::kInteger:
      return a.integer < b.integer;
    case Domain::kReal:
      return a.real < b.real;
    case Domain::kDecimal:
      return a.decimal < b.decimal;
    default:
      return a.bytes < b.bytes;  // char_traits<char> compares unsigned.
  }
}

std::optional<std::string> Serialize(const Type& table, const Value& value,
                                     bool upper, const MetricsMode& mode) {
  switch (table.kind) {
    case TypeKind::kBoolean:
      return BooleanValue(value.boolean);
    case TypeKind::kInt:
    case TypeKind::kDate:
      return IntValue(static_cast<int32_t>(value.integer));
    case TypeKind::kFloat:
      return FloatValue(static_cast<float>(value.real));
    case TypeKind::kDouble:
      return DoubleValue(value.real);
    case TypeKind::kDecimal:
      return DecimalValue(value.decimal);
    case TypeKind::kString:
    case TypeKind::kBinary: {
      if (mode.kind != MetricsMode::Kind::kTruncate) return value.bytes;
      const bool is_string = table.kind == TypeKind::kString;
      if (upper) return TruncatedUpper(value.bytes, mode.length, is_string);
      return TruncatedLower(value.bytes, mode.length, is_string);
    }
    case TypeKind::kFixed:
    case TypeKind::kUuid:
      return value.bytes;
    default:
      return LongValue(value.integer);
  }
}

// Statistics bounds Iceberg trusts: min_value/max_value, or the deprecated
// min/max where their signed order is the column's order.
std::optional<std::pair<std::string, std::string>> RawBounds(
    const ParquetSchemaElement& leaf, const ParquetStatistics& stats) {
  if (stats.min_value.has_value() && stats.max_value.has_value()) {
    return std::make_pair(*stats.min_value, *stats.max_value);
  }
  const Physical physical = leaf.type.value_or(Physical::kInt96);
  const bool signed_order =
      (physical == Physical::kBoolean || physical == Physical::kInt32 ||
       physical == Physical::kInt64 || physical == Physical::kFloat ||
       physical == Physical::kDouble) &&
      !IsUnsigned(leaf);
  if (signed_order && stats.legacy_min.has_value() &&
      stats.legacy_max.has_value()) {
    return std::make_pair(*stats.legacy_min, *stats.legacy_max);
  }
  return std::nullopt;
}

std::vector<const ParquetSchemaElement*> Leaves(const ParquetFooter& footer) {
  std::vector<const ParquetSchemaElement*> out;
  for (size_t i = 1; i < footer.schema.size(); ++i) {
    if (!footer.schema[i].is_group) out.push_back(&footer.schema[i]);
  }
  return out;
}

bool IsUnsigned32(const ParquetSchemaElement& leaf) {
  return leaf.type == Physical::kInt32 && IsUnsigned(leaf) &&
         !(leaf.converted_type == ParquetConvertedType::kUint8 ||
           leaf.converted_type == ParquetConvertedType::kUint16 ||
           (leaf.logical_type.has_value() &&
            leaf.logical_type->bit_width < 32));
}

// Counts and bounds of one leaf outside lists and maps.
absl::Status LeafMetrics(const ParquetFooter& footer, size_t index,
                         const ParquetSchemaElement& leaf,
                         const LeafBinding& binding, const MetricsMode& mode,
                         FileMetrics& out) {
  int64_t values = 0;
  int64_t nulls = 0;
  std::optional<Value> lower;
  std::optional<Value> upper;
  bool lower_usable = true;
  bool upper_usable = true;
  const Domain domain = DomainOf(binding.table_type.kind);
  for (const ParquetRowGroup& group : footer.row_groups) {
    const ParquetColumnChunk& chunk = group.columns[index];
    if (group.num_rows == 0) continue;  // Constrains nothing.
    if (!chunk.statistics.has_value() ||
        !chunk.statistics->null_count.has_value()) {
      return absl::OkStatus();  // Unknown: no counts, no bounds.
    }
    values += chunk.num_values;
    nulls += *chunk.statistics->null_count;
    if (*chunk.statistics->null_count >= chunk.num_values) continue;
    std::optional<std::pair<std::string, std::string>> raw =
        RawBounds(leaf, *chunk.statistics);
    if (!raw.has_value()) {
      lower_usable = upper_usable = false;
      continue;
    }
    if (IsUnsigned32(leaf)) {
      std::optional<int64_t> max =
          ReadInteger(Physical::kInt32, raw->second, true);
      if (max.has_value() && *max >= (int64_t{1} << 31)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "column `", binding.name,
            "` is an unsigned 32-bit integer with values from 2^31 (up to ",
            *max, "), which readers would return as negative numbers"));
      }
    }
    // A bound that does not convert (it overflows the column's unit) is
    // dropped on its own: the other still holds.
    std::optional<Value> low =
        Decode(leaf, raw->first, binding.table_type, false);
    std::optional<Value> high =
        Decode(leaf, raw->second, binding.table_type, true);
    lower_usable &= low.has_value();
    upper_usable &= high.has_value();
    if (low.has_value() && (!lower.has_value() || Less(domain, *low, *lower))) {
      lower = low;
    }
    if (high.has_value() &&
        (!upper.has_value() || Less(domain, *upper, *high))) {
      upper = high;
    }
  }
  out.value_counts[binding.field_id] = values;
  out.null_value_counts[binding.field_id] = nulls;
  if (mode.kind == MetricsMode::Kind::kCounts || domain == Domain::kNone) {
    return absl::OkStatus();
  }
  if (!lower_usable) lower.reset();
  if (!upper_usable) upper.reset();
  if (domain == Domain::kReal) {
    if ((lower.has_value() && std::isnan(lower->real)) ||
        (upper.has_value() && std::isnan(upper->real))) {
      return absl::OkStatus();
    }
    // -0.0 sorts before +0.0: a zero bound must hold both.
    if (lower.has_value() && lower->real == 0) lower->real = -0.0;
    if (upper.has_value() && upper->real == 0) upper->real = 0.0;
  }
  if (lower.has_value()) {
    if (std::optional<std::string> low =
            Serialize(binding.table_type, *lower, false, mode)) {
      out.lower_bounds[binding.field_id] = *std::move(low);
    }
  }
  if (upper.has_value()) {
    if (std::optional<std::string> high =
            Serialize(binding.table_type, *upper, true, mode)) {
      out.upper_bounds[binding.field_id] = *std::move(high);
    }
  }
  return absl::OkStatus();
}

void CollectIds(const std::vector<Field>& fields, std::vector<int32_t>& out) {
  for (const Field& field : fields) out.push_back(field.id);
  for (const Field& field : fields) CollectIds(field.type.fields, out);
}

}  // namespace

absl::StatusOr<MetricsMode> ParseMetricsMode(absl::string_view property,
                                             absl::string_view value) {
  const std::string text =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (text == "none") return MetricsMode{MetricsMode::Kind::kNone, 0};
  if (text == "counts") return MetricsMode{MetricsMode::Kind::kCounts, 0};
  if (text == "full") return MetricsMode{MetricsMode::Kind::kFull, 0};
  absl::string_view rest = text;
  int32_t length = 0;
  if (absl::ConsumePrefix(&rest, "truncate(") &&
      absl::ConsumeSuffix(&rest, ")") && absl::SimpleAtoi(rest, &length) &&
      length > 0) {
    return MetricsMode{MetricsMode::Kind::kTruncate, length};
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "table property ", property, ": '", value,
      "' is not a metrics mode (none, counts, truncate(N), full)"));
}

MetricsMode MetricsConfig::ModeFor(int32_t field_id,
                                   const std::string& name) const {
  auto named = overrides.find(name);
  if (named != overrides.end()) return named->second;
  auto by_id = defaults.find(field_id);
  return by_id != defaults.end() ? by_id->second : fallback;
}

absl::StatusOr<MetricsConfig> MetricsConfigFor(
    const std::map<std::string, std::string>& table_properties,
    const Schema& table_schema) {
  MetricsConfig config;
  auto explicit_default = table_properties.find(kDefaultModeProperty);
  if (explicit_default != table_properties.end()) {
    absl::StatusOr<MetricsMode> mode =
        ParseMetricsMode(kDefaultModeProperty, explicit_default->second);
    if (!mode.ok()) return mode.status();
    config.fallback = *mode;
  } else {
    int64_t limit = 100;
    auto max = table_properties.find(kMaxInferredProperty);
    if (max != table_properties.end() &&
        !absl::SimpleAtoi(max->second, &limit)) {
      return absl::InvalidArgumentError(
          absl::StrCat("table property ", kMaxInferredProperty, ": '",
                       max->second, "' is not a number"));
    }
    std::vector<int32_t> ids;
    CollectIds(table_schema.fields, ids);
    for (size_t i = 0; i < ids.size() && static_cast<int64_t>(i) < limit; ++i) {
      config.defaults[ids[i]] = MetricsMode();
    }
    config.fallback = MetricsMode{MetricsMode::Kind::kNone, 0};
  }
  for (const auto& [key, value] : table_properties) {
    absl::string_view name = key;
    if (!absl::ConsumePrefix(&name, kColumnModePrefix)) continue;
    absl::StatusOr<MetricsMode> mode = ParseMetricsMode(key, value);
    if (!mode.ok()) return mode.status();
    config.overrides[std::string(name)] = *mode;
  }
  return config;
}

absl::StatusOr<FileMetrics> MetricsFromFooter(
    const ParquetFooter& footer,
    const std::vector<std::optional<LeafBinding>>& leaves,
    const MetricsConfig& config) {
  const std::vector<const ParquetSchemaElement*> elements = Leaves(footer);
  if (elements.size() != leaves.size()) {
    return absl::InternalError("leaf bindings do not match the footer");
  }
  FileMetrics out;
  for (const ParquetRowGroup& group : footer.row_groups) {
    out.record_count += group.num_rows;
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].has_value()) continue;
    const LeafBinding& binding = *leaves[i];
    const MetricsMode mode = config.ModeFor(binding.field_id, binding.name);
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    int64_t size = 0;
    for (const ParquetRowGroup& group : footer.row_groups) {
      size += group.columns[i].total_compressed_size;
    }
    out.column_sizes[binding.field_id] += size;
    // INT96 statistics are unreliable (Iceberg keeps none); under lists
    // and maps a footer's counts are of elements, not rows.
    if (binding.under_container ||
        elements[i]->type == ParquetPhysicalType::kInt96) {
      continue;
    }
    if (absl::Status leaf =
            LeafMetrics(footer, i, *elements[i], binding, mode, out);
        !leaf.ok()) {
      return leaf;
    }
  }
  return out;
}

}  // namespace gcpstream::iceberg
