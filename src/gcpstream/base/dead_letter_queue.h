#ifndef GCPSTREAM_BASE_DEAD_LETTER_QUEUE_H_
#define GCPSTREAM_BASE_DEAD_LETTER_QUEUE_H_

#include <string>

#include "absl/status/status.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream {

// What a failure handler or dead-letter queue learns when it opens.
struct FailureHandlerContext {
  int subtask_index = 0;
  // Lower-case name of the connector whose failures it receives.
  std::string connector;
  // Where handlers and queues register their metrics (may be null), with the
  // labels of the sink writer they serve.
  MetricsRegistry* metrics = nullptr;
  MetricLabels labels = {};
};

// Where routed failures are kept. Driven by SendToDeadLetterQueue() on the
// writer's task thread: Open() before the first Offer() (again after a
// restore), Flush() at every checkpoint and end of input, Close() at the end.
// Any error fails the job: a queue that cannot take a failure must not let
// it vanish.
class DeadLetterQueue {
 public:
  virtual ~DeadLetterQueue() = default;

  virtual absl::Status Open(const FailureHandlerContext& context) = 0;
  // Accepts one failure; may buffer it.
  virtual absl::Status Offer(const FailedElement& failure) = 0;
  // Returns once every offered failure is durable.
  virtual absl::Status Flush() = 0;
  // Releases resources; persists nothing (call Flush() for that).
  virtual void Close() = 0;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_DEAD_LETTER_QUEUE_H_
