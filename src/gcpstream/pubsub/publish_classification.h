#ifndef GCPSTREAM_PUBSUB_PUBLISH_CLASSIFICATION_H_
#define GCPSTREAM_PUBSUB_PUBLISH_CLASSIFICATION_H_

#include "gcpstream/base/status_class.h"

namespace gcpstream::pubsub {

// How the sink classifies the status of a Publish call. NOT_FOUND is not in
// the table: it starts topic creation (create-if-needed) or fails the job
// naming create-disposition. INVALID_ARGUMENT refuses a whole batch for
// what may be one message, so it goes through rejection confirmation and
// only messages refused on their own reach the failure handler.
inline constexpr ClassificationTable kPublishClassification(
    ClassificationTable::Level(
        {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord},
         {absl::StatusCode::kUnknown, StatusClass::kTransient},
         {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
         {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
         {absl::StatusCode::kAborted, StatusClass::kTransient},
         {absl::StatusCode::kInternal, StatusClass::kTransient},
         {absl::StatusCode::kUnavailable, StatusClass::kTransient}},
        StatusClass::kFatal),
    // Publish has no per-entry statuses: a request succeeds or fails whole.
    ClassificationTable::Level({}, StatusClass::kFatal));

// Requests that have no record to route — a topic creation, a dead-letter
// publish — retry what a publish retries and fail on anything else (an
// INVALID_ARGUMENT included: there is nowhere further to route it).
inline StatusClass TransientOrFatal(const absl::Status& status) {
  return kPublishClassification.ClassifyRequest(status) ==
                 StatusClass::kTransient
             ? StatusClass::kTransient
             : StatusClass::kFatal;
}

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBLISH_CLASSIFICATION_H_
