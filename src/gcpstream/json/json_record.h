#ifndef GCPSTREAM_JSON_JSON_RECORD_H_
#define GCPSTREAM_JSON_JSON_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/json/json_value.h"
#include "gcpstream/json/padded_bytes.h"
#include "gcpstream/json/record_scanner.h"

namespace gcpstream::json {

// One JSON value kept as its text, validated once and indexed: every member
// of every object reachable through objects from the root is found by name
// without parsing again, and no tree is built. A field that is a string is
// read in place. This is what pipeline files carry from source to sinks
// (docs/adr/0008).
//
// Accepted: RFC 8259 JSON in UTF-8. Duplicate keys are kept and the last
// one wins on lookup; a whole number beyond uint64 is a kFloat. Refused:
// invalid UTF-8, more than 1023 levels of non-empty arrays or objects,
// anything after the value.
class JsonRecord {
 public:
  // The members of the root object (when the root is one) are children of
  // kRoot.
  static constexpr uint32_t kRoot = UINT32_MAX;

  // `null`.
  JsonRecord();

  // Validates and indexes `text` (one JSON value; whitespace around it is
  // ignored). InvalidArgument says what is wrong and at which byte.
  static absl::StatusOr<JsonRecord> Parse(PaddedBytes text);
  static absl::StatusOr<JsonRecord> Parse(absl::string_view text) {
    return Parse(PaddedBytes::Copy(text));
  }
  // For records made in code (tests, generators): `value`'s text.
  static JsonRecord FromTree(const nlohmann::json& value);

  // The value's text as read, without surrounding whitespace.
  absl::string_view text() const { return text_; }
  JsonValue root() const { return JsonValue::Of(text_); }

  // The member `name` of the object at `at` (kRoot or a member whose value
  // is an object); the last of several with that name. nullopt when absent
  // or when `at` is not an object.
  std::optional<uint32_t> Child(uint32_t at, absl::string_view name) const;
  // The value at `at` (kRoot: the root).
  JsonValue ValueAt(uint32_t at) const;

  // The text without insignificant whitespace (keys in the order written).
  std::string CompactText() const;
  // A tree of the value, for code that needs one (built on every call).
  nlohmann::json Tree() const;

 private:
  using Member = IndexedMember;

  absl::string_view KeyOf(const Member& member) const;

  PaddedBytes bytes_;
  absl::string_view text_;
  MemberIndex members_;
  std::string escaped_keys_;  // Keys with escapes, decoded (rare).
};

}  // namespace gcpstream::json

#endif  // GCPSTREAM_JSON_JSON_RECORD_H_
