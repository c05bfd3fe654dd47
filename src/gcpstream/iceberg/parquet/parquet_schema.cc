#include "gcpstream/iceberg/parquet/parquet_schema.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gcpstream::iceberg {
namespace {

using LogicalKind = ParquetLogicalType::Kind;

// Ids generated for fields a file does not number start here, as Iceberg's
// own conversion does, clear of the 1..n a table's columns usually take.
constexpr int32_t kFirstGeneratedId = 1000;
// No position-based id: the field takes the file's or a generated one.
constexpr int32_t kNoFallback = 0;

// The footer's depth-first list as a tree.
struct Node {
  const ParquetSchemaElement* element = nullptr;
  std::vector<Node> children;
};

Node BuildTree(const std::vector<ParquetSchemaElement>& schema, size_t& next) {
  Node node{&schema[next++], {}};
  // A decoded footer's counts always add up; the bound keeps a hand-built
  // one from reading past the list.
  for (int32_t i = 0; i < node.element->num_children && next < schema.size();
       ++i) {
    node.children.push_back(BuildTree(schema, next));
  }
  return node;
}

absl::Status Unsupported(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("column '", path, "': ", what));
}

bool IsList(const ParquetSchemaElement& e) {
  return (e.logical_type.has_value() &&
          e.logical_type->kind == LogicalKind::kList) ||
         e.converted_type == ParquetConvertedType::kList;
}

bool IsMap(const ParquetSchemaElement& e) {
  return (e.logical_type.has_value() &&
          e.logical_type->kind == LogicalKind::kMap) ||
         e.converted_type == ParquetConvertedType::kMap ||
         e.converted_type == ParquetConvertedType::kMapKeyValue;
}

class Converter {
 public:
  explicit Converter(const ParquetFooter& footer) {
    for (size_t i = 1; i < footer.schema.size(); ++i) {
      has_ids_ |= footer.schema[i].field_id.has_value();
    }
  }

  absl::StatusOr<Schema> Convert(const Node& root) {
    Schema schema;
    for (size_t i = 0; i < root.children.size(); ++i) {
      const Node& child = root.children[i];
      // A file without ids numbers its columns 1..n in order.
      const int32_t fallback =
          has_ids_ ? kNoFallback : static_cast<int32_t>(i + 1);
      absl::StatusOr<Field> field =
          ConvertField(child, child.element->name, fallback);
      if (!field.ok()) return field.status();
      schema.fields.push_back(*std::move(field));
    }
    return schema;
  }

  const std::vector<std::string>& without_file_ids() const {
    return without_file_ids_;
  }

 private:
  int32_t IdFor(const ParquetSchemaElement& element, const std::string& path,
                int32_t fallback) {
    if (has_ids_ && element.field_id.has_value()) return *element.field_id;
    if (has_ids_) without_file_ids_.push_back(path);
    if (fallback != kNoFallback) return fallback;
    return next_id_++;
  }

  absl::StatusOr<Field> ConvertField(const Node& node, const std::string& path,
                                     int32_t fallback) {
    const ParquetSchemaElement& element = *node.element;
    if (element.repetition == ParquetRepetition::kRepeated) {
      return Unsupported(path,
                         "fields cannot have repetition REPEATED outside a "
                         "LIST or MAP");
    }
    Field field;
    field.id = IdFor(element, path, fallback);
    field.name = element.name;
    field.required = element.repetition == ParquetRepetition::kRequired;
    absl::StatusOr<Type> type = ConvertType(node, path);
    if (!type.ok()) return type.status();
    field.type = *std::move(type);
    return field;
  }

  absl::StatusOr<Type> ConvertType(const Node& node, const std::string& path) {
    const ParquetSchemaElement& element = *node.element;
    if (!element.is_group) return ConvertPrimitive(element, path);
    if (IsList(element)) return ConvertList(node, path);
    if (IsMap(element)) return ConvertMap(node, path);
    if (element.logical_type.has_value() &&
        element.logical_type->kind == LogicalKind::kVariant) {
      return Primitive(TypeKind::kVariant);
    }
    return ConvertStruct(node, path);
  }

