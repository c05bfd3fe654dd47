#include "gcpstream/config/spanner_mutation_mapping.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/spanner/wire_write.h"

namespace gcpstream::config {
namespace {

using spanner::Mutation;
using spanner::Operation;
using spanner::Value;

absl::StatusOr<Value> ToValue(const json::JsonValue& json,
                              absl::string_view field) {
  switch (json.type()) {
    case json::JsonType::kNull:
      return Value::NullValue();
    case json::JsonType::kBoolean:
      return Value::Bool(json.boolean());
    case json::JsonType::kInteger:
      return Value::Int64(json.integer());
    case json::JsonType::kUnsigned:  // Always beyond int64.
      return absl::InvalidArgumentError(
          absl::StrCat("field '", field, "' is beyond INT64"));
    case json::JsonType::kFloat:
      return Value::Float64(json.number());
    case json::JsonType::kString: {
      std::string text;
      json.AppendString(text);
      return Value::String(std::move(text));
    }
    case json::JsonType::kObject: {
      std::string text;
      json.AppendCompact(text);
      return Value::JsonValue(std::move(text));
    }
    case json::JsonType::kArray: {
      const std::vector<json::JsonValue> items = json.Elements();
      Value::Array elements;
      elements.reserve(items.size());
      for (const json::JsonValue& item : items) {
        absl::StatusOr<Value> value = ToValue(item, field);
        if (!value.ok()) return value.status();
        elements.push_back(*std::move(value));
      }
      return Value::ArrayOf(std::move(elements));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("field '", field, "' has a type Spanner cannot store"));
}

// The table the record's mutation names, in `scratch` unless constant.
absl::StatusOr<absl::string_view> TableOf(const MutationMapping& mapping,
                                          const Record& record,
                                          const WriterContext& context,
                                          std::string& scratch) {
  if (mapping.table.constant()) return mapping.table.text();
  if (absl::Status named = mapping.table.RenderTo(
          record, context.event_time.value_or(absl::InfinitePast()), scratch);
      !named.ok()) {
    return named;
  }
  return scratch;
}

}  // namespace

absl::StatusOr<std::optional<Mutation>> ToMutation(
    const MutationMapping& mapping, const Record& record,
    const WriterContext& context) {
  std::string scratch;
  absl::StatusOr<absl::string_view> table =
      TableOf(mapping, record, context, scratch);
  if (!table.ok()) return table.status();
  Mutation mutation = [&, name = std::string(*table)] {
    switch (mapping.operation) {
      case Operation::kInsert:
        return Mutation::Insert(name);
      case Operation::kUpdate:
        return Mutation::Update(name);
      case Operation::kReplace:
        return Mutation::Replace(name);
      case Operation::kDelete:
        return Mutation::Delete(name);
      case Operation::kInsertOrUpdate:
        break;
    }
    return Mutation::InsertOrUpdate(name);
  }();
  std::vector<Value> key;
  if (mapping.operation == Operation::kDelete) {
    key.reserve(mapping.columns.size());
  } else {
    mutation.Reserve(mapping.columns.size());
  }
  for (const auto& [column, path] : mapping.columns) {
    absl::StatusOr<json::JsonValue> field = path.Find(record);
    if (!field.ok()) return field.status();
    absl::StatusOr<Value> value = ToValue(*field, path.text());
    if (!value.ok()) return value.status();
    if (mapping.operation == Operation::kDelete) {
      key.push_back(*std::move(value));
    } else {
      mutation.Set(column, *std::move(value));
    }
  }
  if (mapping.operation == Operation::kDelete) mutation.Key(std::move(key));
  return std::optional<Mutation>(std::move(mutation));
}

std::optional<spanner::EncodedMutation> EncodeWire(
    const MutationMapping& mapping, const Record& record,
    const WriterContext& context, const spanner::SchemaCatalog& catalog,
    google::protobuf::Arena& arena) {
  if (mapping.operation == Operation::kDelete) return std::nullopt;
  std::string table_scratch;
  absl::StatusOr<absl::string_view> table =
      TableOf(mapping, record, context, table_scratch);
  if (!table.ok()) return std::nullopt;
  std::optional<spanner::WireWrite> write = spanner::WireWrite::Start(
      catalog, *table, mapping.operation, mapping.columns.size(), arena);
  if (!write.has_value()) return std::nullopt;
  std::string text_scratch;
  for (const auto& [column, path] : mapping.columns) {
    absl::StatusOr<json::JsonValue> field = path.Find(record);
    if (!field.ok()) return std::nullopt;
    switch (field->type()) {
      case json::JsonType::kString:
        // Read in place unless it has escapes.
        if (!write->AddText(column, field->string(text_scratch))) {
          return std::nullopt;
        }
        continue;
      case json::JsonType::kUnsigned:
      case json::JsonType::kArray:
        return std::nullopt;
      case json::JsonType::kNull:
      case json::JsonType::kBoolean:
      case json::JsonType::kInteger:
      case json::JsonType::kFloat:
      case json::JsonType::kObject:
        break;
    }
    absl::StatusOr<Value> value = ToValue(*field, path.text());
    if (!value.ok() || !write->Add(column, *value).ok()) return std::nullopt;
  }
  absl::StatusOr<spanner::EncodedMutation> encoded = std::move(*write).Finish();
  if (!encoded.ok()) return std::nullopt;
  return *encoded;
}

}  // namespace gcpstream::config
