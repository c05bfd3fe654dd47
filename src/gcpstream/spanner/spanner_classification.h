#ifndef GCPSTREAM_SPANNER_SPANNER_CLASSIFICATION_H_
#define GCPSTREAM_SPANNER_SPANNER_CLASSIFICATION_H_

#include "gcpstream/base/status_class.h"
#include "gcpstream/spanner/spanner_sink_options.h"

namespace gcpstream::spanner {

// How the Spanner sink classifies the fate of one mutation: a BatchWrite
// group's status, or a commit holding that mutation alone (rejection
// confirmation, where the single mutation is the whole request, so both
// levels are the same). Whole-batch statuses (a BatchWrite stream's final
// status, a batched commit) are never routed: transient codes are retried,
// a batched commit refused with a per-record code is confirmed mutation by
// mutation, and anything else fails the job (spanner_write_engine.cc).
// Measured against the emulator: docs/spanner.md.
inline constexpr ClassificationTable::Level kSpannerFailJobLevel(
    {{absl::StatusCode::kAborted, StatusClass::kTransient},
     {absl::StatusCode::kUnavailable, StatusClass::kTransient},
     {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
     {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
     {absl::StatusCode::kAlreadyExists, StatusClass::kPerRecord}},
    StatusClass::kFatal);

inline constexpr ClassificationTable::Level kSpannerRouteLevel(
    {{absl::StatusCode::kAborted, StatusClass::kTransient},
     {absl::StatusCode::kUnavailable, StatusClass::kTransient},
     {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
     {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
     {absl::StatusCode::kAlreadyExists, StatusClass::kPerRecord},
     {absl::StatusCode::kFailedPrecondition, StatusClass::kPerRecord},
     {absl::StatusCode::kOutOfRange, StatusClass::kPerRecord}},
    StatusClass::kFatal);

inline constexpr ClassificationTable kSpannerFailJobClassification(
    kSpannerFailJobLevel, kSpannerFailJobLevel);
inline constexpr ClassificationTable kSpannerRouteClassification(
    kSpannerRouteLevel, kSpannerRouteLevel);

inline const ClassificationTable& SpannerClassification(
    ConstraintViolationPolicy policy) {
  return policy == ConstraintViolationPolicy::kRouteToFailureHandler
             ? kSpannerRouteClassification
             : kSpannerFailJobClassification;
}

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_CLASSIFICATION_H_