  absl::StatusOr<Type> ConvertStruct(const Node& node,
                                     const std::string& path) {
    std::vector<Field> fields;
    for (const Node& child : node.children) {
      absl::StatusOr<Field> field = ConvertField(
          child, absl::StrCat(path, ".", child.element->name), kNoFallback);
      if (!field.ok()) return field.status();
      fields.push_back(*std::move(field));
    }
    return Struct(std::move(fields));
  }

  absl::StatusOr<Type> ConvertList(const Node& node, const std::string& path) {
    if (node.children.size() != 1 ||
        node.children[0].element->repetition != ParquetRepetition::kRepeated) {
      return Unsupported(path, "a LIST must hold exactly one repeated field");
    }
    const Node& repeated = node.children[0];
    const ParquetSchemaElement& r = *repeated.element;
    const std::string element_path = absl::StrCat(path, ".element");
    // The legacy 2-level layouts: the repeated field is the element itself
    // (and, being repeated, never null).
    const bool two_level = !r.is_group || repeated.children.size() > 1 ||
                           r.name == "array" ||
                           r.name == absl::StrCat(node.element->name, "_tuple");
    Field element;
    if (two_level) {
      element.id = IdFor(r, element_path, kNoFallback);
      element.required = true;
      absl::StatusOr<Type> type = r.is_group
                                      ? ConvertStruct(repeated, element_path)
                                      : ConvertPrimitive(r, element_path);
      if (!type.ok()) return type.status();
      element.type = *std::move(type);
    } else {
      absl::StatusOr<Field> inner =
          ConvertField(repeated.children[0], element_path, kNoFallback);
      if (!inner.ok()) return inner.status();
      element = *std::move(inner);
    }
    return List(std::move(element));
  }

  absl::StatusOr<Type> ConvertMap(const Node& node, const std::string& path) {
    if (node.children.size() != 1 || !node.children[0].element->is_group ||
        node.children[0].element->repetition != ParquetRepetition::kRepeated ||
        node.children[0].children.size() != 2) {
      return Unsupported(path,
                         "a MAP must hold one repeated group of a key and a "
                         "value");
    }
    const Node& entries = node.children[0];
    absl::StatusOr<Field> key = ConvertField(
        entries.children[0], absl::StrCat(path, ".key"), kNoFallback);
    if (!key.ok()) return key.status();
    absl::StatusOr<Field> value = ConvertField(
        entries.children[1], absl::StrCat(path, ".value"), kNoFallback);
    if (!value.ok()) return value.status();
    return Map(*std::move(key), *std::move(value));
  }

