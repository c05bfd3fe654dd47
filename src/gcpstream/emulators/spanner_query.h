#ifndef GCPSTREAM_EMULATORS_SPANNER_QUERY_H_
#define GCPSTREAM_EMULATORS_SPANNER_QUERY_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"

namespace gcpstream::emulators {

// Every row `sql` returns from `database` (full resource name), each value
// as Spanner's JSON wire form gives it as a string ("NULL" for null): how
// `run --local` counts what landed and tests read back what a sink wrote.
// Uses a session of its own; Unavailable naming the call when it fails.
absl::StatusOr<std::vector<std::vector<std::string>>> QuerySpanner(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& database,
    const std::string& sql);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_SPANNER_QUERY_H_
