#ifndef GCPSTREAM_BIGQUERY_WRITE_STREAM_ADMIN_H_
#define GCPSTREAM_BIGQUERY_WRITE_STREAM_ADMIN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/retry_policy.h"
#include "google/cloud/bigquery/storage/v1/storage.grpc.pb.h"

namespace gcpstream::bigquery {

namespace storage_v1 = ::google::cloud::bigquery::storage::v1;

// Waits out a backoff; an error (the job was cancelled) ends the retries.
using BackoffSleep = std::function<absl::Status(absl::Duration)>;

struct WriteStreamAdminOptions {
  RetryOptions retry{};
  // Deadline of each attempt.
  absl::Duration attempt_timeout = absl::Seconds(60);
  const Clock* clock = nullptr;  // Null: the system clock.
  BackoffSleep sleep{};          // Null: absl::SleepFor.
};

// The Storage Write API's unary calls around application-created streams:
// create, finalize, read, and commit. Each call is synchronous, carries the
// routing header of the resource it names, and is retried on UNAVAILABLE,
// DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED and INTERNAL within the
// retry budget; other codes are returned at once. Every one of these calls
// may be repeated: a create makes another (unused) stream, the others are
// idempotent or answer what they already did. Thread-compatible.
class WriteStreamAdmin {
 public:
  WriteStreamAdmin(const std::shared_ptr<grpc::Channel>& channel,
                   WriteStreamAdminOptions options);

  // A new PENDING stream on `table` (its resource name); returns its name.
  absl::StatusOr<std::string> CreatePendingStream(const std::string& table);
  // Ends appends to `stream`; returns the rows it holds.
  absl::StatusOr<int64_t> Finalize(const std::string& stream);
  // The stream as the service describes it (basic view).
  absl::StatusOr<storage_v1::WriteStream> Get(const std::string& stream);
  // Commits finalized PENDING `streams` of `table` atomically. Per-stream
  // refusals come back in the response's stream_errors (then nothing was
  // committed), not as an error status.
  absl::StatusOr<storage_v1::BatchCommitWriteStreamsResponse> BatchCommit(
      const std::string& table, const std::vector<std::string>& streams);

 private:
  template <typename Response, typename Call>
  absl::StatusOr<Response> Run(const std::string& routing_field,
                               const std::string& resource, Call call);

  std::unique_ptr<storage_v1::BigQueryWrite::Stub> stub_;
  WriteStreamAdminOptions options_;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_WRITE_STREAM_ADMIN_H_
