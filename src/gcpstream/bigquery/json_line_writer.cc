#include "gcpstream/bigquery/json_line_writer.h"

#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/cloud/bigquery/storage/v1/annotations.pb.h"

namespace gcpstream::bigquery {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorProto;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// BigQuery's DATE and TIMESTAMP range: years 1 to 9999.
constexpr int64_t kMinYear = 1;
constexpr int64_t kMaxYear = 9999;

// Every message declared in `proto` (itself included) by full name, as the
// format's pool names them (the row file has no package).
void IndexMessages(const DescriptorProto& proto, const std::string& full_name,
                   std::map<std::string, const DescriptorProto*>& index) {
  index[full_name] = &proto;
  for (const DescriptorProto& nested : proto.nested_type()) {
    IndexMessages(nested, absl::StrCat(full_name, ".", nested.name()), index);
  }
}

std::string ColumnNameOf(const google::protobuf::FieldDescriptorProto& field) {
  namespace storage_v1 = google::cloud::bigquery::storage::v1;
  if (field.options().HasExtension(storage_v1::column_name)) {
    return field.options().GetExtension(storage_v1::column_name);
  }
  return field.name();
}

const FieldSchema* FindColumn(const std::vector<FieldSchema>& columns,
                              absl::string_view name) {
  for (const FieldSchema& column : columns) {
    if (absl::EqualsIgnoreCase(column.name, name)) return &column;
  }
  return nullptr;
}

absl::Status ValueError(const FieldSchema& column, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "column '", column.name, "' (", FieldTypeName(column.type), "): ", what));
}

absl::Status AppendDate(int64_t days, const FieldSchema& column,
                        std::string& out) {
  const absl::CivilDay day = absl::CivilDay(1970, 1, 1) + days;
  if (day.year() < kMinYear || day.year() > kMaxYear) {
    return ValueError(column, absl::StrCat(days,
                                           " days from 1970-01-01 is "
                                           "outside years 1 to 9999"));
  }
  absl::StrAppend(
      &out, "\"",
      absl::StrFormat("%04d-%02d-%02d", day.year(), day.month(), day.day()),
      "\"");
  return absl::OkStatus();
}

absl::Status AppendTimestamp(int64_t micros, const FieldSchema& column,
                             std::string& out) {
  const absl::Time time = absl::FromUnixMicros(micros);
  const absl::CivilSecond civil =
      absl::ToCivilSecond(time, absl::UTCTimeZone());
  if (civil.year() < kMinYear || civil.year() > kMaxYear) {
    return ValueError(column, absl::StrCat(micros,
                                           " microseconds from the epoch is "
                                           "outside years 1 to 9999"));
  }
  absl::StrAppend(
      &out, "\"",
      absl::FormatTime("%Y-%m-%d %H:%M:%E6S UTC", time, absl::UTCTimeZone()),
      "\"");
  return absl::OkStatus();
}

void AppendDouble(double value, std::string& out) {
  if (std::isnan(value)) {
    out += "\"NaN\"";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buffer[32];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, end);
  }
}

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not
// one (overlong forms, surrogates and code points past U+10FFFF included).
size_t Utf8SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t at) {
    return static_cast<unsigned char>(text[at]);
  };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

bool AppendJsonString(absl::string_view text, std::string& out) {
  const size_t start = out.size();
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        out.resize(start);
        return false;
      }
      out.append(text.data() + i, length);
      i += length;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return true;
}

absl::StatusOr<JsonLineWriter> JsonLineWriter::Create(
    const std::shared_ptr<const RowFormat>& format, const TableSchema& schema,
    bool ignore_unknown_fields) {
  const Descriptor* message = format->MessageDescriptor();
  if (message == nullptr) {
    return absl::InternalError(
        "the rows' descriptor does not build into a message");
  }
  JsonLineWriter writer(format, std::make_shared<TableSchema>(schema));
  absl::StatusOr<int> root =
      writer.AddPlan(*message, format->descriptor(), writer.schema_->fields, "",
                     ignore_unknown_fields);
  if (!root.ok()) return root.status();
  writer.row_ = format->NewRow();
  return writer;
}

absl::StatusOr<int> JsonLineWriter::AddPlan(
    const Descriptor& message, const DescriptorProto& proto,
    const std::vector<FieldSchema>& columns, const std::string& path,
    bool ignore_unknown_fields) {
  std::map<std::string, const DescriptorProto*> protos;
  IndexMessages(proto, message.full_name(), protos);
  const int index = static_cast<int>(plans_.size());
  plans_.emplace_back();
  Plan plan;
  for (int i = 0; i < message.field_count(); ++i) {
    const FieldDescriptor* field = message.field(i);
    const std::string name = ColumnNameOf(proto.field(i));
    const std::string column_path =
        path.empty() ? name : absl::StrCat(path, ".", name);
    const FieldSchema* column = FindColumn(columns, name);
    if (column == nullptr) {
      if (ignore_unknown_fields) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "field '", column_path,
          "' of the rows is no column of the table; add the column, or set "
          "option 'ignore-unknown-fields'"));
    }
    Column out{.field = field, .schema = column};
    AppendJsonString(column->name, out.key);
    out.key += ':';
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (column->type != FieldType::kRecord) {
        return absl::InvalidArgumentError(absl::StrCat(
            "field '", column_path, "' is a message but its column is ",
            FieldTypeName(column->type), ", not RECORD"));
      }
      const Descriptor* nested = field->message_type();
      auto found = protos.find(nested->full_name());
      if (found == protos.end()) {
        return absl::InternalError(absl::StrCat(
            "field '", column_path, "': message ", nested->full_name(),
            " is not declared in the rows' descriptor"));
      }
      absl::StatusOr<int> nested_plan =
          AddPlan(*nested, *found->second, column->fields, column_path,
                  ignore_unknown_fields);
      if (!nested_plan.ok()) return nested_plan.status();
      out.nested = *nested_plan;
    }
    plan.push_back(std::move(out));
  }
  plans_[index] = std::move(plan);
  return index;
}

