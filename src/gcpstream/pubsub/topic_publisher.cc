#include "gcpstream/pubsub/topic_publisher.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"

namespace gcpstream::pubsub {

using ::google::pubsub::v1::PubsubMessage;

TopicPublisher::TopicPublisher(TopicDestination topic,
                               const PublishBatcherOptions& batching,
                               const Clock& clock,
                               absl::Duration shutdown_timeout)
    : topic_(std::move(topic)),
      topic_name_(topic_.ResourceName()),
      prototype_(*PublishBatcher::Create(topic_name_, batching, clock)),
      shutdown_timeout_(shutdown_timeout),
      tracker_(std::make_shared<connector::CallbackTracker>()) {}

TopicPublisher::LaneEntry& TopicPublisher::LaneFor(
    absl::string_view ordering_key) {
  if (last_lane_ != nullptr && last_lane_->first == ordering_key) {
    return *last_lane_;
  }
  auto it = lanes_.find(ordering_key);
  if (it == lanes_.end()) {
    it = lanes_.emplace(ordering_key, Lane(prototype_)).first;
  }
  last_lane_ = &*it;
  return *it;
}

absl::Status TopicPublisher::CheckMessage(int64_t bytes) const {
  return prototype_.CheckMessage(static_cast<size_t>(bytes));
}

bool TopicPublisher::Add(std::unique_ptr<PubsubMessage> message, int64_t bytes,
                         std::vector<PublishBatch>& to_send) {
  LaneEntry& entry = LaneFor(message->ordering_key());
  const std::string& key = entry.first;
  Lane& lane = entry.second;
  const auto message_bytes = static_cast<size_t>(bytes);
  if (!lane.open.HasRoomFor(message_bytes)) Close(lane, key);
  const bool opened = lane.open.empty();
  // Cannot fail: the message was checked and the batch has room.
  (void)lane.open.Add(std::move(message), message_bytes);
  lane.open_bytes += bytes;
  if (lane.open.Full()) Close(lane, key);
  Pump(entry, to_send);
  return opened;
}

void TopicPublisher::Close(Lane& lane, const std::string& ordering_key) {
  if (lane.open.empty()) return;
  PublishBatch batch;
  batch.request = lane.open.Take();
  batch.bytes = lane.open_bytes;
  batch.ordering_key = ordering_key;
  lane.open_bytes = 0;
  lane.closed.push_back(std::move(batch));
}

void TopicPublisher::CloseBatches(bool all,
                                  std::vector<PublishBatch>& to_send) {
  std::vector<std::string> keys;
  for (auto& [key, lane] : lanes_) {
    if (all || lane.open.Due()) Close(lane, key);
    if (!lane.closed.empty()) keys.push_back(key);
  }
  for (const std::string& key : keys) Pump(*lanes_.find(key), to_send);
}

void TopicPublisher::OnBatchDone(const std::string& ordering_key,
                                 std::vector<PublishBatch>& to_send) {
  LaneEntry& entry = LaneFor(ordering_key);
  Lane& lane = entry.second;
  --lane.in_flight;
  // What a key gathered while its previous batch was out goes now: waiting
  // for the batch delay would only add latency to an ordered stream.
  if (!ordering_key.empty() && lane.closed.empty()) Close(lane, ordering_key);
  Pump(entry, to_send);
}

void TopicPublisher::Resend(PublishBatch refused,
                            std::vector<PublishBatch>& to_send) {
  LaneEntry& entry = LaneFor(refused.ordering_key);
  Lane& lane = entry.second;
  --lane.in_flight;
  auto& messages = *refused.request.mutable_messages();
  for (int i = messages.size() - 1; i >= 0; --i) {
    PublishBatch single;
    single.request.set_topic(topic_name_);
    single.bytes = static_cast<int64_t>(messages[i].ByteSizeLong());
    *single.request.add_messages() = std::move(messages[i]);
    single.ordering_key = refused.ordering_key;
    single.confirming = true;
    lane.closed.push_front(std::move(single));
  }
  Pump(entry, to_send);
}

void TopicPublisher::Pump(LaneEntry& entry,
                          std::vector<PublishBatch>& to_send) {
  Lane& lane = entry.second;
  const bool ordered = !entry.first.empty();
  while (!lane.closed.empty() && (!ordered || lane.in_flight == 0)) {
    to_send.push_back(std::move(lane.closed.front()));
    lane.closed.pop_front();
    ++lane.in_flight;
  }
  if (lane.in_flight == 0 && lane.closed.empty() && lane.open.empty()) {
    if (last_lane_ == &entry) last_lane_ = nullptr;
    const std::string key = entry.first;  // erase() must not read the node.
    lanes_.erase(key);
  }
}

absl::Time TopicPublisher::NextDeadline() const {
  absl::Time earliest = absl::InfiniteFuture();
  for (const auto& [key, lane] : lanes_) {
    earliest = std::min(earliest, lane.open.Deadline());
  }
  return earliest;
}

absl::Status TopicPublisher::Release() {
  if (tracker_->WaitForNone(shutdown_timeout_)) return absl::OkStatus();
  return absl::DeadlineExceededError(absl::StrCat(
      "the publisher of ", topic_name_, " did not shut down within ",
      absl::FormatDuration(shutdown_timeout_), " (option '",
      kShutdownTimeoutKey, "'): ", tracker_->pending(),
      " gRPC callbacks are still pending; the writer fails rather than open "
      "another publisher next to an abandoned one"));
}

}  // namespace gcpstream::pubsub
