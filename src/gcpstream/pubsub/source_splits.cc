#include "gcpstream/pubsub/source_splits.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/pubsub/subscription_admin.h"

namespace gcpstream::pubsub {
namespace {

absl::StatusOr<std::shared_ptr<grpc::Channel>> Channel(
    const PubSubSourceOptions& options) {
  return auth::MakeChannel(auth::Service::kPubSub, options.channel);
}

}  // namespace

absl::StatusOr<std::vector<runtime::Split>> PlanSubscriptionSplits(
    const PubSubSourceOptions& options, int parallelism) {
  if (absl::Status status = CheckPubSubSourceOptions(options); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Channel(options);
  if (!channel.ok()) return channel.status();
  for (const SubscriptionSpec& spec : options.subscriptions) {
    if (absl::Status created = EnsureSubscription(*channel, spec);
        !created.ok()) {
      return created;
    }
    if (absl::Status sought =
            SeekSubscription(*channel, spec, options.start_position);
        !sought.ok()) {
      return sought;
    }
  }
  const int subscriptions = static_cast<int>(options.subscriptions.size());
  const int count = options.ordering_mode == OrderingMode::kPerKey
                        ? subscriptions
                        : std::max(subscriptions, parallelism);
  std::vector<runtime::Split> splits;
  splits.reserve(count);
  for (int i = 0; i < count; ++i) {
    // The state names the subscription, so a restore reads what the
    // checkpoint read even if the list is reordered.
    splits.push_back(runtime::Split{
        .id = absl::StrCat("split-", i),
        .state = options.subscriptions[i % subscriptions].ResourceName()});
  }
  return splits;
}

absl::StatusOr<std::vector<SubscriptionSpec>> OpenSubscriptionSplits(
    const PubSubSourceOptions& options,
    const std::vector<runtime::Split>& splits) {
  if (absl::Status status = CheckPubSubSourceOptions(options); !status.ok()) {
    return status;
  }
  std::vector<SubscriptionSpec> specs;
  for (const runtime::Split& split : splits) {
    auto it =
        std::find_if(options.subscriptions.begin(), options.subscriptions.end(),
                     [&](const SubscriptionSpec& spec) {
                       return spec.ResourceName() == split.state;
                     });
    if (it == options.subscriptions.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          options.name, ": the checkpoint being restored reads ", split.state,
          ", which is no longer in option 'subscriptions'; restore with the "
          "same subscriptions, or start without the checkpoint"));
    }
    specs.push_back(*it);
  }
  if (specs.empty()) return specs;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Channel(options);
  if (!channel.ok()) return channel.status();
  std::set<std::string> checked;
  for (const SubscriptionSpec& spec : specs) {
    if (!checked.insert(spec.ResourceName()).second) continue;
    if (absl::Status created = EnsureSubscription(*channel, spec);
        !created.ok()) {
      return created;
    }
    absl::StatusOr<google::pubsub::v1::Subscription> subscription =
        GetSubscription(*channel, spec);
    if (!subscription.ok()) return subscription.status();
    if (options.ordering_mode == OrderingMode::kPerKey &&
        !subscription->enable_message_ordering()) {
      return absl::FailedPreconditionError(absl::StrCat(
          options.name, ": option '", kOrderingModeOption.key(),
          "' is 'per-key' but subscription ", spec.ResourceName(),
          " does not have message ordering enabled, so Pub/Sub would not "
          "deliver a key's messages in order; use an ordered subscription "
          "or ordering-mode 'none'"));
    }
    if (options.deserialization_failure_policy ==
            DeserializationFailurePolicy::kNack &&
        subscription->dead_letter_policy().dead_letter_topic().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          options.name, ": option '", kDeserializationFailurePolicyOption.key(),
          "' is 'nack' but subscription ", spec.ResourceName(),
          " has no dead-letter policy, so a message that never deserializes "
          "would be redelivered forever; add a dead-letter topic to it or "
          "use 'drop' or 'fail'"));
    }
  }
  return specs;
}

}  // namespace gcpstream::pubsub
