#ifndef GCPSTREAM_BASE_FAILED_ELEMENT_H_
#define GCPSTREAM_BASE_FAILED_ELEMENT_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

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
  // resolver supplied; nullopt when the failure came before serialization.
  std::optional<std::string> payload;
  // The original record's attributes, where the connector has them.
  std::map<std::string, std::string> attributes;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_FAILED_ELEMENT_H_
