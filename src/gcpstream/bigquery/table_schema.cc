#include "gcpstream/bigquery/table_schema.h"

#include <algorithm>

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::bigquery {
namespace {

struct TypeSpelling {
  absl::string_view name;
  FieldType type;
};

// The first spelling of each type is the one FieldTypeName gives.
constexpr TypeSpelling kTypeSpellings[] = {
    {"INT64", FieldType::kInt64},
    {"INTEGER", FieldType::kInt64},
    {"FLOAT64", FieldType::kFloat64},
    {"FLOAT", FieldType::kFloat64},
    {"NUMERIC", FieldType::kNumeric},
    {"DECIMAL", FieldType::kNumeric},
    {"BIGNUMERIC", FieldType::kBigNumeric},
    {"BIGDECIMAL", FieldType::kBigNumeric},
    {"BOOL", FieldType::kBool},
    {"BOOLEAN", FieldType::kBool},
    {"STRING", FieldType::kString},
    {"BYTES", FieldType::kBytes},
    {"DATE", FieldType::kDate},
    {"DATETIME", FieldType::kDateTime},
    {"TIME", FieldType::kTime},
    {"TIMESTAMP", FieldType::kTimestamp},
    {"JSON", FieldType::kJson},
    {"GEOGRAPHY", FieldType::kGeography},
    {"RECORD", FieldType::kRecord},
    {"STRUCT", FieldType::kRecord},
};

constexpr std::pair<absl::string_view, FieldMode> kModes[] = {
    {"NULLABLE", FieldMode::kNullable},
    {"REQUIRED", FieldMode::kRequired},
    {"REPEATED", FieldMode::kRepeated},
};

absl::StatusOr<std::vector<FieldSchema>> FieldsFromJson(
    const nlohmann::json& fields, const std::string& parent);

absl::StatusOr<FieldSchema> FieldFromJson(const nlohmann::json& json,
                                          const std::string& parent) {
  if (!json.is_object() || !json.contains("name") ||
      !json["name"].is_string() || json["name"].get<std::string>().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a column", parent.empty() ? "" : " of '", parent,
        parent.empty() ? "" : "'", " has no name: ",
        json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  }
  FieldSchema field;
  field.name = json["name"].get<std::string>();
  const std::string path =
      parent.empty() ? field.name : absl::StrCat(parent, ".", field.name);
  const std::string type = json.value("type", std::string());
  absl::StatusOr<FieldType> parsed_type = ParseFieldType(type);
  if (!parsed_type.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("column '", path, "': ", parsed_type.status().message()));
  }
  field.type = *parsed_type;
  if (json.contains("mode") && json["mode"].is_string()) {
    absl::StatusOr<FieldMode> mode =
        ParseFieldMode(json["mode"].get<std::string>());
    if (!mode.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", path, "': ", mode.status().message()));
    }
    field.mode = *mode;
  }
  if (json.contains("description") && json["description"].is_string()) {
    field.description = json["description"].get<std::string>();
  }
  if (field.type == FieldType::kRecord) {
    if (!json.contains("fields") || !json["fields"].is_array() ||
        json["fields"].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", path, "' is a RECORD without fields"));
    }
    absl::StatusOr<std::vector<FieldSchema>> children =
        FieldsFromJson(json["fields"], path);
    if (!children.ok()) return children.status();
    field.fields = *std::move(children);
  }
  return field;
}

absl::StatusOr<std::vector<FieldSchema>> FieldsFromJson(
    const nlohmann::json& fields, const std::string& parent) {
  std::vector<FieldSchema> out;
  absl::flat_hash_set<std::string> names;
  for (const nlohmann::json& json : fields) {
    absl::StatusOr<FieldSchema> field = FieldFromJson(json, parent);
    if (!field.ok()) return field.status();
    if (!names.insert(absl::AsciiStrToLower(field->name)).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column '", parent.empty() ? "" : absl::StrCat(parent, "."),
          field->name,
          "' appears twice (BigQuery column names are case-insensitive)"));
    }
    out.push_back(*std::move(field));
  }
  return out;
}

nlohmann::json FieldToJson(const FieldSchema& field) {
  nlohmann::json json = {{"name", field.name},
                         {"type", FieldTypeName(field.type)},
                         {"mode", FieldModeName(field.mode)}};
  if (!field.description.empty()) json["description"] = field.description;
  if (field.type == FieldType::kRecord) {
    json["fields"] = nlohmann::json::array();
    for (const FieldSchema& child : field.fields) {
      json["fields"].push_back(FieldToJson(child));
    }
  }
  return json;
}

const FieldSchema* FindIn(const std::vector<FieldSchema>& fields,
                          absl::string_view name) {
  for (const FieldSchema& field : fields) {
    if (absl::EqualsIgnoreCase(field.name, name)) return &field;
  }
  return nullptr;
}