  static absl::StatusOr<Type> ConvertPrimitive(
      const ParquetSchemaElement& element, const std::string& path) {
    const std::optional<ParquetLogicalType>& logical = element.logical_type;
    const std::optional<ParquetConvertedType>& converted =
        element.converted_type;
    const LogicalKind kind =
        logical.has_value() ? logical->kind : LogicalKind::kUnrecognized;
    if (logical.has_value()) {
      switch (kind) {
        case LogicalKind::kString:
        case LogicalKind::kEnum:
        case LogicalKind::kJson:
          return Primitive(TypeKind::kString);
        case LogicalKind::kBson:
          return Primitive(TypeKind::kBinary);
        case LogicalKind::kDecimal:
          return Decimal(logical->precision, logical->scale);
        case LogicalKind::kDate:
          return Primitive(TypeKind::kDate);
        case LogicalKind::kTime:
          return Primitive(TypeKind::kTime);
        case LogicalKind::kTimestamp:
          if (logical->unit == ParquetTimeUnit::kNanos) {
            // timestamp_ns exists from format version 3 only; readers of
            // a version 2 table refuse it or misread the values.
            return Unsupported(
                path, absl::StrCat(
                          "nanosecond timestamps (",
                          logical->adjusted_to_utc ? "timestamptz_ns"
                                                   : "timestamp_ns",
                          ") exist in Iceberg from format version 3 only, and "
                          "add-files writes format version 2 tables; write the "
                          "column in microseconds (pyarrow: cast to "
                          "pa.timestamp(\"us\"); pandas: to_parquet(..., "
                          "coerce_timestamps=\"us\", "
                          "allow_truncated_timestamps=True))"));
          }
          return Primitive(logical->adjusted_to_utc ? TypeKind::kTimestampTz
                                                    : TypeKind::kTimestamp);
        case LogicalKind::kInteger:
          if (logical->bit_width == 64) {
            if (!logical->is_signed) {
              return Unsupported(path,
                                 "unsigned 64-bit integers (UINT64) "
                                 "have no Iceberg type");
            }
            return Primitive(TypeKind::kLong);
          }
          // UINT32 needs a long to hold its upper half.
          return Primitive(logical->bit_width == 32 && !logical->is_signed
                               ? TypeKind::kLong
                               : TypeKind::kInt);
        case LogicalKind::kUuid:
          return Primitive(TypeKind::kUuid);
        default:
          return Unsupported(
              path,
              "its Parquet logical type has no Iceberg equivalent "
              "(FLOAT16, UNKNOWN, GEOMETRY, GEOGRAPHY or newer)");
      }
    }
    if (converted.has_value()) {
      switch (*converted) {
        case ParquetConvertedType::kUtf8:
        case ParquetConvertedType::kEnum:
        case ParquetConvertedType::kJson:
          return Primitive(TypeKind::kString);
        case ParquetConvertedType::kBson:
          return Primitive(TypeKind::kBinary);
        case ParquetConvertedType::kDecimal:
          return Decimal(element.precision.value_or(0),
                         element.scale.value_or(0));
        case ParquetConvertedType::kDate:
          return Primitive(TypeKind::kDate);
        case ParquetConvertedType::kTimeMillis:
        case ParquetConvertedType::kTimeMicros:
          return Primitive(TypeKind::kTime);
        // Legacy timestamps are instants (adjusted to UTC).
        case ParquetConvertedType::kTimestampMillis:
        case ParquetConvertedType::kTimestampMicros:
          return Primitive(TypeKind::kTimestampTz);
        case ParquetConvertedType::kInt8:
        case ParquetConvertedType::kInt16:
        case ParquetConvertedType::kInt32:
        case ParquetConvertedType::kUint8:
        case ParquetConvertedType::kUint16:
          return Primitive(TypeKind::kInt);
        case ParquetConvertedType::kUint32:
        case ParquetConvertedType::kInt64:
          return Primitive(TypeKind::kLong);
        case ParquetConvertedType::kUint64:
          return Unsupported(path,
                             "unsigned 64-bit integers (UINT64) have "
                             "no Iceberg type");
        case ParquetConvertedType::kInterval:
          return Unsupported(path, "INTERVAL has no Iceberg type");
        default:
          return Unsupported(path, absl::StrCat("converted type ",
                                                static_cast<int>(*converted),
                                                " on a primitive column"));
      }
    }
    switch (*element.type) {
      case ParquetPhysicalType::kBoolean:
        return Primitive(TypeKind::kBoolean);
      case ParquetPhysicalType::kInt32:
        return Primitive(TypeKind::kInt);
      case ParquetPhysicalType::kInt64:
        return Primitive(TypeKind::kLong);
      case ParquetPhysicalType::kInt96:
        return Primitive(TypeKind::kTimestampTz);
      case ParquetPhysicalType::kFloat:
        return Primitive(TypeKind::kFloat);
      case ParquetPhysicalType::kDouble:
        return Primitive(TypeKind::kDouble);
      case ParquetPhysicalType::kByteArray:
        return Primitive(TypeKind::kBinary);
      case ParquetPhysicalType::kFixedLenByteArray:
        return Fixed(element.type_length.value_or(0));
    }
    return Unsupported(path, "unknown physical type");
  }

  bool has_ids_ = false;
  int32_t next_id_ = kFirstGeneratedId;
  std::vector<std::string> without_file_ids_;
};

