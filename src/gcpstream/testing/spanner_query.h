#ifndef GCPSTREAM_TESTING_SPANNER_QUERY_H_
#define GCPSTREAM_TESTING_SPANNER_QUERY_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"

namespace gcpstream::testing {

// Every row `sql` returns from `database` (full resource name), each value
// as Spanner's JSON wire form gives it as a string ("NULL" for null), so a
// test can read back what a sink wrote. Uses a session of its own.
absl::StatusOr<std::vector<std::vector<std::string>>> QuerySpanner(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& database,
    const std::string& sql);

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_SPANNER_QUERY_H_
