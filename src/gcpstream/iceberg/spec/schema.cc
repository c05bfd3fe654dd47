#include "gcpstream/iceberg/spec/schema.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::ordered_json;

Json TypeJson(const Type& type);

Json FieldJson(const Field& field) {
  Json out;
  out["id"] = field.id;
  out["name"] = field.name;
  out["required"] = field.required;
  out["type"] = TypeJson(field.type);
  if (!field.doc.empty()) out["doc"] = field.doc;
  return out;
}

Json TypeJson(const Type& type) {
  switch (type.kind) {
    case TypeKind::kStruct: {
      Json fields = Json::array();
      for (const Field& field : type.fields) fields.push_back(FieldJson(field));
      return Json{{"type", "struct"}, {"fields", std::move(fields)}};
    }
    case TypeKind::kList: {
      const Field& element = type.fields.at(0);
      return Json{{"type", "list"},
                  {"element-id", element.id},
                  {"element", TypeJson(element.type)},
                  {"element-required", element.required}};
    }
    case TypeKind::kMap: {
      const Field& key = type.fields.at(0);
      const Field& value = type.fields.at(1);
      return Json{{"type", "map"},
                  {"key-id", key.id},
                  {"key", TypeJson(key.type)},
                  {"value-id", value.id},
                  {"value", TypeJson(value.type)},
                  {"value-required", value.required}};
    }
    default:
      return TypeName(type);
  }
}

absl::Status Malformed(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("malformed Iceberg schema: ", what));
}

absl::StatusOr<Type> TypeFromJson(const Json& json);

absl::StatusOr<Field> FieldFromJson(const Json& json, int32_t id,
                                    std::string name, bool required) {
  absl::StatusOr<Type> type = TypeFromJson(json);
  if (!type.ok()) return type.status();
  return Field{id, std::move(name), required, *std::move(type), ""};
}

absl::StatusOr<Type> PrimitiveFromName(std::string name) {
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  struct Named {
    const char* name;
    TypeKind kind;
  };
  static constexpr Named kKinds[] = {
      {"boolean", TypeKind::kBoolean},
      {"int", TypeKind::kInt},
      {"long", TypeKind::kLong},
      {"float", TypeKind::kFloat},
      {"double", TypeKind::kDouble},
      {"date", TypeKind::kDate},
      {"time", TypeKind::kTime},
      {"timestamp", TypeKind::kTimestamp},
      {"timestamptz", TypeKind::kTimestampTz},
      {"timestamp_ns", TypeKind::kTimestampNs},
      {"timestamptz_ns", TypeKind::kTimestampTzNs},
      {"string", TypeKind::kString},
      {"uuid", TypeKind::kUuid},
      {"binary", TypeKind::kBinary},
      {"variant", TypeKind::kVariant}};
  for (const Named& named : kKinds) {
    if (name == named.name) return Primitive(named.kind);
  }
  // "decimal(P,S)" (Iceberg's Java writes "decimal(P, S)") and "fixed[L]";
  // anything around or between the numbers makes the type unknown.
  absl::string_view rest = name;
  int32_t precision = 0;
  int32_t scale = 0;
  if (absl::ConsumePrefix(&rest, "decimal(") &&
      absl::ConsumeSuffix(&rest, ")")) {
    const std::vector<absl::string_view> parts = absl::StrSplit(rest, ',');
    if (parts.size() == 2 && absl::SimpleAtoi(parts[0], &precision) &&
        absl::SimpleAtoi(parts[1], &scale)) {
      return Decimal(precision, scale);
    }
  }
  rest = name;
  int32_t length = 0;
  if (absl::ConsumePrefix(&rest, "fixed[") && absl::ConsumeSuffix(&rest, "]") &&
      absl::SimpleAtoi(rest, &length)) {
    return Fixed(length);
  }
  return Malformed(absl::StrCat("unknown type '", name, "'"));
}

