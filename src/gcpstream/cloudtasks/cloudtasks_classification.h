#ifndef GCPSTREAM_CLOUDTASKS_CLOUDTASKS_CLASSIFICATION_H_
#define GCPSTREAM_CLOUDTASKS_CLOUDTASKS_CLASSIFICATION_H_

#include "gcpstream/base/status_class.h"

namespace gcpstream::cloudtasks {

// How the Cloud Tasks sink classifies a CreateTask answer (one task per
// request, so both levels are the same; docs/cloudtasks.md, "Failures").
// Decided before this table: ALREADY_EXISTS of a named task (a replay: a
// deduplicated success) and NOT_FOUND (a missing queue, on its own short
// budget, then the job fails).
inline constexpr ClassificationTable::Level kCloudTasksLevel(
    {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord},
     {absl::StatusCode::kUnavailable, StatusClass::kTransient},
     {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
     {absl::StatusCode::kResourceExhausted, StatusClass::kTransient}},
    StatusClass::kFatal);

inline constexpr ClassificationTable kCloudTasksClassification(
    kCloudTasksLevel, kCloudTasksLevel);

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_CLOUDTASKS_CLASSIFICATION_H_
