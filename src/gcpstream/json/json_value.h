#ifndef GCPSTREAM_JSON_JSON_VALUE_H_
#define GCPSTREAM_JSON_JSON_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace gcpstream::json {

// JSON types, with numbers told apart by what holds them exactly: a whole
// number in int64, a whole number beyond int64 that fits uint64, and every
// other number (a fraction, an exponent, or a whole number beyond uint64)
// as a double.
enum class JsonType : uint8_t {
  kNull,
  kBoolean,
  kInteger,
  kUnsigned,
  kFloat,
  kString,
  kObject,
  kArray,
};

// "null", "boolean", "number", "string", "object" or "array".
absl::string_view TypeName(JsonType type);

// One value of a validated JSON text, as a view of its bytes: nothing is
// decoded until asked, and a string without escapes is read in place. Valid
// as long as the text it points into (a JsonRecord's bytes).
class JsonValue {
 public:
  // Classifies the value whose text is `raw` (already validated; no
  // surrounding whitespace).
  static JsonValue Of(absl::string_view raw);

  JsonType type() const { return type_; }
  bool is_number() const {
    return type_ == JsonType::kInteger || type_ == JsonType::kUnsigned ||
           type_ == JsonType::kFloat;
  }
  // The value's text as written.
  absl::string_view raw() const { return raw_; }

  bool boolean() const { return raw_.front() == 't'; }
  // Exact for kInteger (and kUnsigned up to INT64_MAX: never, by type).
  int64_t integer() const;
  uint64_t unsigned_integer() const;
  // Any number, as the nearest double.
  double number() const;

  // A string's content, unescaped: a view of the text itself when it has no
  // escapes, else of `scratch`, which holds the decoded bytes.
  absl::string_view string(std::string& scratch) const;
  // Appends a string's content, unescaped, to `out`.
  void AppendString(std::string& out) const;

  // An array's elements, in order.
  std::vector<JsonValue> Elements() const;

  // Appends the value's text without insignificant whitespace.
  void AppendCompact(std::string& out) const;

 private:
  JsonValue(JsonType type, absl::string_view raw, bool escaped)
      : type_(type), escaped_(escaped), raw_(raw) {}

  JsonType type_ = JsonType::kNull;
  bool escaped_ = false;  // A string with at least one backslash escape.
  absl::string_view raw_;
};

// Decodes the escapes of a validated string's content (without quotes),
// appending to `out`.
void AppendUnescaped(absl::string_view content, std::string& out);

}  // namespace gcpstream::json

#endif  // GCPSTREAM_JSON_JSON_VALUE_H_
