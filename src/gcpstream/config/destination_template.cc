#include "gcpstream/config/destination_template.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gcpstream::config {
namespace {

constexpr absl::string_view kEventTime = "event_time";
constexpr absl::string_view kAllowedTimeDirectives = "YmdHMSj";

absl::Status CheckTimeFormat(absl::string_view format) {
  if (format.empty()) {
    return absl::InvalidArgumentError(
        "{event_time:...} needs a format, e.g. {event_time:%Y%m%d}");
  }
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if (c == '%') {
      if (i + 1 == format.size() ||
          !absl::StrContains(kAllowedTimeDirectives, format[i + 1])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "event_time format '", format,
            "': only %Y %m %d %H %M %S %j are allowed (they give digits, "
            "which every destination name accepts)"));
      }
      ++i;
    } else if (!absl::ascii_isalnum(c) && c != '-' && c != '_') {
      return absl::InvalidArgumentError(absl::StrCat(
          "event_time format '", format, "': character '", format.substr(i, 1),
          "' is not allowed (letters, digits, '-', '_')"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t StableHash(absl::string_view bytes) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

absl::Status AppendFieldText(const json::JsonValue& value,
                             absl::string_view field, std::string& out) {
  switch (value.type()) {
    case json::JsonType::kString:
      value.AppendString(out);
      return absl::OkStatus();
    case json::JsonType::kInteger:
      absl::StrAppend(&out, value.integer());
      return absl::OkStatus();
    case json::JsonType::kUnsigned:
      absl::StrAppend(&out, value.unsigned_integer());
      return absl::OkStatus();
    case json::JsonType::kBoolean:
      out += value.boolean() ? "true" : "false";
      return absl::OkStatus();
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "field '", field, "' is ",
      value.type() == json::JsonType::kFloat ? "a number with a fraction part"
                                             : json::TypeName(value.type()),
      "; a destination name takes a string, a whole number or a boolean"));
}

absl::StatusOr<std::string> FieldText(const json::JsonValue& value,
                                      absl::string_view field) {
  std::string out;
  if (absl::Status status = AppendFieldText(value, field, out); !status.ok()) {
    return status;
  }
  return out;
}

absl::StatusOr<DestinationTemplate::Part> DestinationTemplate::ParsePlaceholder(
    absl::string_view inner) {
  if (absl::ConsumePrefix(&inner, kEventTime)) {
    if (!absl::ConsumePrefix(&inner, ":")) {
      return absl::InvalidArgumentError(
          "{event_time} needs a format, e.g. {event_time:%Y%m%d}");
    }
    if (absl::Status status = CheckTimeFormat(inner); !status.ok()) {
      return status;
    }
    return EventTime{std::string(inner)};
  }
  if (absl::ConsumePrefix(&inner, "hash(")) {
    const size_t close = inner.find(')');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError("hash( is not closed with ')'");
    }
    absl::StatusOr<FieldPath> path =
        FieldPath::Parse(absl::StripAsciiWhitespace(inner.substr(0, close)));
    if (!path.ok()) return path.status();
    absl::string_view rest =
        absl::StripAsciiWhitespace(inner.substr(close + 1));
    uint64_t modulus = 0;
    if (!absl::ConsumePrefix(&rest, "%") ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &modulus) ||
        modulus < 1 || modulus > (uint64_t{1} << 31)) {
      return absl::InvalidArgumentError(
          "hash(field) must be followed by '% N' with N a whole number from 1 "
          "to 2147483648, e.g. {hash(customer_id) % 4}");
    }
    return Hash{*std::move(path), modulus};
  }
  absl::StatusOr<FieldPath> path = FieldPath::Parse(inner);
  if (!path.ok()) return path.status();
  return Field{*std::move(path)};
}

absl::StatusOr<DestinationTemplate> DestinationTemplate::Parse(
    absl::string_view text) {
  DestinationTemplate result;
  result.text_ = std::string(text);
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') {
      return absl::InvalidArgumentError(absl::StrCat(
          "template '", text, "': '}' at offset ", i, " closes nothing"));
    }
    if (text[i] != '{') {
      literal.push_back(text[i]);
      continue;
    }
    const size_t close = text.find('}', i + 1);
    const size_t nested = text.find('{', i + 1);
    if (close == absl::string_view::npos || nested < close) {
      return absl::InvalidArgumentError(absl::StrCat(
          "template '", text, "': '{' at offset ", i, " is not closed"));
    }
    absl::StatusOr<Part> part =
        ParsePlaceholder(text.substr(i + 1, close - i - 1));
    if (!part.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("template '", text, "', placeholder at offset ", i, ": ",
                       part.status().message()));
    }
    if (!literal.empty()) {
      result.parts_.emplace_back(Literal{std::move(literal)});
    }
    literal.clear();
    result.parts_.push_back(*std::move(part));
    i = close;
  }
  if (!literal.empty()) result.parts_.emplace_back(Literal{std::move(literal)});
  if (result.parts_.empty()) {
    return absl::InvalidArgumentError("a destination name cannot be empty");
  }
  return result;
}

bool DestinationTemplate::constant() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const Part& part) {
    return std::holds_alternative<Literal>(part);
  });
}

absl::StatusOr<std::string> DestinationTemplate::Render(
    const json::JsonRecord& record, absl::Time event_time) const {
  std::string out;
  if (absl::Status status = RenderTo(record, event_time, out); !status.ok()) {
    return status;
  }
  return out;
}

absl::Status DestinationTemplate::RenderTo(const json::JsonRecord& record,
                                           absl::Time event_time,
                                           std::string& out) const {
  for (const Part& part : parts_) {
    if (const auto* literal = std::get_if<Literal>(&part)) {
      out += literal->text;
    } else if (const auto* time = std::get_if<EventTime>(&part)) {
      if (event_time == absl::InfinitePast() ||
          event_time == absl::InfiniteFuture()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "template '", text_, "' uses event_time, but the record has none"));
      }
      out += absl::FormatTime(time->format, event_time, absl::UTCTimeZone());
    } else {
      const FieldPath& path = std::holds_alternative<Field>(part)
                                  ? std::get<Field>(part).path
                                  : std::get<Hash>(part).path;
      absl::StatusOr<json::JsonValue> value = path.Find(record);
      if (!value.ok()) return value.status();
      if (const auto* hash = std::get_if<Hash>(&part)) {
        std::string field;
        absl::Status text = AppendFieldText(*value, path.text(), field);
        if (!text.ok()) return text;
        absl::StrAppend(&out, StableHash(field) % hash->modulus);
      } else if (absl::Status text = AppendFieldText(*value, path.text(), out);
                 !text.ok()) {
        return text;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::config
