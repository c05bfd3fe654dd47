#include "gcpstream/iceberg/partition.h"

#include <cstring>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/civil_time.h"
#include "gcpstream/iceberg/single_value.h"

namespace gcpstream::iceberg {
namespace {

constexpr int64_t kMicrosPerHour = int64_t{3'600'000'000};
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

absl::Status CannotTell(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Could not determine the file's partition: ", why));
}

struct Transform {
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

absl::StatusOr<Transform> ParseTransform(absl::string_view text) {
  using Kind = Transform::Kind;
  for (const auto& [name, kind] :
       {std::pair<absl::string_view, Kind>{"identity", Kind::kIdentity},
        {"year", Kind::kYear},
        {"month", Kind::kMonth},
        {"day", Kind::kDay},
        {"hour", Kind::kHour},
        {"void", Kind::kVoid}}) {
    if (text == name) return Transform{kind, 0};
  }
  for (const auto& [prefix, kind] :
       {std::pair<absl::string_view, Kind>{"bucket[", Kind::kBucket},
        std::pair<absl::string_view, Kind>{"truncate[", Kind::kTruncate}}) {
    absl::string_view rest = text;
    int64_t width = 0;
    if (absl::ConsumePrefix(&rest, prefix) && absl::ConsumeSuffix(&rest, "]") &&
        absl::SimpleAtoi(rest, &width) && width > 0) {
      return Transform{kind, width};
    }
  }
  return absl::UnimplementedError(
      absl::StrCat("partition transform '", text, "' is not supported"));
}

bool IsTimestamp(TypeKind kind) {
  return kind == TypeKind::kTimestamp || kind == TypeKind::kTimestampTz ||
         kind == TypeKind::kTimestampNs || kind == TypeKind::kTimestampTzNs;
}

bool IsInteger(TypeKind kind) {
  return kind == TypeKind::kInt || kind == TypeKind::kLong ||
         kind == TypeKind::kDate || kind == TypeKind::kTime ||
         IsTimestamp(kind);
}

bool IsSupportedSource(TypeKind kind) {
  return IsInteger(kind) || kind == TypeKind::kBoolean ||
         kind == TypeKind::kString || kind == TypeKind::kBinary;
}

const Field* FindField(const std::vector<Field>& fields, int32_t id) {
  for (const Field& field : fields) {
    if (field.id == id) return &field;
    if (const Field* nested = FindField(field.type.fields, id)) return nested;
  }
  return nullptr;
}

absl::StatusOr<const Field*> SourceOf(const PartitionField& field,
                                      const Schema& schema) {
  const Field* source = FindField(schema.fields, field.source_id);
  if (source == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("partition field ", field.name, ": source column ",
                     field.source_id, " is not in the table's schema"));
  }
  if (!IsSupportedSource(source->type.kind)) {
    return absl::UnimplementedError(
        absl::StrCat("partition field ", field.name, ": partitions of ",
                     TypeName(source->type), " columns are not supported"));
  }
  return source;
}

// Days since 1970-01-01 of an integer value of a date or timestamp type.
int64_t DaysOf(TypeKind kind, int64_t value) {
  if (kind == TypeKind::kDate) return value;
  int64_t per_day = kMicrosPerDay;
  if (kind == TypeKind::kTimestampNs || kind == TypeKind::kTimestampTzNs) {
    per_day *= 1000;
  }
  int64_t days = value / per_day;
  if (value % per_day < 0) --days;
  return days;
}

absl::CivilDay CivilDayOf(int64_t days) {
  return absl::CivilDay(1970, 1, 1) + days;
}

std::optional<PartitionLiteral> Decode(const Type& type,
                                       const std::string& bytes) {
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (bytes.size() != 1) return std::nullopt;
      return PartitionLiteral(bytes[0] != 0);
    case TypeKind::kInt:
    case TypeKind::kDate: {
      if (bytes.size() != 4) return std::nullopt;
      int32_t value = 0;
      std::memcpy(&value, bytes.data(), 4);
      return PartitionLiteral(int64_t{value});
    }
    case TypeKind::kString:
    case TypeKind::kBinary:
      return PartitionLiteral(bytes);
    default: {
      if (bytes.size() != 8) return std::nullopt;
      int64_t value = 0;
      std::memcpy(&value, bytes.data(), 8);
      return PartitionLiteral(value);
    }
  }
}

std::string Describe(const std::optional<PartitionLiteral>& value) {
  if (!value.has_value()) return "null";
  if (const auto* b = std::get_if<bool>(&*value)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&*value)) return absl::StrCat(*i);
  return absl::StrCat("'", std::get<std::string>(*value), "'");
}

std::string PercentDecoded(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        absl::SimpleHexAtoi(text.substr(i + 1, 2), &value)) {
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// A partition value in the human form Hive-style paths use.
absl::StatusOr<std::optional<PartitionLiteral>> ParseHuman(
    const Transform& transform, const Type& source, absl::string_view text) {
  using Kind = Transform::Kind;
  if (text == "null" || text == "__HIVE_DEFAULT_PARTITION__") {
    return std::optional<PartitionLiteral>();
  }
  const std::string decoded = PercentDecoded(text);
  int64_t number = 0;
  absl::CivilDay day;
  absl::CivilMonth month;
  absl::CivilYear year;
  absl::CivilHour hour;
  switch (transform.kind) {
    case Kind::kYear:
      if (absl::ParseCivilTime(decoded, &year)) {
        return PartitionLiteral(int64_t{year.year() - 1970});
      }
      break;
    case Kind::kMonth:
      if (absl::ParseCivilTime(decoded, &month)) {
        return PartitionLiteral(
            int64_t{(month.year() - 1970) * 12 + month.month() - 1});
      }
      break;
    case Kind::kDay:
      if (absl::ParseCivilTime(decoded, &day)) {
        return PartitionLiteral(int64_t{day - absl::CivilDay(1970, 1, 1)});
      }
      break;
    case Kind::kHour:
      // Iceberg writes hours as 2026-01-02-13.
      if (decoded.size() == 13 && decoded[10] == '-' &&
          absl::ParseCivilTime(
              absl::StrCat(decoded.substr(0, 10), "T", decoded.substr(11)),
              &hour)) {
        return PartitionLiteral(
            int64_t{(hour - absl::CivilHour(1970, 1, 1, 0))});
      }
      break;
    case Kind::kBucket:
      if (absl::SimpleAtoi(decoded, &number)) return PartitionLiteral(number);
      break;
    case Kind::kVoid:
      return std::optional<PartitionLiteral>();
    case Kind::kIdentity:
    case Kind::kTruncate:
      switch (source.kind) {
        case TypeKind::kBoolean:
          if (decoded == "true" || decoded == "false") {
            return PartitionLiteral(decoded == "true");
          }
          break;
        case TypeKind::kInt:
        case TypeKind::kLong:
          if (absl::SimpleAtoi(decoded, &number)) {
            return PartitionLiteral(number);
          }
          break;
        case TypeKind::kDate:
          if (absl::ParseCivilTime(decoded, &day)) {
            return PartitionLiteral(int64_t{day - absl::CivilDay(1970, 1, 1)});
          }
          break;
        case TypeKind::kString:
          return PartitionLiteral(decoded);
        default:
          return absl::UnimplementedError(
              absl::StrCat("partition values of ", TypeName(source),
                           " columns cannot be read from a path; leave out the "
                           "partition prefix to infer them from the file"));
      }
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a partition value of this field"));
}

}  // namespace

int32_t Murmur3Hash32(absl::string_view bytes) {
  constexpr uint32_t kC1 = 0xcc9e2d51;
  constexpr uint32_t kC2 = 0x1b873593;
  uint32_t h = 0;
  const size_t blocks = bytes.size() / 4;
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k = 0;
    std::memcpy(&k, bytes.data() + i * 4, 4);
    k *= kC1;
    k = rotl(k, 15);
    k *= kC2;
    h ^= k;
    h = rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  const auto* tail =
      reinterpret_cast<const uint8_t*>(bytes.data() + blocks * 4);
  switch (bytes.size() & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= kC1;
      k = rotl(k, 15);
      k *= kC2;
      h ^= k;
      break;
    default:
      break;
  }
  h ^= static_cast<uint32_t>(bytes.size());
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

absl::StatusOr<Type> PartitionResultType(const PartitionField& field,
                                         const Schema& schema) {
  absl::StatusOr<Transform> transform = ParseTransform(field.transform);
  if (!transform.ok()) return transform.status();
  absl::StatusOr<const Field*> source = SourceOf(field, schema);
  if (!source.ok()) return source.status();
  const TypeKind kind = (*source)->type.kind;
  using Kind = Transform::Kind;
  switch (transform->kind) {
    case Kind::kIdentity:
    case Kind::kVoid:
      return (*source)->type;
    case Kind::kTruncate:
      if (kind == TypeKind::kInt || kind == TypeKind::kLong ||
          kind == TypeKind::kString || kind == TypeKind::kBinary) {
        return (*source)->type;
      }
      break;
    case Kind::kBucket:
      if (kind != TypeKind::kBoolean) return Primitive(TypeKind::kInt);
      break;
    case Kind::kYear:
    case Kind::kMonth:
    case Kind::kDay:
      if (kind == TypeKind::kDate || IsTimestamp(kind)) {
        return Primitive(transform->kind == Kind::kDay ? TypeKind::kDate
                                                       : TypeKind::kInt);
      }
      break;
    case Kind::kHour:
      if (IsTimestamp(kind)) return Primitive(TypeKind::kInt);
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("partition field ", field.name, ": ", field.transform,
                   " does not apply to ", TypeName((*source)->type)));
}

absl::StatusOr<std::optional<PartitionLiteral>> ApplyTransform(
    absl::string_view transform_name, const Type& source,
    const std::optional<PartitionLiteral>& value) {
  absl::StatusOr<Transform> transform = ParseTransform(transform_name);
  if (!transform.ok()) return transform.status();
  using Kind = Transform::Kind;
  if (!value.has_value() || transform->kind == Kind::kVoid) {
    return std::optional<PartitionLiteral>();
  }
  const int64_t* integer = std::get_if<int64_t>(&*value);
  const std::string* bytes = std::get_if<std::string>(&*value);
  switch (transform->kind) {
    case Kind::kIdentity:
      return value;
    case Kind::kYear:
    case Kind::kMonth:
    case Kind::kDay:
    case Kind::kHour: {
      if (integer == nullptr) break;
      if (transform->kind == Kind::kHour) {
        int64_t per_hour = kMicrosPerHour;
        if (source.kind == TypeKind::kTimestampNs ||
            source.kind == TypeKind::kTimestampTzNs) {
          per_hour *= 1000;
        }
        int64_t hours = *integer / per_hour;
        if (*integer % per_hour < 0) --hours;
        return PartitionLiteral(hours);
      }
      const int64_t days = DaysOf(source.kind, *integer);
      if (transform->kind == Kind::kDay) return PartitionLiteral(days);
      const absl::CivilDay day = CivilDayOf(days);
      if (transform->kind == Kind::kYear) {
        return PartitionLiteral(int64_t{day.year() - 1970});
      }
      return PartitionLiteral(
          int64_t{(day.year() - 1970) * 12 + day.month() - 1});
    }
    case Kind::kBucket: {
      std::string input;
      if (integer != nullptr) {
        input = LongValue(*integer);
      } else if (bytes != nullptr) {
        input = *bytes;
      } else {
        break;
      }
      const int64_t hash = Murmur3Hash32(input) & 0x7FFFFFFF;
      return PartitionLiteral(hash % transform->width);
    }
    case Kind::kTruncate:
      if (integer != nullptr) {
        const int64_t w = transform->width;
        return PartitionLiteral(*integer - (((*integer % w) + w) % w));
      }
      if (bytes != nullptr) {
        return PartitionLiteral(
            TruncatedLower(*bytes, static_cast<int32_t>(transform->width),
                           source.kind == TypeKind::kString));
      }
      break;
    case Kind::kVoid:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("partition transform ", transform_name,
                   " does not apply to ", TypeName(source)));
}

absl::StatusOr<PartitionTuple> PartitionFromMetrics(
    const PartitionSpec& spec, const Schema& schema,
    const FileMetrics& metrics) {
  PartitionTuple out;
  for (const PartitionField& field : spec.fields) {
    absl::StatusOr<const Field*> source = SourceOf(field, schema);
    if (!source.ok()) return source.status();
    const int32_t id = field.source_id;
    const std::string column = (*source)->name;
    auto values = metrics.value_counts.find(id);
    const bool in_file = metrics.column_sizes.contains(id);
    if (metrics.record_count == 0 || !in_file) {
      out.emplace_back(std::nullopt);  // Nothing but nulls.
      continue;
    }
    if (values == metrics.value_counts.end()) {
      return CannotTell(
          absl::StrCat("column `", column, "` has no statistics in the file"));
    }
    const int64_t nulls = metrics.null_value_counts.contains(id)
                              ? metrics.null_value_counts.at(id)
                              : 0;
    if (nulls == values->second) {
      out.emplace_back(std::nullopt);
      continue;
    }
    auto lower = metrics.lower_bounds.find(id);
    auto upper = metrics.upper_bounds.find(id);
    if (lower == metrics.lower_bounds.end() ||
        upper == metrics.upper_bounds.end()) {
      return CannotTell(
          absl::StrCat("column `", column, "` has no bounds in the file"));
    }
    std::optional<PartitionLiteral> low =
        Decode((*source)->type, lower->second);
    std::optional<PartitionLiteral> high =
        Decode((*source)->type, upper->second);
    if (!low.has_value() || !high.has_value()) {
      return CannotTell(
          absl::StrCat("column `", column, "` has bounds of another type"));
    }
    absl::StatusOr<std::optional<PartitionLiteral>> from =
        ApplyTransform(field.transform, (*source)->type, low);
    if (!from.ok()) return from.status();
    absl::StatusOr<std::optional<PartitionLiteral>> to =
        ApplyTransform(field.transform, (*source)->type, high);
    if (!to.ok()) return to.status();
    if (*from != *to) {
      return CannotTell(absl::StrCat(
          "Min and max transformed values were not equal for partition "
          "field ",
          field.name, ": ", Describe(*from), " and ", Describe(*to),
          " (the file spans partitions)"));
    }
    if (nulls > 0) {
      return CannotTell(absl::StrCat(
          "column `", column, "` has ", nulls,
          " nulls beside its values (nulls belong to the null partition)"));
    }
    out.push_back(*std::move(from));
  }
  return out;
}

absl::StatusOr<PartitionTuple> PartitionFromPath(const PartitionSpec& spec,
                                                 const Schema& schema,
                                                 absl::string_view directory) {
  std::map<std::string, std::string, std::less<>> named;
  for (absl::string_view part :
       absl::StrSplit(directory, '/', absl::SkipEmpty())) {
    std::pair<std::string, std::string> pair =
        absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (!absl::StrContains(part, '=')) {
      return CannotTell(
          absl::StrCat("path segment '", part, "' is not name=value"));
    }
    named[pair.first] = pair.second;
  }
  PartitionTuple out;
  for (const PartitionField& field : spec.fields) {
    auto value = named.find(field.name);
    if (value == named.end()) {
      return CannotTell(absl::StrCat("the path '", directory,
                                     "' names no value for partition field ",
                                     field.name));
    }
    absl::StatusOr<Transform> transform = ParseTransform(field.transform);
    if (!transform.ok()) return transform.status();
    absl::StatusOr<const Field*> source = SourceOf(field, schema);
    if (!source.ok()) return source.status();
    absl::StatusOr<std::optional<PartitionLiteral>> parsed =
        ParseHuman(*transform, (*source)->type, value->second);
    if (!parsed.ok()) {
      if (parsed.status().code() != absl::StatusCode::kInvalidArgument) {
        return parsed.status();
      }
      return CannotTell(absl::StrCat("partition field ", field.name, ": ",
                                     parsed.status().message()));
    }
    out.push_back(*std::move(parsed));
  }
  return out;
}

std::string PartitionSpecFieldsJson(const PartitionSpec& spec) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const PartitionField& field : spec.fields) {
    fields.push_back({{"name", field.name},
                      {"transform", field.transform},
                      {"source-id", field.source_id},
                      {"field-id", field.field_id}});
  }
  return fields.dump();
}

}  // namespace gcpstream::iceberg
