#include "gcpstream/spanner/spanner_value.h"

#include <cmath>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace gcpstream::spanner {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

constexpr char kCommitTimestampPlaceholder[] = "spanner.commit_timestamp()";

std::string FormatTimestamp(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", time, absl::UTCTimeZone());
}

// Spanner wants non-finite floats as strings.
template <typename F>
void SetFloat(F v, google::protobuf::Value& out) {
  if (std::isnan(v)) {
    out.set_string_value("NaN");
  } else if (std::isinf(v)) {
    out.set_string_value(v > 0 ? "Infinity" : "-Infinity");
  } else {
    out.set_number_value(static_cast<double>(v));
  }
}

}  // namespace

const char* TypeCodeName(TypeCode code) {
  switch (code) {
    case TypeCode::kBool:
      return "BOOL";
    case TypeCode::kInt64:
      return "INT64";
    case TypeCode::kFloat32:
      return "FLOAT32";
    case TypeCode::kFloat64:
      return "FLOAT64";
    case TypeCode::kNumeric:
      return "NUMERIC";
    case TypeCode::kString:
      return "STRING";
    case TypeCode::kBytes:
      return "BYTES";
    case TypeCode::kDate:
      return "DATE";
    case TypeCode::kTimestamp:
      return "TIMESTAMP";
    case TypeCode::kJson:
      return "JSON";
    case TypeCode::kArray:
      return "ARRAY";
  }
  return "UNKNOWN";
}

std::optional<TypeCode> Value::type() const {
  return std::visit(
      Overloaded{
          [](const Null&) -> std::optional<TypeCode> { return std::nullopt; },
          [](bool) -> std::optional<TypeCode> { return TypeCode::kBool; },
          [](int64_t) -> std::optional<TypeCode> { return TypeCode::kInt64; },
          [](float) -> std::optional<TypeCode> { return TypeCode::kFloat32; },
          [](double) -> std::optional<TypeCode> { return TypeCode::kFloat64; },
          [](const Numeric&) -> std::optional<TypeCode> {
            return TypeCode::kNumeric;
          },
          [](const std::string&) -> std::optional<TypeCode> {
            return TypeCode::kString;
          },
          [](const Bytes&) -> std::optional<TypeCode> {
            return TypeCode::kBytes;
          },
          [](const absl::CivilDay&) -> std::optional<TypeCode> {
            return TypeCode::kDate;
          },
          [](const absl::Time&) -> std::optional<TypeCode> {
            return TypeCode::kTimestamp;
          },
          [](const CommitTimestamp&) -> std::optional<TypeCode> {
            return TypeCode::kTimestamp;
          },
          [](const Json&) -> std::optional<TypeCode> {
            return TypeCode::kJson;
          },
          [](const Array&) -> std::optional<TypeCode> {
            return TypeCode::kArray;
          },
      },
      data_);
}

google::protobuf::Value Value::ToProto() const {
  google::protobuf::Value out;
  ToProto(&out);
  return out;
}

void Value::ToProto(google::protobuf::Value* out_ptr) const {
  google::protobuf::Value& out = *out_ptr;
  std::visit(Overloaded{
                 [&](const Null&) { out.set_null_value({}); },
                 [&](bool v) { out.set_bool_value(v); },
                 [&](int64_t v) {
                   const absl::AlphaNum digits(v);  // No heap string.
                   out.set_string_value(digits.data(), digits.size());
                 },
                 [&](float v) { SetFloat(v, out); },
                 [&](double v) { SetFloat(v, out); },
                 [&](const Numeric& v) { out.set_string_value(v.text); },
                 [&](const std::string& v) { out.set_string_value(v); },
                 [&](const Bytes& v) {
                   out.set_string_value(absl::Base64Escape(v.data));
                 },
                 [&](const absl::CivilDay& v) {
                   out.set_string_value(absl::FormatCivilTime(v));
                 },
                 [&](const absl::Time& v) {
                   out.set_string_value(FormatTimestamp(v));
                 },
                 [&](const CommitTimestamp&) {
                   out.set_string_value(kCommitTimestampPlaceholder);
                 },
                 [&](const Json& v) { out.set_string_value(v.text); },
                 [&](const Array& v) {
                   auto& list = *out.mutable_list_value();
                   for (const Value& element : v) {
                     element.ToProto(list.add_values());
                   }
                 },
             },
             data_);
}

nlohmann::json Value::ToJson() const {
  const google::protobuf::Value proto = ToProto();
  std::function<nlohmann::json(const google::protobuf::Value&)> convert =
      [&](const google::protobuf::Value& v) -> nlohmann::json {
    switch (v.kind_case()) {
      case google::protobuf::Value::kBoolValue:
        return v.bool_value();
      case google::protobuf::Value::kNumberValue:
        return v.number_value();
      case google::protobuf::Value::kStringValue:
        return v.string_value();
      case google::protobuf::Value::kListValue: {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& element : v.list_value().values()) {
          list.push_back(convert(element));
        }
        return list;
      }
      default:
        return nullptr;
    }
  };
  return convert(proto);
}

}  // namespace gcpstream::spanner
