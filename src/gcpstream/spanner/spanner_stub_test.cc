// The Spanner stub stack, and the connection's session handling driven
// through a fake bottom stub instead of a gRPC server.

#include "gcpstream/spanner/spanner_stub.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/test/client_context_test_peer.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/spanner/spanner_connection.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner {
namespace {

namespace admin = ::google::spanner::admin::database::v1;
namespace v1 = ::google::spanner::v1;
using ::gcpstream::connector::RpcDone;
using ::gcpstream::connector::RpcOnResponse;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

constexpr char kDatabase[] = "projects/p/instances/i/databases/d";

// The bottom of the stack: records each call's method, resource and
// metadata, and answers through the test's handler for the method (OK
// when there is none).
class FakeSpanner final : public SpannerStub {
 public:
  struct Call {
    std::string method;
    std::string resource;
    std::multimap<std::string, std::string> metadata;
  };

  void AsyncCreateSession(grpc::ClientContext& context,
                          const v1::CreateSessionRequest& request,
                          v1::Session& response, RpcDone done) override {
    Record("CreateSession", request.database(), context);
    response.set_name(
        absl::StrCat(request.database(), "/sessions/s", ++sessions_));
    done(Answer("CreateSession"));
  }
  void AsyncDeleteSession(grpc::ClientContext& context,
                          const v1::DeleteSessionRequest& request,
                          google::protobuf::Empty&, RpcDone done) override {
    Record("DeleteSession", request.name(), context);
    done(Answer("DeleteSession"));
  }
  void AsyncExecuteSql(grpc::ClientContext& context,
                       const v1::ExecuteSqlRequest& request, v1::ResultSet&,
                       RpcDone done) override {
    Record("ExecuteSql", request.session(), context);
    done(Answer("ExecuteSql"));
  }
  void AsyncCommit(grpc::ClientContext& context,
                   const v1::CommitRequest& request, v1::CommitResponse&,
                   RpcDone done) override {
    Record("Commit", request.session(), context);
    done(Answer("Commit"));
  }
  void AsyncBatchWrite(grpc::ClientContext& context,
                       const v1::BatchWriteRequest& request,
                       RpcOnResponse<v1::BatchWriteResponse> on_response,
                       RpcDone done) override {
    Record("BatchWrite", request.session(), context);
    for (int i = 0; i < request.mutation_groups_size(); ++i) {
      v1::BatchWriteResponse response;
      response.add_indexes(i);
      on_response(std::move(response));
    }
    done(Answer("BatchWrite"));
  }
  void AsyncGetDatabase(grpc::ClientContext& context,
                        const admin::GetDatabaseRequest& request,
                        admin::Database&, RpcDone done) override {
    Record("GetDatabase", request.name(), context);
    done(Answer("GetDatabase"));
  }

  // Answers of the next calls per method, in order; OK once used up.
  std::map<std::string, std::vector<grpc::Status>> script;
  std::vector<Call> calls;

 private:
  void Record(std::string method, std::string resource,
              grpc::ClientContext& context) {
    calls.push_back({std::move(method), std::move(resource),
                     grpc::testing::ClientContextTestPeer(&context)
                         .GetSendInitialMetadata()});
  }
  grpc::Status Answer(const std::string& method) {
    auto& answers = script[method];
    if (answers.empty()) return grpc::Status::OK;
    grpc::Status status = answers.front();
    answers.erase(answers.begin());
    return status;
  }

