#ifndef GCPSTREAM_PUBSUB_TOPIC_CREATOR_H_
#define GCPSTREAM_PUBSUB_TOPIC_CREATOR_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/client_context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/pubsub/publisher_stub.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"
#include "gcpstream/pubsub/topic_publisher.h"

namespace gcpstream::pubsub {

// Creates the topics a sink found missing (create-disposition
// create-if-needed), with the options of topic-create-options, retrying
// transient failures. ALREADY_EXISTS (another writer was first) counts as
// created. Task thread only.
class TopicCreator {
 public:
  struct Callbacks {
    // The publisher of a topic, or null once released.
    std::function<TopicPublisher*(const TopicDestination&)> find;
    // The topic exists now: parked batches may go.
    std::function<void(TopicPublisher&)> on_exists;
    // Creating failed for good: the writer fails with this status.
    std::function<void(const absl::Status&)> on_failed;
    // An answer arrived (for the writer's progress timeout).
    std::function<void()> on_answer;
  };

  // Every reference must outlive the creator.
  TopicCreator(const PubSubSinkOptions& options, const Clock& clock,
               PublisherStub& stub, connector::TaskTimer& timer,
               connector::Completions& completions,
               std::shared_ptr<Counter> created, Callbacks callbacks);

  // Starts creating the publisher's topic (its state becomes kCreating).
  void Start(TopicPublisher& publisher);
  // Cancels creations in progress; their callbacks are the Completions'.
  void CancelAll();

 private:
  // One topic's creation through its attempts.
  struct Creation {
    std::optional<connector::Retry> retry;
    std::shared_ptr<grpc::ClientContext> context;
    connector::TaskTimer::Id retry_timer = 0;
  };

  void StartAttempt(TopicPublisher& publisher, Creation& creation);
  void OnDone(const TopicDestination& topic, const absl::Status& status);
  google::pubsub::v1::Topic Request(const std::string& topic_name) const;

  const PubSubSinkOptions& options_;
  const Clock& clock_;
  PublisherStub& stub_;
  connector::TaskTimer& timer_;
  connector::Completions& completions_;
  std::shared_ptr<Counter> created_;
  Callbacks callbacks_;
  // By topic name.
  absl::flat_hash_map<std::string, Creation> creations_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_TOPIC_CREATOR_H_
