#include "gcpstream/iceberg/parquet/partition_inference.h"

#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"

namespace gcpstream::iceberg {
namespace {

absl::Status CannotTell(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Could not determine the file's partition: ", why));
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
    const PartitionTransform& transform, const Type& source,
    absl::string_view text) {
  using Kind = PartitionTransform::Kind;
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

absl::StatusOr<PartitionTuple> PartitionFromMetrics(
    const PartitionSpec& spec, const Schema& schema,
    const FileMetrics& metrics) {
  PartitionTuple out;
  for (const PartitionField& field : spec.fields) {
    absl::StatusOr<const Field*> source = PartitionSourceField(field, schema);
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
    absl::StatusOr<PartitionTransform> transform =
        ParsePartitionTransform(field.transform);
    if (!transform.ok()) return transform.status();
    absl::StatusOr<const Field*> source = PartitionSourceField(field, schema);
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

}  // namespace gcpstream::iceberg
