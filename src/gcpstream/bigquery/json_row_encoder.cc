#include "gcpstream/bigquery/json_row_encoder.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/change_columns.h"
#include "gcpstream/bigquery/civil_values.h"
#include "gcpstream/bigquery/row_descriptor.h"

namespace gcpstream::bigquery {
namespace {

using Json = nlohmann::json;

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
};

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void AppendTag(int number, WireType type, std::string& out) {
  AppendVarint((static_cast<uint64_t>(number) << 3) | type, out);
}

void AppendBytes(int number, const std::string& bytes, std::string& out) {
  AppendTag(number, kLengthDelimited, out);
  AppendVarint(bytes.size(), out);
  out.append(bytes);
}

void AppendDouble(int number, double value, std::string& out) {
  AppendTag(number, kFixed64, out);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>(bits >> (8 * i)));
  }
}

// The value's JSON text; a string holding invalid UTF-8 is refused rather
// than stored altered.
absl::StatusOr<std::string> Dump(const Json& value) {
  try {
    return value.dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const Json::exception&) {
    return absl::InvalidArgumentError("the value holds invalid UTF-8");
  }
}

// The value's JSON text for messages, shortened.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 64) text = absl::StrCat(text.substr(0, 61), "...");
  return text;
}

struct Context {
  const JsonRowEncoderOptions& options;
  // A CDC delete needs only its key: REQUIRED columns may be missing.
  bool deleting = false;
};

absl::Status EncodeFields(const std::vector<FieldSchema>& fields,
                          const Json& object, const std::string& parent,
                          const Context& context, std::string& out);

absl::Status Refuse(const std::string& path, const FieldSchema& field,
                    absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "column '", path, "' (", FieldTypeName(field.type), "): ", why));
}

absl::StatusOr<int64_t> ToInt64(const Json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError("out of INT64's range");
    }
    return value.get<int64_t>();
  }
  int64_t parsed = 0;
  if (value.is_string() &&
      absl::SimpleAtoi(value.get_ref<const std::string&>(), &parsed)) {
    return parsed;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::trunc(d) == d && std::fabs(d) < 9.007199254740992e15) {
      return static_cast<int64_t>(d);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Shown(value), " is not an integer"));
}

absl::StatusOr<double> ToDouble(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    double parsed = 0;
    if (absl::SimpleAtod(text, &parsed) && std::isfinite(parsed)) return parsed;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Shown(value), " is not a number"));
}

absl::StatusOr<bool> ToBool(const Json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (absl::EqualsIgnoreCase(text, "true")) return true;
    if (absl::EqualsIgnoreCase(text, "false")) return false;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Shown(value), " is not a boolean"));
}

absl::StatusOr<std::string> ToText(const Json& value, absl::string_view form) {
  if (value.is_string()) return value.get<std::string>();
  return absl::InvalidArgumentError(
      absl::StrCat(Shown(value), " is not a string (", form, ")"));
}

