#ifndef GCPSTREAM_PUBSUB_PUBSUB_SOURCE_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SOURCE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/pubsub/pubsub_source_options.h"
#include "gcpstream/pubsub/pull_reader.h"
#include "gcpstream/pubsub/source_splits.h"
#include "gcpstream/runtime/source.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub {

// Turns one message (data, attributes, ordering key, message id, publish
// time) into zero or more records appended to `out`. An error is a
// deserialization failure, handled per deserialization-failure-policy.
template <typename T>
using MessageDeserializer = std::function<absl::Status(
    const google::pubsub::v1::PubsubMessage& message, std::vector<T>& out)>;

// Reads one or more subscriptions with streaming pull. A message is
// acknowledged only once a checkpoint taken after it was emitted completes
// (NotifyCheckpointComplete); what is not acknowledged when a reader closes
// is nacked. Event time is the publish time. See docs/pubsub.md.
template <typename T>
class PubSubSource final : public runtime::Source<T> {
 public:
  PubSubSource(PubSubSourceOptions options, MessageDeserializer<T> deserializer)
      : options_(std::move(options)), deserializer_(std::move(deserializer)) {}

  std::string name() const override { return options_.name; }
  bool bounded() const override { return false; }

  absl::StatusOr<std::vector<runtime::Split>> PlanSplits(
      int parallelism) override {
    return PlanSubscriptionSplits(options_, parallelism);
  }

  absl::StatusOr<std::unique_ptr<runtime::SourceReader<T>>> CreateReader(
      const runtime::SourceReaderContext& context,
      std::vector<runtime::Split> splits) override {
    if (!deserializer_) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name,
                       ": a Pub/Sub source needs a "
                       "deserializer"));
    }
    absl::StatusOr<std::vector<SubscriptionSpec>> subscriptions =
        OpenSubscriptionSplits(options_, splits);
    if (!subscriptions.ok()) return subscriptions.status();
    absl::StatusOr<std::unique_ptr<PullReader>> core =
        PullReader::Create(options_, context, *std::move(subscriptions));
    if (!core.ok()) return core.status();
    return std::make_unique<Reader>(std::move(splits), *std::move(core),
                                    deserializer_, options_);
  }

 private:
  class Reader final : public runtime::SourceReader<T> {
   public:
    Reader(std::vector<runtime::Split> splits, std::unique_ptr<PullReader> core,
           MessageDeserializer<T> deserializer,
           const PubSubSourceOptions& options)
        : splits_(std::move(splits)),
          core_(std::move(core)),
          deserializer_(std::move(deserializer)),
          max_per_poll_(options.max_records_per_poll) {}

    absl::StatusOr<runtime::PollResult> PollNext(
        runtime::ReaderOutput<T>& output) override {
      if (absl::Status status = core_->Tick(); !status.ok()) return status;
      int handled = 0;
      while (handled < max_per_poll_) {
        const ReceivedMessage* message = core_->Front();
        if (message == nullptr) break;
        records_.clear();
        absl::Status status = deserializer_(message->message, records_);
        if (!status.ok()) {
          if (absl::Status failed = core_->PopFailed(status); !failed.ok()) {
            return failed;
          }
          ++handled;
          continue;
        }
        const auto& published = message->message.publish_time();
        const absl::Time event_time =
            absl::FromUnixSeconds(published.seconds()) +
            absl::Nanoseconds(published.nanos());
        for (T& record : records_) {
          output.Collect(std::move(record), event_time);
        }
        core_->PopEmitted();
        ++handled;
      }
      runtime::PollResult result;
      if (core_->Front() != nullptr) return result;
      // Arriving messages wake the task through its mailbox; the delay
      // only bounds how late leases and reconnects are looked after.
      result.status = runtime::InputStatus::kNothingAvailable;
      result.retry_after = absl::Milliseconds(200);
      return result;
    }

    absl::StatusOr<std::vector<runtime::Split>> SnapshotState(
        int64_t checkpoint_id) override {
      core_->Snapshot(checkpoint_id);
      return splits_;
    }

    absl::Status NotifyCheckpointComplete(int64_t checkpoint_id) override {
      core_->CheckpointComplete(checkpoint_id);
      return absl::OkStatus();
    }

    void Close() override { core_->Close(); }

   private:
    std::vector<runtime::Split> splits_;
    std::unique_ptr<PullReader> core_;
    MessageDeserializer<T> deserializer_;
    const int max_per_poll_;
    std::vector<T> records_;
  };

  PubSubSourceOptions options_;
  MessageDeserializer<T> deserializer_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SOURCE_H_
