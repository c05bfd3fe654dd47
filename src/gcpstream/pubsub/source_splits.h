#ifndef GCPSTREAM_PUBSUB_SOURCE_SPLITS_H_
#define GCPSTREAM_PUBSUB_SOURCE_SPLITS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/pubsub/pubsub_source_options.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::pubsub {

// The splits of a first start: ordering-mode none gives max(subscriptions,
// parallelism) splits, split i reading subscription i % n; per-key gives
// one split per subscription. Creates the subscriptions that have create
// options, then seeks each to start-position: this runs once per first
// start, never on a restore (a crash before the first checkpoint is a first
// start again).
absl::StatusOr<std::vector<runtime::Split>> PlanSubscriptionSplits(
    const PubSubSourceOptions& options, int parallelism);

// The subscription of each split a reader opens, after creating what has
// create options and checking each subscription against the options
// (per-key needs message ordering; nack needs a dead-letter policy), so a
// misconfigured job fails before it reads.
absl::StatusOr<std::vector<SubscriptionSpec>> OpenSubscriptionSplits(
    const PubSubSourceOptions& options,
    const std::vector<runtime::Split>& splits);

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_SOURCE_SPLITS_H_