// One non-null value of `field` (an element, for a REPEATED one).
absl::Status EncodeValue(const FieldSchema& field, int number,
                         const Json& value, const std::string& path,
                         const Context& context, std::string& out) {
  absl::Status status;
  switch (field.type) {
    case FieldType::kInt64: {
      absl::StatusOr<int64_t> v = ToInt64(value);
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendTag(number, kVarint, out);
      AppendVarint(static_cast<uint64_t>(*v), out);
      return absl::OkStatus();
    }
    case FieldType::kFloat64: {
      absl::StatusOr<double> v = ToDouble(value);
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendDouble(number, *v, out);
      return absl::OkStatus();
    }
    case FieldType::kNumeric:
    case FieldType::kBigNumeric: {
      const bool big = field.type == FieldType::kBigNumeric;
      if (!value.is_string() && !value.is_number()) {
        return Refuse(path, field,
                      absl::StrCat(Shown(value), " is not a decimal number"));
      }
      absl::StatusOr<std::string> v = ParseDecimal(
          value.is_string() ? value.get<std::string>() : value.dump(),
          big ? 38 : 29, big ? 38 : 9);
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendBytes(number, *v, out);
      return absl::OkStatus();
    }
    case FieldType::kBool: {
      absl::StatusOr<bool> v = ToBool(value);
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendTag(number, kVarint, out);
      AppendVarint(*v ? 1 : 0, out);
      return absl::OkStatus();
    }
    case FieldType::kString: {
      if (value.is_object() || value.is_array()) {
        return Refuse(path, field,
                      "an object or array is not a string; map the column to "
                      "a JSON column, or to a scalar field");
      }
      AppendBytes(number,
                  value.is_string() ? value.get<std::string>() : value.dump(),
                  out);
      return absl::OkStatus();
    }
    case FieldType::kBytes: {
      std::string bytes;
      if (!value.is_string() ||
          !absl::Base64Unescape(value.get_ref<const std::string&>(), &bytes)) {
        return Refuse(path, field,
                      absl::StrCat(Shown(value), " is not base64 text"));
      }
      AppendBytes(number, bytes, out);
      return absl::OkStatus();
    }
    case FieldType::kDate: {
      absl::StatusOr<std::string> text = ToText(value, "YYYY-MM-DD");
      absl::StatusOr<int32_t> v =
          text.ok() ? ParseDate(*text) : absl::StatusOr<int32_t>(text.status());
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendTag(number, kVarint, out);
      // int32 negatives are sign-extended to ten bytes on the wire.
      AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(*v)), out);
      return absl::OkStatus();
    }
    case FieldType::kDateTime:
    case FieldType::kTime: {
      const bool datetime = field.type == FieldType::kDateTime;
      absl::StatusOr<std::string> text =
          ToText(value, datetime ? "YYYY-MM-DD HH:MM:SS[.ffffff]"
                                 : "HH:MM:SS[.ffffff]");
      if (text.ok()) text = datetime ? ParseDateTime(*text) : ParseTime(*text);
      if (!text.ok()) return Refuse(path, field, text.status().message());
      AppendBytes(number, *text, out);
      return absl::OkStatus();
    }
    case FieldType::kTimestamp: {
      absl::StatusOr<int64_t> v =
          value.is_number() ? TimestampFromSeconds(value.get<double>())
          : value.is_string()
              ? ParseTimestamp(value.get_ref<const std::string&>())
              : absl::InvalidArgumentError(absl::StrCat(
                    Shown(value),
                    " is neither a date-time text nor seconds since the "
                    "epoch"));
      if (!v.ok()) return Refuse(path, field, v.status().message());
      AppendTag(number, kVarint, out);
      AppendVarint(static_cast<uint64_t>(*v), out);
      return absl::OkStatus();
    }
    case FieldType::kJson: {
      absl::StatusOr<std::string> text = Dump(value);
      if (!text.ok()) return Refuse(path, field, text.status().message());
      AppendBytes(number, *text, out);
      return absl::OkStatus();
    }
    case FieldType::kGeography: {
      if (!value.is_string() && !value.is_object()) {
        return Refuse(path, field,
                      absl::StrCat(Shown(value),
                                   " is neither WKT / GeoJSON text nor a "
                                   "GeoJSON object"));
      }
      absl::StatusOr<std::string> text =
          value.is_string() ? value.get<std::string>() : Dump(value);
      if (!text.ok()) return Refuse(path, field, text.status().message());
      AppendBytes(number, *text, out);
      return absl::OkStatus();
    }
    case FieldType::kRecord: {
      if (!value.is_object()) {
        return Refuse(path, field,
                      absl::StrCat(Shown(value), " is not an object"));
      }
      std::string nested;
      status = EncodeFields(field.fields, value, path, context, nested);
      if (!status.ok()) return status;
      AppendBytes(number, nested, out);
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

absl::Status EncodeField(const FieldSchema& field, int number,
                         const Json* value, const std::string& path,
                         const Context& context, std::string& out) {
  if (value == nullptr || value->is_null()) {
    if (field.mode == FieldMode::kRequired && !context.deleting) {
      return Refuse(path, field,
                    "the column is REQUIRED and the record has "
                    "no value for it");
    }
    return absl::OkStatus();
  }
  if (field.mode != FieldMode::kRepeated) {
    return EncodeValue(field, number, *value, path, context, out);
  }
  if (!value->is_array()) {
    return Refuse(path, field,
                  absl::StrCat("the column is REPEATED and ", Shown(*value),
                               " is not an array"));
  }
  size_t index = 0;
  for (const Json& element : *value) {
    const std::string element_path = absl::StrCat(path, "[", index++, "]");
    if (element.is_null()) {
      return Refuse(element_path, field,
                    "an array element is null, which BigQuery arrays cannot "
                    "hold");
    }
    absl::Status status =
        EncodeValue(field, number, element, element_path, context, out);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status EncodeFields(const std::vector<FieldSchema>& fields,
                          const Json& object, const std::string& parent,
                          const Context& context, std::string& out) {
  size_t matched = 0;
  int number = 0;
  for (const FieldSchema& field : fields) {
    ++number;
    const std::string path =
        parent.empty() ? field.name : absl::StrCat(parent, ".", field.name);
    const Json* value = nullptr;
    if (auto it = object.find(field.name); it != object.end()) {
      value = &*it;
    } else {
      for (auto entry = object.begin(); entry != object.end(); ++entry) {
        if (absl::EqualsIgnoreCase(entry.key(), field.name)) {
          value = &entry.value();
          break;
        }
      }
    }
    if (value != nullptr) ++matched;
    absl::Status status = EncodeField(field, number, value, path, context, out);
    if (!status.ok()) return status;
  }
  if (matched < object.size() && !context.options.ignore_unknown_fields) {
    for (auto entry = object.begin(); entry != object.end(); ++entry) {
      // The CDC fields are the row's, not columns.
      bool known = parent.empty() &&
                   (entry.key() == context.options.change_type_field ||
                    entry.key() == context.options.change_sequence_field);
      for (const FieldSchema& field : fields) {
        known = known || absl::EqualsIgnoreCase(entry.key(), field.name);
      }
      if (!known) {
        return absl::InvalidArgumentError(absl::StrCat(
            "field '", parent.empty() ? "" : absl::StrCat(parent, "."),
            entry.key(),
            "' is not a column of the table; add the column (or give it "
            "to the sink's schema with schema-update-options "
            "[allow-field-addition]), or set ignore-unknown-fields"));
      }
    }
  }
  return absl::OkStatus();
}

// The record's value of CDC field `name` (option `key`), checked by
// `parse`.
absl::StatusOr<std::string> ChangeValue(
    const Json& record, const std::string& name, absl::string_view key,
    absl::StatusOr<std::string> (*parse)(const nlohmann::json&)) {
  const auto it = record.find(name);
  if (it == record.end() || it->is_null()) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", name, "' (option '", key,
                     "') is missing: every record of a CDC sink needs it"));
  }
  absl::StatusOr<std::string> value = parse(*it);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "field '", name, "' (option '", key, "'): ", value.status().message()));
  }
  return value;
}