absl::StatusOr<Type> TypeFromJson(const Json& json) {
  if (json.is_string()) return PrimitiveFromName(json.get<std::string>());
  if (!json.is_object()) {
    return Malformed("a type is neither a name nor an object");
  }
  const std::string kind = json.at("type").get<std::string>();
  if (kind == "struct") {
    std::vector<Field> fields;
    for (const Json& field : json.at("fields")) {
      absl::StatusOr<Field> parsed =
          FieldFromJson(field.at("type"), field.at("id").get<int32_t>(),
                        field.at("name").get<std::string>(),
                        field.at("required").get<bool>());
      if (!parsed.ok()) return parsed.status();
      if (field.contains("doc")) parsed->doc = field["doc"].get<std::string>();
      fields.push_back(*std::move(parsed));
    }
    return Struct(std::move(fields));
  }
  if (kind == "list") {
    absl::StatusOr<Field> element =
        FieldFromJson(json.at("element"), json.at("element-id").get<int32_t>(),
                      "element", json.at("element-required").get<bool>());
    if (!element.ok()) return element.status();
    return List(*std::move(element));
  }
  if (kind == "map") {
    absl::StatusOr<Field> key = FieldFromJson(
        json.at("key"), json.at("key-id").get<int32_t>(), "key", true);
    if (!key.ok()) return key.status();
    absl::StatusOr<Field> value =
        FieldFromJson(json.at("value"), json.at("value-id").get<int32_t>(),
                      "value", json.at("value-required").get<bool>());
    if (!value.ok()) return value.status();
    return Map(*std::move(key), *std::move(value));
  }
  return Malformed(absl::StrCat("unknown nested type '", kind, "'"));
}

void SortByName(std::vector<Field>& fields) {
  std::stable_sort(
      fields.begin(), fields.end(),
      [](const Field& a, const Field& b) { return a.name < b.name; });
}

void SortStructsDeep(Type& type) {
  if (type.kind == TypeKind::kStruct) SortByName(type.fields);
  for (Field& field : type.fields) SortStructsDeep(field.type);
}

}  // namespace

Type Primitive(TypeKind kind) {
  Type type;
  type.kind = kind;
  return type;
}

Type Decimal(int32_t precision, int32_t scale) {
  Type type = Primitive(TypeKind::kDecimal);
  type.precision = precision;
  type.scale = scale;
  return type;
}

Type Fixed(int32_t length) {
  Type type = Primitive(TypeKind::kFixed);
  type.length = length;
  return type;
}

Type Struct(std::vector<Field> fields) {
  Type type = Primitive(TypeKind::kStruct);
  type.fields = std::move(fields);
  return type;
}

Type List(Field element) {
  Type type = Primitive(TypeKind::kList);
  element.name = "element";
  type.fields.push_back(std::move(element));
  return type;
}

Type Map(Field key, Field value) {
  Type type = Primitive(TypeKind::kMap);
  key.name = "key";
  key.required = true;
  value.name = "value";
  type.fields.push_back(std::move(key));
  type.fields.push_back(std::move(value));
  return type;
}

std::string TypeName(const Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kLong:
      return "long";
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kDecimal:
      // With the space Iceberg's own writer puts there (and its parser
      // requires).
      return absl::StrCat("decimal(", type.precision, ", ", type.scale, ")");
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTime:
      return "time";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTimestampTz:
      return "timestamptz";
    case TypeKind::kTimestampNs:
      return "timestamp_ns";
    case TypeKind::kTimestampTzNs:
      return "timestamptz_ns";
    case TypeKind::kString:
      return "string";
    case TypeKind::kUuid:
      return "uuid";
    case TypeKind::kFixed:
      return absl::StrCat("fixed[", type.length, "]");
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kVariant:
      return "variant";
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kList:
      return "list";
    case TypeKind::kMap:
      return "map";
  }
  return "unknown";
}

nlohmann::ordered_json SchemaJson(const Schema& schema) {
  Json fields = Json::array();
  for (const Field& field : schema.fields) fields.push_back(FieldJson(field));
  return Json{{"type", "struct"},
              {"schema-id", schema.schema_id},
              {"fields", std::move(fields)}};
}

std::string SchemaToJson(const Schema& schema) {
  return SchemaJson(schema).dump();
}

absl::StatusOr<Schema> SchemaFromJson(const nlohmann::ordered_json& json) {
  try {
    absl::StatusOr<Type> type = TypeFromJson(json);
    if (!type.ok()) return type.status();
    if (type->kind != TypeKind::kStruct) {
      return Malformed("a schema is not a struct");
    }
    return Schema{json.value("schema-id", 0), std::move(type->fields)};
  } catch (const nlohmann::json::exception& error) {
    return Malformed(error.what());
  }
}

void AssignFreshIds(std::vector<Field>& fields, int32_t& last_id) {
  for (Field& field : fields) field.id = ++last_id;
  for (Field& field : fields) AssignFreshIds(field.type.fields, last_id);
}

Schema Canonical(const Schema& schema) {
  Schema out = schema;
  SortByName(out.fields);
  for (Field& field : out.fields) SortStructsDeep(field.type);
  int32_t last_id = 0;
  AssignFreshIds(out.fields, last_id);
  return out;
}

}  // namespace gcpstream::iceberg
