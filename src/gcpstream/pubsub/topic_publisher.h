#ifndef GCPSTREAM_PUBSUB_TOPIC_PUBLISHER_H_
#define GCPSTREAM_PUBSUB_TOPIC_PUBLISHER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/connector/callback_tracker.h"
#include "gcpstream/pubsub/publish_batcher.h"
#include "gcpstream/pubsub/topic_destination.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub {

// A request ready to send (or in flight) with what the writer accounts for.
struct PublishBatch {
  google::pubsub::v1::PublishRequest request;
  // Sum of the messages' serialized sizes: the in-flight byte unit.
  int64_t bytes = 0;
  // The lane: the ordering key, or "" for messages without one.
  std::string ordering_key;
  // A single message re-sent alone by rejection confirmation.
  bool confirming = false;
};

// Whether the sink knows its topic exists (see create-disposition).
enum class TopicState {
  kUnknown,   // Never refused with NOT_FOUND: assumed to exist.
  kCreating,  // A CreateTopic is in progress; NOT_FOUND batches are parked.
  kExists,    // Created (or found created) by this writer.
};

// The publishing state of one topic in one writer: batches per lane and the
// order they may go out in. Messages without an ordering key share one lane
// whose batches are sent as soon as they close; each ordering key has its
// own lane with at most one batch outstanding, so a key's messages reach
// the service in the order they were written, retries and rejection
// confirmation included.
//
// It only decides what to send: the writer sends, accounts and retries. Not
// thread-safe (task thread only).
class TopicPublisher {
 public:
  // `batching` must be valid (CheckPublishBatcherOptions).
  TopicPublisher(TopicDestination topic, const PublishBatcherOptions& batching,
                 const Clock& clock, absl::Duration shutdown_timeout);

  // OK if a message of `bytes` serialized bytes fits a request of its own
  // (see PublishBatcher).
  absl::Status CheckMessage(int64_t bytes) const;

  // Adds a checked message of `bytes` serialized bytes (its ByteSizeLong())
  // to its lane; appends to `to_send` the batches that must go out now.
  // True when the message opened a new batch (which then needs the
  // batch-delay timer).
  bool Add(std::unique_ptr<google::pubsub::v1::PubsubMessage> message,
           int64_t bytes, std::vector<PublishBatch>& to_send);

  // Closes the open batches that are due (every open batch when `all`) and
  // appends what may be sent now.
  void CloseBatches(bool all, std::vector<PublishBatch>& to_send);

  // A sent batch of lane `ordering_key` is resolved (written or routed):
  // the lane's next batch may go out.
  void OnBatchDone(const std::string& ordering_key,
                   std::vector<PublishBatch>& to_send);

  // A sent batch was refused as a whole: its messages go out again one per
  // request, before anything else of its lane.
  void Resend(PublishBatch refused, std::vector<PublishBatch>& to_send);

  // When the earliest open batch becomes due; InfiniteFuture if none.
  absl::Time NextDeadline() const;

  // Nothing batched, in flight or parked: releasing loses nothing.
  bool IsClean() const {
    return lanes_.empty() && state_ != TopicState::kCreating;
  }

  // Waits, up to shutdown-timeout, until gRPC returned every callback of
  // this topic's calls; DeadlineExceeded (naming the option) otherwise.
  absl::Status Release();

  const TopicDestination& topic() const { return topic_; }
  const std::string& topic_name() const { return topic_name_; }
  TopicState state() const { return state_; }
  void set_state(TopicState state) { state_ = state; }
  const std::shared_ptr<connector::CallbackTracker>& tracker() const {
    return tracker_;
  }

 private:
  struct Lane {
    explicit Lane(PublishBatcher batcher) : open(std::move(batcher)) {}
    PublishBatcher open;
    int64_t open_bytes = 0;
    std::deque<PublishBatch> closed;
    int in_flight = 0;
  };

  // Node-based: a lane stays where it is while others come and go, so the
  // last one used can be remembered.
  using Lanes = absl::node_hash_map<std::string, Lane>;
  using LaneEntry = Lanes::value_type;

  // The lane of `ordering_key`, created on first use. Consecutive messages
  // mostly share a key (always, without ordering): the last lane used is
  // found without hashing.
  LaneEntry& LaneFor(absl::string_view ordering_key);
  static void Close(Lane& lane, const std::string& ordering_key);
  // Moves the lane's closed batches that may go now into `to_send`, and
  // forgets the lane when it holds nothing (`entry` is then invalid).
  void Pump(LaneEntry& entry, std::vector<PublishBatch>& to_send);

  const TopicDestination topic_;
  const std::string topic_name_;
  // An empty batcher for the topic: checks messages, and new lanes start
  // as copies of it.
  const PublishBatcher prototype_;
  const absl::Duration shutdown_timeout_;
  Lanes lanes_;
  LaneEntry* last_lane_ = nullptr;
  TopicState state_ = TopicState::kUnknown;
  std::shared_ptr<connector::CallbackTracker> tracker_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_TOPIC_PUBLISHER_H_
