#ifndef GCPSTREAM_PUBSUB_SUBSCRIPTION_ADMIN_H_
#define GCPSTREAM_PUBSUB_SUBSCRIPTION_ADMIN_H_

#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/pubsub/pubsub_source_options.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::pubsub {

// Blocking admin calls the source makes before it reads (planning splits,
// opening a reader), each with its own deadline. Errors name the
// subscription.

// Creates the subscription from spec.create when set; ALREADY_EXISTS is
// success and an existing subscription is never updated.
absl::Status EnsureSubscription(const std::shared_ptr<grpc::Channel>& channel,
                                const SubscriptionSpec& spec);

absl::StatusOr<google::pubsub::v1::Subscription> GetSubscription(
    const std::shared_ptr<grpc::Channel>& channel,
    const SubscriptionSpec& spec);

// Seeks the subscription to `position` (nothing for kContinue):
// earliest-retained seeks to the epoch, so every retained message is
// delivered again; latest seeks to now.
absl::Status SeekSubscription(const std::shared_ptr<grpc::Channel>& channel,
                              const SubscriptionSpec& spec,
                              const StartPosition& position);

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_SUBSCRIPTION_ADMIN_H_