absl::Status CheckFieldsChange(const std::vector<FieldSchema>& current,
                               const std::vector<FieldSchema>& next,
                               const std::string& parent) {
  for (const FieldSchema& old_field : current) {
    const std::string path = parent.empty()
                                 ? old_field.name
                                 : absl::StrCat(parent, ".", old_field.name);
    const FieldSchema* new_field = FindIn(next, old_field.name);
    if (new_field == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "column '", path, "' would be dropped, which BigQuery refuses"));
    }
    if (new_field->type != old_field.type) {
      return absl::FailedPreconditionError(absl::StrCat(
          "column '", path, "' would change type from ",
          FieldTypeName(old_field.type), " to ", FieldTypeName(new_field->type),
          ", which BigQuery refuses"));
    }
    const bool relaxed = old_field.mode == FieldMode::kRequired &&
                         new_field->mode == FieldMode::kNullable;
    if (new_field->mode != old_field.mode && !relaxed) {
      return absl::FailedPreconditionError(absl::StrCat(
          "column '", path, "' would change mode from ",
          FieldModeName(old_field.mode), " to ", FieldModeName(new_field->mode),
          "; only REQUIRED to NULLABLE is allowed"));
    }
    if (old_field.type == FieldType::kRecord) {
      if (absl::Status status =
              CheckFieldsChange(old_field.fields, new_field->fields, path);
          !status.ok()) {
        return status;
      }
    }
  }
  for (const FieldSchema& added : next) {
    if (FindIn(current, added.name) != nullptr) continue;
    if (added.mode == FieldMode::kRequired) {
      return absl::FailedPreconditionError(absl::StrCat(
          "new column '", parent.empty() ? "" : absl::StrCat(parent, "."),
          added.name,
          "' is REQUIRED; columns can only be added as NULLABLE or REPEATED"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view FieldTypeName(FieldType type) {
  for (const TypeSpelling& spelling : kTypeSpellings) {
    if (spelling.type == type) return spelling.name;
  }
  return "STRING";  // Unreachable: every type is spelled.
}

absl::string_view FieldModeName(FieldMode mode) {
  for (const auto& [name, value] : kModes) {
    if (value == mode) return name;
  }
  return "NULLABLE";  // Unreachable: every mode is spelled.
}

absl::StatusOr<FieldType> ParseFieldType(absl::string_view name) {
  for (const TypeSpelling& spelling : kTypeSpellings) {
    if (absl::EqualsIgnoreCase(spelling.name, name)) return spelling.type;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown type '", name,
      "'; accepted: INT64 (INTEGER), FLOAT64 (FLOAT), NUMERIC, BIGNUMERIC, "
      "BOOL (BOOLEAN), STRING, BYTES, DATE, DATETIME, TIME, TIMESTAMP, JSON, "
      "GEOGRAPHY, RECORD (STRUCT)"));
}

absl::StatusOr<FieldMode> ParseFieldMode(absl::string_view name) {
  for (const auto& [spelling, mode] : kModes) {
    if (absl::EqualsIgnoreCase(spelling, name)) return mode;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown mode '", name, "'; accepted: NULLABLE, REQUIRED, REPEATED"));
}

const FieldSchema* TableSchema::Find(absl::string_view name) const {
  return FindIn(fields, name);
}

absl::StatusOr<TableSchema> TableSchemaFromJson(const nlohmann::json& schema) {
  if (!schema.is_object() || !schema.contains("fields") ||
      !schema["fields"].is_array()) {
    return absl::InvalidArgumentError(
        "a table schema is an object with a 'fields' array");
  }
  absl::StatusOr<std::vector<FieldSchema>> fields =
      FieldsFromJson(schema["fields"], "");
  if (!fields.ok()) return fields.status();
  return TableSchema{*std::move(fields)};
}

nlohmann::json TableSchemaToJson(const TableSchema& schema) {
  nlohmann::json fields = nlohmann::json::array();
  for (const FieldSchema& field : schema.fields) {
    fields.push_back(FieldToJson(field));
  }
  return {{"fields", std::move(fields)}};
}

absl::Status CheckCompatibleChange(const TableSchema& current,
                                   const TableSchema& next) {
  return CheckFieldsChange(current.fields, next.fields, "");
}

namespace {

// Applies `updates` toward `wanted` to `fields` in place; true when any
// changed.
absl::StatusOr<bool> UpdateFields(std::vector<FieldSchema>& fields,
                                  const std::vector<FieldSchema>& wanted,
                                  const SchemaUpdates& updates,
                                  const std::string& parent) {
  bool changed = false;
  for (const FieldSchema& want : wanted) {
    const std::string path =
        parent.empty() ? want.name : absl::StrCat(parent, ".", want.name);
    auto it = std::find_if(
        fields.begin(), fields.end(), [&want](const FieldSchema& field) {
          return absl::EqualsIgnoreCase(field.name, want.name);
        });
    if (it == fields.end()) {
      if (!updates.add_fields) continue;
      if (want.mode == FieldMode::kRequired) {
        return absl::FailedPreconditionError(absl::StrCat(
            "column '", path,
            "' is missing from the table and is REQUIRED, and BigQuery adds "
            "columns only as NULLABLE or REPEATED: make it NULLABLE in the "
            "sink's schema, or add it to the table yourself"));
      }
      fields.push_back(want);
      changed = true;
      continue;
    }
    if (it->type != want.type) continue;
    if (updates.relax_fields && it->mode == FieldMode::kRequired &&
        want.mode == FieldMode::kNullable) {
      it->mode = FieldMode::kNullable;
      changed = true;
    }
    if (it->type == FieldType::kRecord) {
      absl::StatusOr<bool> nested =
          UpdateFields(it->fields, want.fields, updates, path);
      if (!nested.ok()) return nested.status();
      changed = changed || *nested;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::optional<TableSchema>> UpdatedSchema(
    const TableSchema& current, const TableSchema& wanted,
    const SchemaUpdates& updates) {
  TableSchema updated = current;
  absl::StatusOr<bool> changed =
      UpdateFields(updated.fields, wanted.fields, updates, "");
  if (!changed.ok()) return changed.status();
  if (!*changed) return std::nullopt;
  return updated;
}

}  // namespace gcpstream::bigquery
