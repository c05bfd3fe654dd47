#include "gcpstream/testing/scripted_server.h"

#include <grpcpp/client_context.h>

#include "gmock/gmock.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::testing {
namespace {

using ::google::bigtable::v2::MutateRowsRequest;
using ::google::bigtable::v2::MutateRowsResponse;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::StreamingPullRequest;
using ::google::pubsub::v1::StreamingPullResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPublish[] = "google.pubsub.v1.Publisher.Publish";
constexpr char kStreamingPull[] = "google.pubsub.v1.Subscriber.StreamingPull";
constexpr char kMutateRows[] = "google.bigtable.v2.Bigtable.MutateRows";

std::unique_ptr<ScriptedServer> StartServer() {
  auto server = ScriptedServer::Start({"google.pubsub.v1.Publisher",
                                       "google.pubsub.v1.Subscriber",
                                       "google.bigtable.v2.Bigtable"});
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

PublishRequest OneMessage(const std::string& data) {
  PublishRequest request;
  request.set_topic("projects/p/topics/t");
  request.add_messages()->set_data(data);
  return request;
}

TEST(ScriptedServerTest, AnswersStatusSequenceThenDefaultAndRecordsRequests) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  PublishResponse ok;
  ok.add_message_ids("id-1");
  server->Enqueue(kPublish,
                  Always(Fail(grpc::StatusCode::UNAVAILABLE, "storm 1")));
  server->Enqueue(kPublish,
                  Always(Fail(grpc::StatusCode::RESOURCE_EXHAUSTED, "quota")));
  server->SetDefault(kPublish, Always(Respond(ok)));
  auto stub = google::pubsub::v1::Publisher::NewStub(server->NewChannel());

  std::vector<grpc::StatusCode> codes;
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext context;
    context.AddMetadata("x-goog-request-params", "topic=t");
    PublishResponse response;
    codes.push_back(
        stub->Publish(&context, OneMessage("m" + std::to_string(i)), &response)
            .error_code());
    if (i == 2) {
      EXPECT_THAT(response.message_ids(), ElementsAre("id-1"));
    }
  }
  EXPECT_THAT(codes, ElementsAre(grpc::StatusCode::UNAVAILABLE,
                                 grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 grpc::StatusCode::OK));
  auto requests = server->Requests(kPublish);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[2].call, 2);
  const auto& third = static_cast<const PublishRequest&>(*requests[2].message);
  EXPECT_EQ(third.messages(0).data(), "m2");
  auto header = requests[0].metadata.find("x-goog-request-params");
  ASSERT_NE(header, requests[0].metadata.end());
  EXPECT_EQ(header->second, "topic=t");
  EXPECT_EQ(server->CallCount(kPublish), 3);
}

TEST(ScriptedServerTest, PerEntryPartialFailuresFromTheRequest) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  // Every entry whose row key starts with "bad" fails on its own.
  server->SetDefault(
      kMutateRows, Typed<MutateRowsRequest>([](const MutateRowsRequest& req) {
        MutateRowsResponse response;
        for (int i = 0; i < req.entries_size(); ++i) {
          auto* entry = response.add_entries();
          entry->set_index(i);
          const bool bad = req.entries(i).row_key().starts_with("bad");
          entry->mutable_status()->set_code(
              bad ? grpc::StatusCode::INVALID_ARGUMENT : 0);
        }
        return Respond(response);
      }));
  auto stub = google::bigtable::v2::Bigtable::NewStub(server->NewChannel());
  MutateRowsRequest request;
  for (const char* key : {"good-1", "bad-2", "good-3"}) {
    request.add_entries()->set_row_key(key);
  }
  grpc::ClientContext context;
  auto reader = stub->MutateRows(&context, request);
  MutateRowsResponse response;
  std::vector<int> codes;
  while (reader->Read(&response)) {
    for (const auto& entry : response.entries()) {
      codes.push_back(entry.status().code());
    }
  }
  EXPECT_TRUE(reader->Finish().ok());
  EXPECT_THAT(codes, ElementsAre(0, grpc::StatusCode::INVALID_ARGUMENT, 0));
}

TEST(ScriptedServerTest, BidiStreamIsResetAfterScriptedResponses) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  StreamingPullResponse first;
  first.add_received_messages()->set_ack_id("a1");
  StreamingPullResponse second;
  second.add_received_messages()->set_ack_id("a2");
  server->Enqueue(kStreamingPull,
                  Always(RespondStream(
                      {&first, &second},
                      grpc::Status(grpc::StatusCode::UNAVAILABLE, "reset"))));
  auto stub = google::pubsub::v1::Subscriber::NewStub(server->NewChannel());
  grpc::ClientContext context;
  auto stream = stub->StreamingPull(&context);
  StreamingPullRequest open;
  open.set_subscription("projects/p/subscriptions/s");
  ASSERT_TRUE(stream->Write(open));
  std::vector<std::string> ack_ids;
  StreamingPullResponse response;
  while (stream->Read(&response)) {
    ack_ids.push_back(response.received_messages(0).ack_id());
  }
  grpc::Status status = stream->Finish();
  EXPECT_THAT(ack_ids, ElementsAre("a1", "a2"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST(ScriptedServerTest, BidiStreamAnswersEachRequestUntilHalfClose) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  server->SetDefault(
      kStreamingPull,
      Typed<StreamingPullRequest>([](const StreamingPullRequest& request) {
        StreamingPullResponse response;
        for (const std::string& ack : request.ack_ids()) {
          response.add_received_messages()->set_ack_id("echo-" + ack);
        }
        return Respond(response);
      }));
  auto stub = google::pubsub::v1::Subscriber::NewStub(server->NewChannel());
  grpc::ClientContext context;
  auto stream = stub->StreamingPull(&context);
  std::vector<std::string> echoed;
  for (const char* ack : {"x", "y"}) {
    StreamingPullRequest request;
    request.add_ack_ids(ack);
    ASSERT_TRUE(stream->Write(request));
    StreamingPullResponse response;
    ASSERT_TRUE(stream->Read(&response));
    echoed.push_back(response.received_messages(0).ack_id());
  }
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_THAT(echoed, ElementsAre("echo-x", "echo-y"));
  EXPECT_EQ(server->Requests(kStreamingPull).size(), 2u);
}

TEST(ScriptedServerTest, DelayIsAppliedAndDeadlinesExpire) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  server->SetDefault(kPublish, Always(Delayed(absl::Milliseconds(300),
                                              Respond(PublishResponse()))));
  auto stub = google::pubsub::v1::Publisher::NewStub(server->NewChannel());
  {
    grpc::ClientContext context;
    context.set_deadline(
        absl::ToChronoTime(absl::Now() + absl::Milliseconds(50)));
    PublishResponse response;
    EXPECT_EQ(
        stub->Publish(&context, OneMessage("late"), &response).error_code(),
        grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  grpc::ClientContext context;
  const absl::Time start = absl::Now();
  PublishResponse response;
  EXPECT_TRUE(stub->Publish(&context, OneMessage("slow"), &response).ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
}

TEST(ScriptedServerTest, UnscriptedAndUnservedMethodsAreUnimplemented) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto stub = google::pubsub::v1::Publisher::NewStub(server->NewChannel());
  grpc::ClientContext context;
  PublishResponse response;
  grpc::Status status = stub->Publish(&context, OneMessage("x"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_THAT(status.error_message(), HasSubstr(kPublish));

  auto unknown = ScriptedServer::Start({"google.example.NoSuchService"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("NoSuchService"));
}

}  // namespace
}  // namespace gcpstream::testing
