#ifndef GCPSTREAM_PUBSUB_PUBLISH_BATCHER_H_
#define GCPSTREAM_PUBSUB_PUBLISH_BATCHER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub {

// The service's hard limits on one Publish call. Above them the service
// refuses the whole request with INVALID_ARGUMENT (and between 10 MB and
// 10 MiB some paths answer INTERNAL, which a client would retry forever), so
// the batcher holds them exactly rather than with a margin.
inline constexpr int64_t kMaxMessagesPerPublish = 1000;
// Serialized PublishRequest bytes: the topic field plus every message with
// its field tag and length prefix.
inline constexpr int64_t kMaxPublishRequestBytes = 10'000'000;

// Option keys, as written in a SQL WITH clause or a YAML file.
inline constexpr char kMaxBatchMessagesKey[] = "max-batch-messages";
inline constexpr char kMaxBatchBytesKey[] = "max-batch-bytes";
inline constexpr char kMaxBatchDelayKey[] = "max-batch-delay";

// When a batch of messages for one topic is sent. A batch is full as soon as
// any threshold is reached. The defaults are those of Google's Pub/Sub client
// libraries: large enough to amortise a round trip, small enough that a
// trickle of messages is not held back noticeably.
struct PublishBatcherOptions {
  // max-batch-messages: 1..1000.
  int64_t max_messages = 100;
  // max-batch-bytes: serialized request bytes, 1..10,000,000. A message
  // larger than this on its own is still sent, alone in its request, as long
  // as it fits kMaxPublishRequestBytes.
  int64_t max_bytes = 1'000'000;
  // max-batch-delay: how long the first message of a batch may wait for
  // others; any positive duration.
  absl::Duration max_delay = absl::Milliseconds(10);
};

// InvalidArgument naming the option key when a value is out of range.
absl::Status CheckPublishBatcherOptions(const PublishBatcherOptions& options);

// Accumulates the messages of one topic into a PublishRequest and decides
// when the request is full, by message count, serialized request bytes and
// the age of its oldest message. It only decides: the caller sends (and owns
// in-flight limits and retries), so the batcher needs no thread or timer and
// its age is read from the injected clock.
//
// Sizes are counted as the wire encoding counts them (each message's
// ByteSizeLong plus its tag and varint length prefix, plus the topic field),
// computed once per message, so bytes() is exactly the serialized size of the
// request Take() returns and no request ever exceeds
// kMaxPublishRequestBytes.
//
// Usage, per message:
//   if (!batcher.HasRoomFor(m)) Send(batcher.Take());
//   if (absl::Status s = batcher.Add(std::move(m)); !s.ok()) return s;
//   if (batcher.Full()) Send(batcher.Take());
// and Send(batcher.Take()) once Due() or at a flush.
//
// Not thread-safe: one batcher per topic, on the writer's task thread.
class PublishBatcher {
 public:
  // `topic` is the full name, "projects/<project>/topics/<topic>". `clock`
  // must outlive the batcher.
  static absl::StatusOr<PublishBatcher> Create(
      std::string topic, const PublishBatcherOptions& options,
      const Clock& clock);

  // Each method takes the message's serialized size (its ByteSizeLong(),
  // computed once by the caller) or computes it.

  // The bytes a message of `message_bytes` adds to a request: its field tag,
  // its length prefix and its serialized size.
  static size_t FramedSize(size_t message_bytes);

  // OK when a message of `message_bytes` could be sent in a request of its
  // own, else InvalidArgument naming its size and the limit: a per-record
  // refusal, decided before sending, since the service would refuse the
  // request.
  absl::Status CheckMessage(size_t message_bytes) const;
  absl::Status CheckMessage(
      const google::pubsub::v1::PubsubMessage& message) const {
    return CheckMessage(message.ByteSizeLong());
  }

  // Whether the message can join the open batch without crossing
  // max-batch-messages or max-batch-bytes. Always true for an empty batch
  // (an oversized message is then refused by Add()).
  bool HasRoomFor(size_t message_bytes) const;
  bool HasRoomFor(const google::pubsub::v1::PubsubMessage& message) const {
    return HasRoomFor(message.ByteSizeLong());
  }

  // Adds `message` to the open batch. InvalidArgument (see CheckMessage) if
  // it can never be sent, FailedPrecondition if !HasRoomFor(message); the
  // batch is unchanged in both cases.
  // The request takes `message` over as it is (no copy, no move).
  absl::Status Add(std::unique_ptr<google::pubsub::v1::PubsubMessage> message,
                   size_t message_bytes);
  absl::Status Add(google::pubsub::v1::PubsubMessage message) {
    const size_t message_bytes = message.ByteSizeLong();
    return Add(
        std::make_unique<google::pubsub::v1::PubsubMessage>(std::move(message)),
        message_bytes);
  }

  // A threshold of count or bytes is reached: send before adding more.
  bool Full() const;
  // The oldest message has waited max-batch-delay or longer.
  bool Due() const;
  // When the open batch becomes due; InfiniteFuture when it is empty.
  absl::Time Deadline() const;

  // The open batch as a request (possibly without messages), leaving the
  // batcher empty.
  google::pubsub::v1::PublishRequest Take();

  bool empty() const { return request_.messages_size() == 0; }
  int64_t messages() const { return request_.messages_size(); }
  // Serialized size of the request Take() would return.
  int64_t bytes() const { return bytes_; }
  const std::string& topic() const { return request_.topic(); }
  const PublishBatcherOptions& options() const { return options_; }

 private:
  PublishBatcher(std::string topic, const PublishBatcherOptions& options,
                 const Clock& clock);

  PublishBatcherOptions options_;
  const Clock* clock_;
  // The size of a request holding only the topic.
  int64_t empty_request_bytes_;
  google::pubsub::v1::PublishRequest request_;
  int64_t bytes_ = 0;
  absl::Time first_added_ = absl::InfiniteFuture();
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBLISH_BATCHER_H_
