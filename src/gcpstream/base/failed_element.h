#ifndef GCPSTREAM_BASE_FAILED_ELEMENT_H_
#define GCPSTREAM_BASE_FAILED_ELEMENT_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"

namespace gcpstream {

// The destination of a record the resolver refused to route.
inline constexpr char kUnresolvedDestination[] = "unresolved";

// A record a connector could not write and hands to the failure handler.
// Each connector derives its own type with what else it knows (the Pub/Sub
// message, the Spanner mutation, ...); handlers and dead-letter queues only
// need these fields.
struct FailedElement {
  virtual ~FailedElement() = default;

  // Lower-case connector name: "pubsub", "spanner", "bigtable", ...
  std::string connector;
  // The destination's resource name, or kUnresolvedDestination.
  std::string destination = kUnresolvedDestination;
  // Why: the gRPC status (or the HTTP status mapped to its gRPC code).
  absl::Status status;
  // How many sends were tried before giving up on the record (>= 1; a
  // record refused before any send, e.g. oversized, counts 1).
  int attempts = 1;
  absl::Time failure_time = absl::InfinitePast();
  int subtask_index = 0;
  // The serialized record (message data, row, mutation) or a payload the
  // resolver supplied. For a serialization failure, what the serializer
  // attached to its error with WithRecordPayload(), else nullopt.
  std::optional<std::string> payload;
  // The original record's attributes, where the connector has them.
  std::map<std::string, std::string> attributes;
};

// A serializer that refuses a record may attach a portable form of it (e.g.
// its JSON) to the error, so that the dead-letter entry carries the record.
inline constexpr char kRecordPayloadUrl[] = "gcpstream.dev/record-payload";

inline absl::Status WithRecordPayload(absl::Status status,
                                      absl::string_view record) {
  status.SetPayload(kRecordPayloadUrl, absl::Cord(record));
  return status;
}

// What WithRecordPayload() attached, if anything.
inline std::optional<std::string> RecordPayloadOf(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kRecordPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_FAILED_ELEMENT_H_