// Null counts per leaf path over the row groups that have rows; nullopt
// where one of them lacks the count.
std::map<std::string, std::optional<int64_t>> NullCounts(
    const ParquetFooter& footer) {
  std::map<std::string, std::optional<int64_t>> counts;
  for (const ParquetRowGroup& group : footer.row_groups) {
    for (const ParquetColumnChunk& chunk : group.columns) {
      const std::string path = absl::StrJoin(chunk.path, ".");
      auto [it, inserted] = counts.try_emplace(path, int64_t{0});
      if (group.num_rows == 0) continue;
      const bool known = chunk.statistics.has_value() &&
                         chunk.statistics->null_count.has_value();
      if (!known) {
        it->second = std::nullopt;
      } else if (it->second.has_value()) {
        *it->second += *chunk.statistics->null_count;
      }
    }
  }
  return counts;
}

class NullEvidence {
 public:
  NullEvidence(const ParquetFooter& footer,
               std::map<std::string, std::optional<int64_t>> counts)
      : counts_(std::move(counts)) {
    int64_t rows = 0;
    for (const ParquetRowGroup& group : footer.row_groups) {
      rows += group.num_rows;
    }
    zero_rows_ = rows == 0;
  }

  // Whether `field` (at `path`, outside lists and maps) is proven null-free;
  // records each optional field that is.
  bool Prove(const Field& field, const std::string& path) {
    bool proven = false;
    switch (field.type.kind) {
      case TypeKind::kList:
      case TypeKind::kMap:
      case TypeKind::kVariant:
        return false;
      case TypeKind::kStruct:
        for (const Field& child : field.type.fields) {
          // Every child is visited: each may be proven on its own.
          proven |= Prove(child, absl::StrCat(path, ".", child.name));
        }
        proven |= zero_rows_;
        break;
      default: {
        if (zero_rows_) {
          proven = true;
          break;
        }
        auto it = counts_.find(path);
        proven = it != counts_.end() && it->second == int64_t{0};
      }
    }
    if (proven && !field.required) proven_.push_back(path);
    return proven;
  }

  std::vector<std::string> Take() {
    std::sort(proven_.begin(), proven_.end());
    return std::move(proven_);
  }

 private:
  std::map<std::string, std::optional<int64_t>> counts_;
  bool zero_rows_ = false;
  std::vector<std::string> proven_;
};

void MarkIn(std::vector<Field>& fields, const std::string& prefix,
            const std::set<std::string>& paths) {
  for (Field& field : fields) {
    const std::string path =
        prefix.empty() ? field.name : absl::StrCat(prefix, ".", field.name);
    if (paths.contains(path)) field.required = true;
    if (field.type.kind == TypeKind::kStruct) {
      MarkIn(field.type.fields, path, paths);
    }
  }
}

}  // namespace

absl::StatusOr<Schema> ConvertParquetSchema(const ParquetFooter& footer) {
  if (footer.schema.empty()) {
    return absl::InvalidArgumentError("the Parquet footer has no schema");
  }
  size_t next = 0;
  const Node root = BuildTree(footer.schema, next);
  return Converter(footer).Convert(root);
}

absl::StatusOr<std::vector<std::string>> FieldsWithoutFileIds(
    const ParquetFooter& footer) {
  if (footer.schema.empty()) {
    return absl::InvalidArgumentError("the Parquet footer has no schema");
  }
  size_t next = 0;
  const Node root = BuildTree(footer.schema, next);
  Converter converter(footer);
  if (absl::StatusOr<Schema> converted = converter.Convert(root);
      !converted.ok()) {
    return converted.status();
  }
  return converter.without_file_ids();
}

std::vector<std::string> ProvenNullFreeColumns(const ParquetFooter& footer,
                                               const Schema& schema) {
  NullEvidence evidence(footer, NullCounts(footer));
  for (const Field& field : schema.fields) evidence.Prove(field, field.name);
  return evidence.Take();
}

Schema MarkRequired(const Schema& schema,
                    const std::vector<std::string>& paths) {
  Schema out = schema;
  MarkIn(out.fields, "", std::set<std::string>(paths.begin(), paths.end()));
  return out;
}

}  // namespace gcpstream::iceberg
