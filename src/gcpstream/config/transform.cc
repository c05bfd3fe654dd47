#include "gcpstream/config/transform.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/config/destination_template.h"

namespace gcpstream::config {
namespace {

inline constexpr EnumSpelling<Transform::Kind> kTransformKinds[] = {
    {"filter", Transform::Kind::kFilter}, {"key-by", Transform::Kind::kKeyBy}};
inline constexpr EnumOption<Transform::Kind> kTransformKindOption(
    "type", kTransformKinds);

}  // namespace

bool Transform::Keeps(const Record& record) const {
  absl::StatusOr<json::JsonValue> value = field.Find(record);
  if (!value.ok()) return false;
  if (!equals.has_value()) return true;
  if (value->type() == json::JsonType::kString) {
    std::string scratch;
    return value->string(scratch) == *equals;
  }
  absl::StatusOr<std::string> text = FieldText(*value, field.text());
  return text.ok() && *text == *equals;
}

std::string Transform::KeyOf(const Record& record) const {
  absl::StatusOr<json::JsonValue> value = field.Find(record);
  if (!value.ok()) return "";
  absl::StatusOr<std::string> text = FieldText(*value, field.text());
  return text.ok() ? *std::move(text) : "";
}

runtime::DataStream<Record> Transform::ApplyTo(
    runtime::DataStream<Record> stream) const {
  if (kind == Kind::kFilter) {
    return stream.Filter(
        [self = *this](const Record& record) { return self.Keeps(record); });
  }
  return stream.KeyBy(
      [self = *this](const Record& record) { return self.KeyOf(record); });
}

absl::StatusOr<Transform> ReadTransform(OptionMap& options) {
  absl::StatusOr<std::optional<Transform::Kind>> kind =
      options.Enum(kTransformKindOption);
  if (!kind.ok()) return kind.status();
  if (!kind->has_value()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(),
                                    ": option 'type' is required; accepted "
                                    "values: filter, key-by"));
  }
  absl::StatusOr<std::string> text = options.RequiredString("field");
  if (!text.ok()) return text.status();
  absl::StatusOr<FieldPath> field = FieldPath::Parse(*text);
  if (!field.ok()) {
    return ConfigError(options.PositionOf("field"),
                       absl::StrCat(options.what(), ": option 'field': ",
                                    field.status().message()));
  }
  Transform transform{.kind = **kind, .field = *std::move(field)};
  if (transform.kind == Transform::Kind::kFilter) {
    absl::StatusOr<std::optional<std::string>> equals =
        options.String("equals");
    if (!equals.ok()) return equals.status();
    transform.equals = *std::move(equals);
  }
  if (absl::Status unknown = options.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return transform;
}

}  // namespace gcpstream::config
