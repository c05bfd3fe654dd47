#ifndef GCPSTREAM_CONFIG_TRANSFORM_H_
#define GCPSTREAM_CONFIG_TRANSFORM_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/field_path.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/runtime/data_stream.h"

namespace gcpstream::config {

// One step of a pipeline file's `transforms:` list, applied in order
// between the source and the sinks:
//   - {type: filter, field: status, equals: paid}  # keep when equal
//   - {type: filter, field: region}                # keep when present
//   - {type: key-by, field: customer_id}           # same key, same subtask
// A filter drops records that do not match (not a failure: nothing is
// counted as refused). key-by routes a record without the field, or with
// one a key cannot hold, as the empty key.
struct Transform {
  enum class Kind { kFilter, kKeyBy };
  Kind kind = Kind::kFilter;
  FieldPath field;
  std::optional<std::string> equals = std::nullopt;

  // Keeps the record? (filter)
  bool Keeps(const Record& record) const;
  // Its key (key-by): the field's text, or "".
  std::string KeyOf(const Record& record) const;
  runtime::DataStream<Record> ApplyTo(runtime::DataStream<Record> stream) const;
};

absl::StatusOr<Transform> ReadTransform(OptionMap& options);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_TRANSFORM_H_
