#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_CLASSIFICATION_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_CLASSIFICATION_H_

#include "gcpstream/base/status_class.h"

namespace gcpstream::bigtable {

// How the Bigtable sink classifies one entry's fate: a MutateRows entry's
// status, which is the service's verdict on that entry alone (so it is also
// what rejection confirmation's guard classifies, as a single-entry
// request). INVALID_ARGUMENT goes through the guard to the failure handler.
// The request's own status is never routed, whatever this table says of its
// code (EntryOutcomes::Sort makes every non-transient request status fatal):
// the sink checks every limit itself, so a whole request refused means
// something systematic. NOT_FOUND of the request (the table is missing) is
// decided before this table, by create-disposition; NOT_FOUND of an entry
// (its family is missing) fails the job naming the family.
inline constexpr ClassificationTable::Level kBigtableLevel(
    {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord},
     {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
     {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
     {absl::StatusCode::kAborted, StatusClass::kTransient},
     {absl::StatusCode::kUnavailable, StatusClass::kTransient}},
    StatusClass::kFatal);

inline constexpr ClassificationTable kBigtableClassification(kBigtableLevel,
                                                             kBigtableLevel);

// Admin calls (creating a table, adding a family) have no record to route:
// transient codes are retried on the recovery budget, others fail the job.
inline StatusClass AdminStatusClass(const absl::Status& status) {
  return kBigtableLevel.Classify(status.code()) == StatusClass::kTransient
             ? StatusClass::kTransient
             : StatusClass::kFatal;
}

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_CLASSIFICATION_H_