absl::Status JsonLineWriter::AppendLine(const std::string& row,
                                        std::string& out) {
  if (!row_->ParseFromString(row)) {
    return absl::InvalidArgumentError(
        "the encoded row does not parse as its writer schema");
  }
  const size_t start = out.size();
  absl::Status status = AppendObject(*row_, 0, out);
  if (!status.ok()) {
    out.resize(start);
    return status;
  }
  out += '\n';
  return absl::OkStatus();
}

absl::Status JsonLineWriter::AppendObject(const Message& message, int plan,
                                          std::string& out) const {
  const Reflection& reflection = *message.GetReflection();
  out += '{';
  bool first = true;
  for (const Column& column : plans_[plan]) {
    const FieldDescriptor& field = *column.field;
    int count = 1;
    if (field.is_repeated()) {
      count = reflection.FieldSize(message, &field);
      if (count == 0) continue;
    } else if (field.has_presence() && !reflection.HasField(message, &field)) {
      continue;  // NULL.
    }
    if (!first) out += ',';
    first = false;
    out += column.key;
    if (!field.is_repeated()) {
      if (absl::Status status = AppendValue(message, column, -1, out);
          !status.ok()) {
        return status;
      }
      continue;
    }
    out += '[';
    for (int i = 0; i < count; ++i) {
      if (i > 0) out += ',';
      if (absl::Status status = AppendValue(message, column, i, out);
          !status.ok()) {
        return status;
      }
    }
    out += ']';
  }
  out += '}';
  return absl::OkStatus();
}

absl::Status JsonLineWriter::AppendValue(const Message& message,
                                         const Column& column, int index,
                                         std::string& out) const {
  const Reflection& reflection = *message.GetReflection();
  const FieldDescriptor* field = column.field;
  const FieldSchema& schema = *column.schema;
  const bool repeated = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int32_t value =
          repeated ? reflection.GetRepeatedInt32(message, field, index)
                   : reflection.GetInt32(message, field);
      if (schema.type == FieldType::kDate) {
        return AppendDate(value, schema, out);
      }
      absl::StrAppend(&out, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t value =
          repeated ? reflection.GetRepeatedInt64(message, field, index)
                   : reflection.GetInt64(message, field);
      if (schema.type == FieldType::kTimestamp) {
        return AppendTimestamp(value, schema, out);
      }
      if (schema.type == FieldType::kDateTime ||
          schema.type == FieldType::kTime) {
        return ValueError(schema,
                          "packed integer civil times cannot be loaded from "
                          "files; send the column as a string");
      }
      absl::StrAppend(&out, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(
          &out, repeated ? reflection.GetRepeatedUInt32(message, field, index)
                         : reflection.GetUInt32(message, field));
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(
          &out, repeated ? reflection.GetRepeatedUInt64(message, field, index)
                         : reflection.GetUInt64(message, field));
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendDouble(repeated
                       ? reflection.GetRepeatedDouble(message, field, index)
                       : reflection.GetDouble(message, field),
                   out);
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_FLOAT:
      AppendDouble(repeated ? reflection.GetRepeatedFloat(message, field, index)
                            : reflection.GetFloat(message, field),
                   out);
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_BOOL:
      out += (repeated ? reflection.GetRepeatedBool(message, field, index)
                       : reflection.GetBool(message, field))
                 ? "true"
                 : "false";
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_ENUM:
      absl::StrAppend(&out, repeated ? reflection.GetRepeatedEnumValue(
                                           message, field, index)
                                     : reflection.GetEnumValue(message, field));
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& value =
          repeated ? reflection.GetRepeatedStringReference(message, field,
                                                           index, &scratch)
                   : reflection.GetStringReference(message, field, &scratch);
      if (field->type() == FieldDescriptor::TYPE_BYTES) {
        if (schema.type != FieldType::kBytes) {
          return ValueError(schema,
                            "encoded binary values load only into BYTES "
                            "columns; send the column as a string");
        }
        absl::StrAppend(&out, "\"", absl::Base64Escape(value), "\"");
        return absl::OkStatus();
      }
      if (schema.type == FieldType::kJson) {
        // Loaded as the JSON value it holds, re-printed on one line.
        const nlohmann::json json =
            nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
        if (json.is_discarded()) {
          return ValueError(schema, "the value is not JSON text");
        }
        out +=
            json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return absl::OkStatus();
      }
      if (!AppendJsonString(value, out)) {
        return ValueError(schema, "the value is not UTF-8");
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return AppendObject(
          repeated ? reflection.GetRepeatedMessage(message, field, index)
                   : reflection.GetMessage(message, field),
          column.nested, out);
  }
  return ValueError(schema, "unsupported wire type");
}

}  // namespace gcpstream::bigquery
