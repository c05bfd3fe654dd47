#ifndef GCPSTREAM_BASE_REJECTION_CONFIRMATION_H_
#define GCPSTREAM_BASE_REJECTION_CONFIRMATION_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/status_class.h"

namespace gcpstream {

// What to do with one entry of a refused batch after re-sending it alone.
enum class ConfirmationVerdict {
  kWritten,  // Accepted on its own: it was a neighbour's fault.
  kRouted,   // Refused on its own: hand it to the failure handler.
  kRetry,    // Transient: retry this single send under the retry policy.
  kFatal,    // Fail the job; the status says why.
};

// Rejection confirmation, for every batching sink whose service refuses a
// whole batch for one bad entry (a Spanner commit, a Bigtable check-and-
// mutate, ...): the refused batch is parked by the connector and its entries
// re-sent one per request; only entries refused on their own reach the
// failure handler, the rest are written.
//
// A guard fails the job after `max-consecutive-rejections` confirmed refusals
// in a row with no success in between: a systematic mapping error (a wrong
// column name in every row) must fail loudly, not drain a stream into a
// dead-letter queue one record at a time. Any success resets it, whether a
// confirmation send or a normal batch.
class RejectionConfirmation {
 public:
  // -1: unbounded (the guard never trips).
  static constexpr int64_t kUnbounded = -1;
  static constexpr int64_t kDefaultMaxConsecutiveRejections = 100;
  static constexpr char kMaxConsecutiveRejectionsKey[] =
      "max-consecutive-rejections";

  // InvalidArgument naming the option unless `max` is >= 1 or -1.
  static absl::Status CheckMaxConsecutiveRejections(int64_t max);

  // `max_consecutive_rejections` must be >= 1 or -1; the error names the
  // option. `sink_name` appears in the guard's error.
  static absl::StatusOr<RejectionConfirmation> Create(
      const ClassificationTable& table, int64_t max_consecutive_rejections,
      std::string sink_name);

  struct Verdict {
    ConfirmationVerdict kind;
    absl::Status status;  // The single send's status (OK when written).
  };

  // Classifies the result of re-sending one entry alone. A request-level
  // classification applies: the single entry is the whole request.
  Verdict OnSingleResult(const absl::Status& result);

  // A normal (unparked) batch succeeded.
  void OnSuccess() { consecutive_ = 0; }

  int64_t consecutive_rejections() const { return consecutive_; }

 private:
  RejectionConfirmation(const ClassificationTable& table, int64_t max,
                        std::string sink_name)
      : table_(&table), max_(max), sink_name_(std::move(sink_name)) {}

  const ClassificationTable* table_;
  int64_t max_;
  std::string sink_name_;
  int64_t consecutive_ = 0;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_REJECTION_CONFIRMATION_H_