void AddChangeColumn(const char* name,
                     google::protobuf::DescriptorProto& descriptor) {
  google::protobuf::FieldDescriptorProto& field = *descriptor.add_field();
  field.set_name(name);
  field.set_number(descriptor.field_size());
  field.set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
  field.set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
}

}  // namespace

JsonRowEncoder::JsonRowEncoder(TableSchema schema,
                               JsonRowEncoderOptions options)
    : schema_(std::move(schema)),
      options_(std::move(options)),
      descriptor_(RowDescriptorFor(schema_)) {
  if (!options_.change_type_field.empty()) {
    AddChangeColumn(kChangeTypeColumn, descriptor_);
  }
  if (!options_.change_sequence_field.empty()) {
    AddChangeColumn(kChangeSequenceColumn, descriptor_);
  }
}

absl::Status JsonRowEncoder::Encode(const nlohmann::json& record,
                                    std::string& out) const {
  out.clear();
  if (!record.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the record is not a JSON object but ", Shown(record),
                     "; each record becomes one row, its fields the columns"));
  }
  std::string change_type;
  std::string sequence;
  if (!options_.change_type_field.empty()) {
    absl::StatusOr<std::string> value =
        ChangeValue(record, options_.change_type_field, kChangeTypeFieldKey,
                    ParseChangeType);
    if (!value.ok()) return value.status();
    change_type = *std::move(value);
  }
  if (!options_.change_sequence_field.empty()) {
    absl::StatusOr<std::string> value =
        ChangeValue(record, options_.change_sequence_field,
                    kChangeSequenceFieldKey, ParseChangeSequence);
    if (!value.ok()) return value.status();
    sequence = *std::move(value);
  }
  const Context context{.options = options_,
                        .deleting = change_type == "DELETE"};
  if (absl::Status status =
          EncodeFields(schema_.fields, record, "", context, out);
      !status.ok()) {
    return status;
  }
  // The pseudo-columns follow the columns (AddChangeColumn's numbers).
  int number = static_cast<int>(schema_.fields.size());
  if (!change_type.empty()) AppendBytes(++number, change_type, out);
  if (!sequence.empty()) AppendBytes(++number, sequence, out);
  return absl::OkStatus();
}

}  // namespace gcpstream::bigquery