  int sessions_ = 0;
};

TEST(DatabaseOfTest, CutsASessionNameToItsDatabase) {
  EXPECT_EQ(DatabaseOf(absl::StrCat(kDatabase, "/sessions/abc")), kDatabase);
  EXPECT_EQ(DatabaseOf(kDatabase), kDatabase);
}

TEST(SpannerMetadataTest, RoutesByResourceAndSendsWritesToTheLeader) {
  auto fake = std::make_shared<FakeSpanner>();
  SpannerMetadata stub(fake);
  const std::string session = absl::StrCat(kDatabase, "/sessions/s 1");
  auto ignore = [](const grpc::Status&) {};
  {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_database(kDatabase);
    v1::Session response;
    stub.AsyncCreateSession(context, request, response, ignore);
  }
  {
    grpc::ClientContext context;
    v1::ExecuteSqlRequest request;
    request.set_session(session);
    v1::ResultSet response;
    stub.AsyncExecuteSql(context, request, response, ignore);
  }
  {
    grpc::ClientContext context;
    v1::CommitRequest request;
    request.set_session(session);
    v1::CommitResponse response;
    stub.AsyncCommit(context, request, response, ignore);
  }
  {
    grpc::ClientContext context;
    v1::BatchWriteRequest request;
    request.set_session(session);
    stub.AsyncBatchWrite(
        context, request, [](v1::BatchWriteResponse&&) {}, ignore);
  }
  {
    grpc::ClientContext context;
    admin::GetDatabaseRequest request;
    request.set_name(kDatabase);
    admin::Database response;
    stub.AsyncGetDatabase(context, request, response, ignore);
  }
  {
    grpc::ClientContext context;
    v1::DeleteSessionRequest request;
    request.set_name(session);
    google::protobuf::Empty response;
    stub.AsyncDeleteSession(context, request, response, ignore);
  }
  const std::string database_param =
      "database=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd";
  const std::string session_param =
      "session=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd%2Fsessions%2Fs%201";
  auto prefix = Pair("google-cloud-resource-prefix", kDatabase);
  auto leader = Pair("x-goog-spanner-route-to-leader", "true");
  ASSERT_EQ(fake->calls.size(), 6u);
  EXPECT_THAT(fake->calls[0].metadata,
              UnorderedElementsAre(
                  Pair("x-goog-request-params", database_param), prefix));
  EXPECT_THAT(fake->calls[1].metadata,
              UnorderedElementsAre(Pair("x-goog-request-params", session_param),
                                   prefix));
  EXPECT_THAT(fake->calls[2].metadata,
              UnorderedElementsAre(Pair("x-goog-request-params", session_param),
                                   prefix, leader));
  EXPECT_THAT(fake->calls[3].metadata,
              UnorderedElementsAre(Pair("x-goog-request-params", session_param),
                                   prefix, leader));
  EXPECT_THAT(fake->calls[4].metadata,
              UnorderedElementsAre(
                  Pair("x-goog-request-params",
                       "name=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd"),
                  prefix));
  EXPECT_THAT(
      fake->calls[5].metadata,
      UnorderedElementsAre(
          Pair("x-goog-request-params",
               "name=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd%2Fsessions%"
               "2Fs%201"),
          prefix));
}

// The connection over the fake; the test thread is the task thread.
class ConnectionThroughStubTest : public ::testing::Test {
 protected:
  std::unique_ptr<SpannerConnection> Open() {
    SpannerSinkOptions options;
    options.name = "orders-sink";
    options.database = DatabaseDestination("p", "i", "d");
    options.channel.endpoint = "127.0.0.1:1";  // Never dialled.
    options.channel.plaintext = true;
    options.make_stub = [fake = fake_](const std::shared_ptr<grpc::Channel>&) {
      return fake;
    };
    auto connection =
        SpannerConnection::Open(options, runtime::MailboxExecutor(&mailbox_));
    EXPECT_TRUE(connection.ok()) << connection.status();
    return connection.ok() ? *std::move(connection) : nullptr;
  }

  std::vector<std::string> Calls() const {
    std::vector<std::string> out;
    for (const auto& call : fake_->calls) {
      out.push_back(absl::StrCat(call.method, " ", call.resource));
    }
    return out;
  }

  std::shared_ptr<FakeSpanner> fake_ = std::make_shared<FakeSpanner>();
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
};

TEST_F(ConnectionThroughStubTest, AGoneSessionIsReplacedAndTheCallResent) {
  auto connection = Open();
  ASSERT_NE(connection, nullptr);
  fake_->script["Commit"] = {
      grpc::Status(grpc::StatusCode::NOT_FOUND, "Session not found: s1")};
  v1::CommitRequest commit;
  EXPECT_TRUE(connection->Commit(commit).ok());
  connection->Close();
  const std::string db = kDatabase;
  EXPECT_THAT(Calls(),
              ElementsAre(absl::StrCat("CreateSession ", db),
                          absl::StrCat("Commit ", db, "/sessions/s1"),
                          absl::StrCat("CreateSession ", db),
                          absl::StrCat("Commit ", db, "/sessions/s2"),
                          absl::StrCat("DeleteSession ", db, "/sessions/s2")));
  EXPECT_EQ(connection->sessions_created(), 2);
}

TEST_F(ConnectionThroughStubTest, OtherNotFoundAnswersKeepTheSession) {
  auto connection = Open();
  ASSERT_NE(connection, nullptr);
  fake_->script["Commit"] = {
      grpc::Status(grpc::StatusCode::NOT_FOUND, "Table not found: Orders")};
  v1::CommitRequest commit;
  EXPECT_EQ(connection->Commit(commit).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(connection->sessions_created(), 1);
}

TEST_F(ConnectionThroughStubTest, BatchWriteKeepsEveryStreamedResponse) {
  auto connection = Open();
  ASSERT_NE(connection, nullptr);
  v1::BatchWriteRequest request;
  request.add_mutation_groups();
  request.add_mutation_groups();
  request.add_mutation_groups();
  SpannerConnection::BatchWriteResult result = connection->BatchWrite(request);
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.responses.size(), 3u);
  EXPECT_EQ(result.responses[2].indexes(0), 2);
}

}  // namespace
}  // namespace gcpstream::spanner
