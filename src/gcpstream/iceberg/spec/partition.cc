#include "gcpstream/iceberg/spec/partition.h"

#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/civil_time.h"
#include "gcpstream/iceberg/spec/single_value.h"

namespace gcpstream::iceberg {
namespace {

constexpr int64_t kMicrosPerHour = int64_t{3'600'000'000};
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

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

}  // namespace

absl::StatusOr<PartitionTransform> ParsePartitionTransform(
    absl::string_view text) {
  using Kind = PartitionTransform::Kind;
  for (const auto& [name, kind] :
       {std::pair<absl::string_view, Kind>{"identity", Kind::kIdentity},
        {"year", Kind::kYear},
        {"month", Kind::kMonth},
        {"day", Kind::kDay},
        {"hour", Kind::kHour},
        {"void", Kind::kVoid}}) {
    if (text == name) return PartitionTransform{kind, 0};
  }
  for (const auto& [prefix, kind] :
       {std::pair<absl::string_view, Kind>{"bucket[", Kind::kBucket},
        std::pair<absl::string_view, Kind>{"truncate[", Kind::kTruncate}}) {
    absl::string_view rest = text;
    int64_t width = 0;
    if (absl::ConsumePrefix(&rest, prefix) && absl::ConsumeSuffix(&rest, "]") &&
        absl::SimpleAtoi(rest, &width) && width > 0) {
      return PartitionTransform{kind, width};
    }
  }
  return absl::UnimplementedError(
      absl::StrCat("partition transform '", text, "' is not supported"));
}

absl::StatusOr<const Field*> PartitionSourceField(const PartitionField& field,
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
  absl::StatusOr<PartitionTransform> transform =
      ParsePartitionTransform(field.transform);
  if (!transform.ok()) return transform.status();
  absl::StatusOr<const Field*> source = PartitionSourceField(field, schema);
  if (!source.ok()) return source.status();
  const TypeKind kind = (*source)->type.kind;
  using Kind = PartitionTransform::Kind;
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
  absl::StatusOr<PartitionTransform> transform =
      ParsePartitionTransform(transform_name);
  if (!transform.ok()) return transform.status();
  using Kind = PartitionTransform::Kind;
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
