#ifndef GCPSTREAM_CONFIG_FIELD_PATH_H_
#define GCPSTREAM_CONFIG_FIELD_PATH_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

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
  absl::StatusOr<const nlohmann::json*> Find(
      const nlohmann::json& record) const;

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> names_;
};

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_FIELD_PATH_H_
