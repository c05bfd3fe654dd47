#include "bench/pubsub_null_service.h"

#include <memory>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace pubsub_v1 = ::google::pubsub::v1;

constexpr int kMessagesPerResponse = 100;
constexpr int kPrebuiltResponses = 64;

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

class NullPublisher final : public pubsub_v1::Publisher::CallbackService {
  grpc::ServerUnaryReactor* Publish(
      grpc::CallbackServerContext* context,
      const pubsub_v1::PublishRequest* request,
      pubsub_v1::PublishResponse* response) override {
    for (int i = 0; i < request->messages_size(); ++i) {
      response->add_message_ids()->push_back('1');
    }
    return Done(context);
  }
  grpc::ServerUnaryReactor* GetTopic(grpc::CallbackServerContext* context,
                                     const pubsub_v1::GetTopicRequest* request,
                                     pubsub_v1::Topic* topic) override {
    topic->set_name(request->topic());
    return Done(context);
  }
};

// Streams prebuilt responses until the client half-closes or goes away.
class PullStream final
    : public grpc::ServerBidiReactor<pubsub_v1::StreamingPullRequest,
                                     pubsub_v1::StreamingPullResponse> {
 public:
  explicit PullStream(
      const std::vector<pubsub_v1::StreamingPullResponse>* responses)
      : responses_(responses) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    if (!ok) {
      client_done_ = true;
      if (!writing_) FinishOnce();
      return;
    }
    if (!started_) {
      started_ = true;
      WriteNext();
    }
    StartRead(&request_);
  }
  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok || client_done_) {
      FinishOnce();
      return;
    }
    WriteNext();
  }
  void OnDone() override { delete this; }  // gRPC's reactor idiom.

 private:
  void WriteNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_ = true;
    StartWrite(&(*responses_)[next_++ % responses_->size()]);
  }
  void FinishOnce() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(grpc::Status::OK);
  }

  const std::vector<pubsub_v1::StreamingPullResponse>* responses_;
  pubsub_v1::StreamingPullRequest request_;
  absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool client_done_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
};

class NullSubscriber final : public pubsub_v1::Subscriber::CallbackService {
 public:
  explicit NullSubscriber(size_t message_bytes) {
    const std::string data(message_bytes, 'x');
    int64_t id = 0;
    for (int r = 0; r < kPrebuiltResponses; ++r) {
      pubsub_v1::StreamingPullResponse& response = responses_.emplace_back();
      for (int m = 0; m < kMessagesPerResponse; ++m, ++id) {
        pubsub_v1::ReceivedMessage& received =
            *response.add_received_messages();
        received.set_ack_id(absl::StrCat("projects/bench/subscriptions/bench:",
                                         1'000'000 + id));
        pubsub_v1::PubsubMessage& message = *received.mutable_message();
        message.set_data(data);
        message.set_message_id(absl::StrCat(id));
        message.mutable_publish_time()->set_seconds(1'764'633'600 + id);
      }
    }
  }

  grpc::ServerBidiReactor<pubsub_v1::StreamingPullRequest,
                          pubsub_v1::StreamingPullResponse>*
  StreamingPull(grpc::CallbackServerContext*) override {
    return new PullStream(&responses_);  // NOLINT: deletes itself in OnDone.
  }
  grpc::ServerUnaryReactor* GetSubscription(
      grpc::CallbackServerContext* context,
      const pubsub_v1::GetSubscriptionRequest* request,
      pubsub_v1::Subscription* subscription) override {
    subscription->set_name(request->subscription());
    return Done(context);
  }
  grpc::ServerUnaryReactor* Acknowledge(grpc::CallbackServerContext* context,
                                        const pubsub_v1::AcknowledgeRequest*,
                                        google::protobuf::Empty*) override {
    return Done(context);
  }
  grpc::ServerUnaryReactor* ModifyAckDeadline(
      grpc::CallbackServerContext* context,
      const pubsub_v1::ModifyAckDeadlineRequest*,
      google::protobuf::Empty*) override {
    return Done(context);
  }

 private:
  std::vector<pubsub_v1::StreamingPullResponse> responses_;
};

}  // namespace

ForkedServer StartNullPubSub(size_t message_bytes) {
  return StartForkedServer([message_bytes] {
    std::vector<std::unique_ptr<grpc::Service>> services;
    services.push_back(std::make_unique<NullPublisher>());
    services.push_back(std::make_unique<NullSubscriber>(message_bytes));
    return services;
  });
}

}  // namespace gcpstream::bench
