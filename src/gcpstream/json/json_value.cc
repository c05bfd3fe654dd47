#include "gcpstream/json/json_value.h"

#include <charconv>
#include <cstring>

#include "gcpstream/json/json_scan.h"

namespace gcpstream::json {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

uint32_t Hex4(absl::string_view text) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value = value * 16 + static_cast<uint32_t>(HexDigit(text[i]));
  }
  return value;
}

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

bool IsHighSurrogate(uint32_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool IsLowSurrogate(uint32_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

}  // namespace

absl::string_view TypeName(JsonType type) {
  switch (type) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBoolean:
      return "boolean";
    case JsonType::kInteger:
    case JsonType::kUnsigned:
    case JsonType::kFloat:
      return "number";
    case JsonType::kString:
      return "string";
    case JsonType::kObject:
      return "object";
    case JsonType::kArray:
      return "array";
  }
  return "value";
}

JsonValue JsonValue::Of(absl::string_view raw) {
  switch (raw.front()) {
    case '"':
      return JsonValue(JsonType::kString, raw,
                       std::memchr(raw.data(), '\\', raw.size()) != nullptr);
    case '{':
      return JsonValue(JsonType::kObject, raw, false);
    case '[':
      return JsonValue(JsonType::kArray, raw, false);
    case 't':
    case 'f':
      return JsonValue(JsonType::kBoolean, raw, false);
    case 'n':
      return JsonValue(JsonType::kNull, raw, false);
    default:
      break;
  }
  if (raw.find_first_of(".eE") != absl::string_view::npos) {
    return JsonValue(JsonType::kFloat, raw, false);
  }
  const char* end = raw.data() + raw.size();
  int64_t signed_value = 0;
  if (std::from_chars(raw.data(), end, signed_value).ec == std::errc()) {
    return JsonValue(JsonType::kInteger, raw, false);
  }
  uint64_t unsigned_value = 0;
  if (std::from_chars(raw.data(), end, unsigned_value).ec == std::errc()) {
    return JsonValue(JsonType::kUnsigned, raw, false);
  }
  // A whole number beyond uint64 is held as a double, as most JSON
  // libraries do.
  return JsonValue(JsonType::kFloat, raw, false);
}

int64_t JsonValue::integer() const {
  int64_t value = 0;
  std::from_chars(raw_.data(), raw_.data() + raw_.size(), value);
  return value;
}

uint64_t JsonValue::unsigned_integer() const {
  uint64_t value = 0;
  std::from_chars(raw_.data(), raw_.data() + raw_.size(), value);
  return value;
}

double JsonValue::number() const {
  double value = 0;
  std::from_chars(raw_.data(), raw_.data() + raw_.size(), value);
  return value;
}

absl::string_view JsonValue::string(std::string& scratch) const {
  const absl::string_view content = raw_.substr(1, raw_.size() - 2);
  if (!escaped_) return content;
  scratch.clear();
  AppendUnescaped(content, scratch);
  return scratch;
}

void JsonValue::AppendString(std::string& out) const {
  const absl::string_view content = raw_.substr(1, raw_.size() - 2);
  if (escaped_) {
    AppendUnescaped(content, out);
  } else {
    out.append(content.data(), content.size());
  }
}

std::vector<JsonValue> JsonValue::Elements() const {
  std::vector<JsonValue> elements;
  if (type_ != JsonType::kArray) return elements;
  size_t at = scan::SkipWhitespace(raw_, 1);
  while (at < raw_.size() && raw_[at] != ']') {
    const size_t end = scan::ValueEnd(raw_, at);
    elements.push_back(Of(raw_.substr(at, end - at)));
    at = scan::SkipWhitespace(raw_, end);
    if (at < raw_.size() && raw_[at] == ',') {
      at = scan::SkipWhitespace(raw_, at + 1);
    }
  }
  return elements;
}

void JsonValue::AppendCompact(std::string& out) const {
  if (type_ != JsonType::kObject && type_ != JsonType::kArray) {
    out.append(raw_.data(), raw_.size());
    return;
  }
  out.reserve(out.size() + raw_.size());
  size_t at = 0;
  while (at < raw_.size()) {
    const char c = raw_[at];
    if (c == '"') {
      const size_t end = scan::StringEnd(raw_, at) + 1;
      out.append(raw_.data() + at, end - at);
      at = end;
      continue;
    }
    if (!scan::IsWhitespace(c)) out.push_back(c);
    ++at;
  }
}

void AppendUnescaped(absl::string_view content, std::string& out) {
  size_t at = 0;
  while (at < content.size()) {
    const size_t backslash = content.find('\\', at);
    if (backslash == absl::string_view::npos) {
      out.append(content.data() + at, content.size() - at);
      return;
    }
    out.append(content.data() + at, backslash - at);
    at = backslash + 2;
    switch (content[backslash + 1]) {
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        uint32_t unit = Hex4(content.substr(backslash + 2, 4));
        at = backslash + 6;
        if (IsHighSurrogate(unit) && at + 6 <= content.size() &&
            content[at] == '\\' && content[at + 1] == 'u') {
          const uint32_t low = Hex4(content.substr(at + 2, 4));
          if (IsLowSurrogate(low)) {
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            at += 6;
          }
        }
        // A surrogate left alone has no UTF-8 form.
        if (IsHighSurrogate(unit) || IsLowSurrogate(unit)) unit = 0xFFFD;
        AppendUtf8(unit, out);
        break;
      }
      default:  // '"', '\\', '/'
        out.push_back(content[backslash + 1]);
        break;
    }
  }
}

}  // namespace gcpstream::json
