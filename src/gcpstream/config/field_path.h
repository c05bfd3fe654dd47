#ifndef GCPSTREAM_CONFIG_FIELD_PATH_H_
#define GCPSTREAM_CONFIG_FIELD_PATH_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/json/json_record.h"

namespace gcpstream::config {

// A path to a field of a JSON record: names separated by dots, e.g.
// "customer.address.region". A name is [A-Za-z_][A-Za-z0-9_-]*; there is no
// array indexing.
class FieldPath {
 public:
  // InvalidArgument describing the first bad character and its offset.
  static absl::StatusOr<FieldPath> Parse(absl::string_view text);

  // The field, or InvalidArgument naming the path when a step is missing or
  // not an object (a record that does not fit: routed per the sink's
  // policy, never a crash).
  absl::StatusOr<json::JsonValue> Find(const json::JsonRecord& record) const;

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> names_;
};

// A field as payload bytes (message data, a task body, a cell): a string's
// content, any other value's JSON text without insignificant whitespace.
std::string PayloadText(const json::JsonValue& value);
// The same, appended to `out`.
void AppendPayloadText(const json::JsonValue& value, std::string& out);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_FIELD_PATH_H_
