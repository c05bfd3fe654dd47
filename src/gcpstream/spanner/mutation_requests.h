#ifndef GCPSTREAM_SPANNER_MUTATION_REQUESTS_H_
#define GCPSTREAM_SPANNER_MUTATION_REQUESTS_H_

#include <vector>

#include "absl/status/status.h"
#include "gcpstream/spanner/mutation_batch.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "google/spanner/v1/spanner.pb.h"

namespace gcpstream::spanner {

// The requests a writer sends, holding its pending mutations for one send:
// each mutation's proto is swapped in when the request is built and back
// when it goes away, never copied (a batch is resent as it is).
class BatchWriteRequestFor {
 public:
  // One group per mutation, so each has its own status, except mutations
  // sharing a PendingMutation::group: one group for them, in batch order.
  BatchWriteRequestFor(const SpannerSinkOptions& options,
                       const std::vector<PendingMutation*>& batch);
  ~BatchWriteRequestFor();
  BatchWriteRequestFor(const BatchWriteRequestFor&) = delete;
  BatchWriteRequestFor& operator=(const BatchWriteRequestFor&) = delete;

  google::spanner::v1::BatchWriteRequest& request() { return request_; }
  // Group index -> the batch indexes of its mutations, ascending.
  const std::vector<std::vector<size_t>>& groups() const { return groups_; }

 private:
  google::spanner::v1::BatchWriteRequest request_;
  const std::vector<PendingMutation*>& batch_;
  std::vector<std::vector<size_t>> groups_;
};

class CommitRequestFor {
 public:
  // A single-use read-write transaction: a blind write.
  CommitRequestFor(const SpannerSinkOptions& options,
                   const std::vector<PendingMutation*>& batch);
  ~CommitRequestFor();
  CommitRequestFor(const CommitRequestFor&) = delete;
  CommitRequestFor& operator=(const CommitRequestFor&) = delete;

  google::spanner::v1::CommitRequest& request() { return request_; }

 private:
  google::spanner::v1::CommitRequest request_;
  const std::vector<PendingMutation*>& batch_;
};

// Logs that BatchWrite is unimplemented (`status`) and what to set instead.
void WarnBatchWriteFallback(const SpannerSinkOptions& options,
                            const absl::Status& status);

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_MUTATION_REQUESTS_H_
