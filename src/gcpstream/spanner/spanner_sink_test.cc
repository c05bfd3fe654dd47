// The Spanner sink against a scripted Spanner, for what the emulator cannot
// produce: BatchWrite streams with partial failures and unreported groups,
// transient storms, lost sessions, and the exact requests sent.

#include "gcpstream/spanner/spanner_sink.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.pb.h"
#include "google/spanner/v1/spanner.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner {
namespace {

using ::gcpstream::testing::Always;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::RespondStream;
using ::gcpstream::testing::ScriptedServer;
using ::gcpstream::testing::Typed;
using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::BatchWriteResponse;
using ::google::spanner::v1::CommitRequest;
using ::google::spanner::v1::CommitResponse;
using ::google::spanner::v1::ExecuteSqlRequest;
using ::google::spanner::v1::ResultSet;
using ::testing::HasSubstr;

constexpr char kBatchWrite[] = "google.spanner.v1.Spanner.BatchWrite";
constexpr char kCommit[] = "google.spanner.v1.Spanner.Commit";
constexpr char kCreateSession[] = "google.spanner.v1.Spanner.CreateSession";
constexpr char kExecuteSql[] = "google.spanner.v1.Spanner.ExecuteSql";
constexpr char kDeleteSession[] = "google.spanner.v1.Spanner.DeleteSession";
constexpr char kGetDatabase[] =
    "google.spanner.admin.database.v1.DatabaseAdmin.GetDatabase";

// A record: the order id and amount to upsert into Orders.
struct Row {
  int64_t id = 0;
  int64_t amount = 0;
};

void AddRow(ResultSet& result,
            const std::vector<std::optional<std::string>>& cells) {
  auto& row = *result.add_rows();
  for (const auto& cell : cells) {
    if (cell.has_value()) {
      row.add_values()->set_string_value(*cell);
    } else {
      row.add_values()->set_null_value({});
    }
  }
}

// Orders(OrderId INT64 key, Amount INT64 indexed by OrdersByAmount).
Reply SchemaReply(const ExecuteSqlRequest& request) {
  ResultSet result;
  if (absl::StrContains(request.sql(), "INDEX_COLUMNS")) {
    AddRow(result,
           {"", "Orders", "PRIMARY_KEY", "PRIMARY_KEY", "OrderId", "1"});
    AddRow(result, {"", "Orders", "OrdersByAmount", "INDEX", "Amount", "1"});
  } else {
    AddRow(result, {"", "Orders", "OrderId", "INT64", "NO"});
    AddRow(result, {"", "Orders", "Amount", "INT64", "NO"});
  }
  return Respond(result);
}

BatchWriteResponse GroupStatus(const std::vector<int>& indexes, int code,
                               const std::string& message = "") {
  BatchWriteResponse response;
  for (int index : indexes) response.add_indexes(index);
  response.mutable_status()->set_code(code);
  response.mutable_status()->set_message(message);
  return response;
}

int64_t IdOf(const google::spanner::v1::Mutation& mutation) {
  int64_t id = 0;
  EXPECT_TRUE(absl::SimpleAtoi(
      mutation.insert_or_update().values(0).values(0).string_value(), &id));
  return id;
}

class SpannerSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start(
        {"google.spanner.v1.Spanner",
         "google.spanner.admin.database.v1.DatabaseAdmin"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    google::spanner::admin::database::v1::Database database;
    database.set_name("projects/p/instances/i/databases/d");
    database.set_database_dialect(
        google::spanner::admin::database::v1::GOOGLE_STANDARD_SQL);
    server_->SetDefault(kGetDatabase, Always(Respond(database)));
    google::spanner::v1::Session session;
    session.set_name("projects/p/instances/i/databases/d/sessions/s1");
    server_->SetDefault(kCreateSession, Always(Respond(session)));
    server_->SetDefault(kExecuteSql, Typed<ExecuteSqlRequest>(SchemaReply));
    server_->SetDefault(kDeleteSession,
                        Always(Respond(google::protobuf::Empty())));
    server_->SetDefault(kCommit, Always(Respond(CommitResponse())));
    failures_ = std::make_shared<std::vector<SpannerFailedElement>>();
  }

  SpannerSinkOptions Options() const {
    SpannerSinkOptions options;
    options.name = "orders-db";
    options.database = DatabaseDestination("p", "i", "d");
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    return options;
  }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<Row>>> Writer(
      const SpannerSinkOptions& options) {
    auto failures = failures_;
    SpannerSink<Row> sink(
        options,
        [](const Row& row,
           const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
          if (row.id < 0) return std::nullopt;
          return Mutation::InsertOrUpdate("Orders")
              .Set("OrderId", Value::Int64(row.id))
              .Set("Amount", Value::Int64(row.amount));
        },
        [failures](const runtime::SinkWriterContext&)
            -> absl::StatusOr<std::unique_ptr<SpannerWriteEngine::Handler>> {
          class Recording final : public SpannerWriteEngine::Handler {
           public:
            explicit Recording(
                std::shared_ptr<std::vector<SpannerFailedElement>> out)
                : out_(std::move(out)) {}
            absl::Status Open(const FailureHandlerContext&) override {
              return absl::OkStatus();
            }
            absl::Status Handle(const SpannerFailedElement& f) override {
              out_->push_back(f);
              return absl::OkStatus();
            }
            absl::Status Flush() override { return absl::OkStatus(); }
            void Close() override {}

           private:
            std::shared_ptr<std::vector<SpannerFailedElement>> out_;
          };
          return std::make_unique<Recording>(failures);
        });
    runtime::SinkWriterContext context;
    context.pipeline = "test";
    context.sink_name = "spanner";
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return sink.CreateWriter(context);
  }

  absl::Status Write(runtime::SinkWriter<Row>& writer, Row row) {
    WriterContext context;
    context.record_position = position_++;
    return writer.Write(row, context);
  }

  std::string Metric(absl::string_view metric) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(metric, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }

  std::vector<BatchWriteRequest> BatchWrites() const {
    std::vector<BatchWriteRequest> out;
    for (const auto& r : server_->Requests(kBatchWrite)) {
      out.push_back(static_cast<const BatchWriteRequest&>(*r.message));
    }
    return out;
  }
  std::vector<CommitRequest> Commits() const {
    std::vector<CommitRequest> out;
    for (const auto& r : server_->Requests(kCommit)) {
      out.push_back(static_cast<const CommitRequest&>(*r.message));
    }
    return out;
  }

  std::unique_ptr<ScriptedServer> server_;
  std::shared_ptr<std::vector<SpannerFailedElement>> failures_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
  int64_t position_ = 0;
};

TEST_F(SpannerSinkTest, BatchWriteDecidesEachGroupAndResendsOnlyUndecided) {
  // Groups 0 and 2 applied, 1 refused as existing, 3 aborted, 4 never
  // reported; then everything resent succeeds.
  std::vector<BatchWriteResponse> first = {GroupStatus({0, 2}, 0),
                                           GroupStatus({1}, 6, "Row exists"),
                                           GroupStatus({3}, 10, "aborted")};
  server_->Enqueue(kBatchWrite,
                   Always(RespondStream({first.data(), &first[1], &first[2]})));
  BatchWriteResponse all_ok = GroupStatus({0, 1}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&all_ok})));
  auto writer = Writer(Options());
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int64_t id = 0; id < 5; ++id) {
    ASSERT_TRUE(Write(**writer, {id, id * 10}).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  auto requests = BatchWrites();
  ASSERT_EQ(requests.size(), 2U);
  ASSERT_EQ(requests[0].mutation_groups_size(), 5);
  EXPECT_EQ(requests[0].session(),
            "projects/p/instances/i/databases/d/sessions/s1");
  // Only the aborted and the unreported group are resent, in order.
  ASSERT_EQ(requests[1].mutation_groups_size(), 2);
  EXPECT_EQ(IdOf(requests[1].mutation_groups(0).mutations(0)), 3);
  EXPECT_EQ(IdOf(requests[1].mutation_groups(1).mutations(0)), 4);
  ASSERT_EQ(failures_->size(), 1U);
  EXPECT_EQ(failures_->front().status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(*failures_->front().payload,
            R"({"columns":{"Amount":"10","OrderId":"1"},)"
            R"("operation":"insert-or-update","table":"Orders"})");
  // Each record counted once, however often it was sent.
  EXPECT_EQ(Metric("records_written"), "4");
  EXPECT_EQ(Metric("records_routed"), "1");
  EXPECT_EQ(Metric("mutations_retried"), "2");
  EXPECT_EQ(Metric("batches_sent"), "2");
  EXPECT_EQ(Metric("spanner_errors_aborted"), "1");
  (*writer)->Close();
}

// The routing metadata Google's clients send: the request's resource, the
// database as the resource prefix, and writes routed to the leader.
TEST_F(SpannerSinkTest, RequestsCarryTheRoutingHeadersOfGooglesClients) {
  BatchWriteResponse all_ok = GroupStatus({0}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&all_ok})));
  SpannerSinkOptions options = Options();
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(Write(**writer, {1, 10}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  options.write_method = WriteMethod::kCommit;
  auto committing = Writer(options);
  ASSERT_TRUE(committing.ok()) << committing.status();
  ASSERT_TRUE(Write(**committing, {2, 20}).ok());
  ASSERT_TRUE((*committing)->Flush(false).ok());
  auto header = [](const ::gcpstream::testing::RecordedRequest& request,
                   const std::string& key) {
    auto it = request.metadata.find(key);
    return it == request.metadata.end() ? std::string("<none>") : it->second;
  };
  const std::string session =
      "session=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd%2Fsessions%2Fs1";
  for (const char* method : {kBatchWrite, kCommit}) {
    auto requests = server_->Requests(method);
    ASSERT_FALSE(requests.empty()) << method;
    EXPECT_EQ(header(requests[0], "x-goog-request-params"), session) << method;
    EXPECT_EQ(header(requests[0], "google-cloud-resource-prefix"),
              "projects/p/instances/i/databases/d")
        << method;
    EXPECT_EQ(header(requests[0], "x-goog-spanner-route-to-leader"), "true")
        << method;
  }
  auto created = server_->Requests(kCreateSession);
  ASSERT_FALSE(created.empty());
  EXPECT_EQ(header(created[0], "x-goog-request-params"),
            "database=projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd");
  auto queried = server_->Requests(kExecuteSql);
  ASSERT_FALSE(queried.empty());
  EXPECT_EQ(header(queried[0], "x-goog-request-params"), session);
  EXPECT_EQ(header(queried[0], "x-goog-spanner-route-to-leader"), "<none>")
      << "a read-only query is served by any replica";
}

TEST_F(SpannerSinkTest, ConstraintViolationFollowsThePolicy) {
  BatchWriteResponse refused = GroupStatus({0}, 11, "Check constraint");
  BatchWriteResponse ok = GroupStatus({1}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&refused, &ok})));
  {
    auto writer = Writer(Options());  // fail-job by default
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(Write(**writer, {1, -1}).ok());
    ASSERT_TRUE(Write(**writer, {2, 5}).ok());
    absl::Status flushed = (*writer)->Flush(false);
    EXPECT_EQ(flushed.code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(
        flushed.message(),
        HasSubstr("(OUT_OF_RANGE; constraint-violation-policy=fail-job: "
                  "set constraint-violation-policy: "
                  "route-to-failure-handler to send such records to "
                  "the failure handler instead of failing the job)"));
    (*writer)->Close();
  }
  SpannerSinkOptions options = Options();
  options.constraint_violation_policy =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, -1}).ok());
  ASSERT_TRUE(Write(**writer, {2, 5}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  ASSERT_EQ(failures_->size(), 1U);
  EXPECT_EQ(failures_->front().attributes.at("table"), "Orders");
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, RequestLevelRefusalIsNeverRouted) {
  server_->SetDefault(kBatchWrite,
                      Always(Fail(grpc::StatusCode::ALREADY_EXISTS, "odd")));
  SpannerSinkOptions options = Options();
  options.constraint_violation_policy =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, 1}).ok());
  EXPECT_EQ((*writer)->Flush(false).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(failures_->empty());
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, UnimplementedBatchWriteFallsBackToCommitOnce) {
  server_->SetDefault(
      kBatchWrite, Always(Fail(grpc::StatusCode::UNIMPLEMENTED, "BatchWrite")));
  auto writer = Writer(Options());
  ASSERT_TRUE(writer.ok());
  for (int64_t id = 0; id < 3; ++id) ASSERT_TRUE(Write(**writer, {id, 1}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  for (int64_t id = 3; id < 6; ++id) ASSERT_TRUE(Write(**writer, {id, 1}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  EXPECT_EQ(server_->CallCount(kBatchWrite), 1);
  auto commits = Commits();
  ASSERT_EQ(commits.size(), 2U);
  EXPECT_EQ(commits[0].mutations_size(), 3);
  EXPECT_TRUE(commits[0].single_use_transaction().has_read_write());
  EXPECT_EQ(Metric("write_method_fallbacks"), "1");
  EXPECT_EQ(Metric("records_written"), "6");
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, RefusedCommitIsConfirmedMutationByMutation) {
  server_->SetDefault(
      kCommit, Typed<CommitRequest>([](const CommitRequest& request) {
        for (const auto& m : request.mutations()) {
          if (IdOf(m) == 2) {
            return Fail(grpc::StatusCode::ALREADY_EXISTS, "Row exists");
          }
        }
        return Respond(CommitResponse());
      }));
  SpannerSinkOptions options = Options();
  options.write_method = WriteMethod::kCommit;
  options.max_commit_delay = absl::Milliseconds(20);
  options.rpc_priority = RpcPriority::kLow;
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok());
  for (int64_t id = 0; id < 4; ++id) ASSERT_TRUE(Write(**writer, {id, 1}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  auto commits = Commits();
  ASSERT_EQ(commits.size(), 5U);  // The batch, then each alone.
  EXPECT_EQ(commits[0].max_commit_delay().nanos(), 20'000'000);
  EXPECT_EQ(commits[0].request_options().priority(),
            google::spanner::v1::RequestOptions::PRIORITY_LOW);
  ASSERT_EQ(failures_->size(), 1U);
  EXPECT_EQ(Metric("records_written"), "3");
  (*writer)->Close();
}

// Every group of the request applied.
Reply AllGroupsOk(const BatchWriteRequest& request) {
  std::vector<int> all;
  all.reserve(request.mutation_groups_size());
  for (int i = 0; i < request.mutation_groups_size(); ++i) all.push_back(i);
  BatchWriteResponse ok = GroupStatus(all, 0);
  return RespondStream({&ok});
}

TEST_F(SpannerSinkTest, BatchLimitsAreNeverExceededForEitherMethod) {
  for (WriteMethod method : {WriteMethod::kBatchWrite, WriteMethod::kCommit}) {
    server_->SetDefault(kBatchWrite, Typed<BatchWriteRequest>(AllGroupsOk));
    SpannerSinkOptions options = Options();
    options.write_method = method;
    // Each upsert costs 3 cells (OrderId, Amount + its index entry).
    options.max_batch_cells = 10;
    options.max_batch_mutations = 4;
    options.max_batch_bytes = 1000;
    auto writer = Writer(options);
    ASSERT_TRUE(writer.ok());
    for (int64_t id = 0; id < 40; ++id) {
      ASSERT_TRUE(Write(**writer, {id, id}).ok());
    }
    ASSERT_TRUE((*writer)->Flush(true).ok());
    EXPECT_EQ(Metric("records_written"),
              method == WriteMethod::kBatchWrite ? "40" : "80");
    (*writer)->Close();
  }
  for (const auto& request : BatchWrites()) {
    EXPECT_LE(request.mutation_groups_size() * 3, 10);
  }
  for (const auto& request : Commits()) {
    EXPECT_LE(request.mutations_size() * 3, 10);
    EXPECT_LE(request.mutations_size(), 4);
  }
  EXPECT_EQ(BatchWrites().size(), 14U);  // ceil(40 / 3)
  EXPECT_EQ(Commits().size(), 14U);
}

TEST_F(SpannerSinkTest, ByteLimitIsNeverExceededForEitherMethod) {
  server_->SetDefault(kBatchWrite, Typed<BatchWriteRequest>(AllGroupsOk));
  constexpr int64_t kMaxBytes = 150;
  for (WriteMethod method : {WriteMethod::kBatchWrite, WriteMethod::kCommit}) {
    SpannerSinkOptions options = Options();
    options.write_method = method;
    options.max_batch_bytes = kMaxBytes;
    auto writer = Writer(options);
    ASSERT_TRUE(writer.ok());
    for (int64_t id = 0; id < 30; ++id) {
      ASSERT_TRUE(Write(**writer, {id, id * 1'000'000'007}).ok());
    }
    ASSERT_TRUE((*writer)->Flush(true).ok());
    (*writer)->Close();
  }
  size_t mutations = 0;
  for (const auto& request : BatchWrites()) {
    size_t bytes = 0;
    for (const auto& group : request.mutation_groups()) {
      bytes += group.mutations(0).ByteSizeLong();
    }
    EXPECT_LE(bytes, static_cast<size_t>(kMaxBytes));
    mutations += request.mutation_groups_size();
  }
  for (const auto& request : Commits()) {
    size_t bytes = 0;
    for (const auto& mutation : request.mutations()) {
      bytes += mutation.ByteSizeLong();
    }
    EXPECT_LE(bytes, static_cast<size_t>(kMaxBytes));
    mutations += request.mutations_size();
  }
  EXPECT_EQ(mutations, 60U);
  EXPECT_GT(BatchWrites().size(), 4U);  // The byte limit did split batches.
}

TEST_F(SpannerSinkTest, OversizeMutationIsSentAlone) {
  BatchWriteResponse ok = GroupStatus({0}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&ok})));
  SpannerSinkOptions options = Options();
  options.max_batch_cells = 2;  // One upsert costs 3 cells.
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, 1}).ok());
  ASSERT_TRUE(Write(**writer, {2, 2}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  auto requests = BatchWrites();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].mutation_groups_size(), 1);
  EXPECT_EQ(requests[1].mutation_groups_size(), 1);
  EXPECT_EQ(Metric("records_written"), "2");
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, TwoMutationsOfOneKeyNeverShareABatch) {
  BatchWriteResponse ok = GroupStatus({0, 1}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&ok})));
  auto writer = Writer(Options());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, 10}).ok());
  ASSERT_TRUE(Write(**writer, {2, 10}).ok());
  ASSERT_TRUE(Write(**writer, {1, 20}).ok());  // Same key: a new batch.
  ASSERT_TRUE((*writer)->Flush(false).ok());
  auto requests = BatchWrites();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].mutation_groups_size(), 2);
  EXPECT_EQ(requests[1].mutation_groups_size(), 1);
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, TransientExhaustionFailsTheJob) {
  server_->SetDefault(kBatchWrite,
                      Always(Fail(grpc::StatusCode::UNAVAILABLE, "down")));
  SpannerSinkOptions options = Options();
  options.retry.max_attempts = 3;
  auto writer = Writer(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, 1}).ok());
  absl::Status flushed = (*writer)->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(flushed.message(), HasSubstr("still undecided"));
  EXPECT_EQ(server_->CallCount(kBatchWrite), 3);
  EXPECT_TRUE(failures_->empty());
  (*writer)->Close();
}

TEST_F(SpannerSinkTest, LostSessionIsRecreated) {
  server_->Enqueue(kBatchWrite,
                   Always(Fail(grpc::StatusCode::NOT_FOUND,
                               "Session not found: projects/p/.../s1")));
  BatchWriteResponse ok = GroupStatus({0}, 0);
  server_->SetDefault(kBatchWrite, Always(RespondStream({&ok})));
  auto writer = Writer(Options());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(Write(**writer, {1, 1}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  EXPECT_EQ(server_->CallCount(kCreateSession), 2);
  (*writer)->Close();
  EXPECT_EQ(server_->CallCount(kDeleteSession), 1);
}

TEST_F(SpannerSinkTest, UnknownColumnFailsAndWrongTypeIsRouted) {
  SpannerSinkOptions options = Options();
  SpannerSink<int> sink(
      options,
      [](const int& i,
         const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        if (i == 0) {
          return Mutation::Insert("Orders")
              .Set("OrderId", Value::String("zero"))
              .Set("Amount", Value::Int64(1));
        }
        return Mutation::Insert("Orders").Set("Nope", Value::Int64(1));
      });
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox_);
  auto writer = sink.CreateWriter(context);
  ASSERT_TRUE(writer.ok()) << writer.status();
  // The default handler is fail-job: the wrong type is a per-record failure
  // it turns into the job's failure, naming the column.
  absl::Status wrong = (*writer)->Write(0, WriterContext());
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument) << wrong;
  EXPECT_THAT(wrong.message(), HasSubstr("Orders.OrderId is INT64"));
  (*writer)->Close();
  auto second = sink.CreateWriter(context);
  ASSERT_TRUE(second.ok());
  absl::Status unknown = (*second)->Write(1, WriterContext());
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound) << unknown;
  EXPECT_THAT(unknown.message(), HasSubstr("'Nope'"));
  (*second)->Close();
}

TEST(SpannerSinkOptionsTest, ErrorsNameTheOption) {
  SpannerSinkOptions options;
  options.database = DatabaseDestination("p", "i", "d");
  EXPECT_TRUE(CheckSpannerSinkOptions(options).ok());
  options.max_batch_cells = 80'001;
  EXPECT_THAT(CheckSpannerSinkOptions(options).message(),
              HasSubstr("max-batch-cells"));
  options = SpannerSinkOptions();
  options.database = DatabaseDestination("p", "i", "d");
  options.max_commit_delay = absl::Seconds(1);
  EXPECT_THAT(CheckSpannerSinkOptions(options).message(),
              HasSubstr("max-commit-delay"));
  EXPECT_THAT(CheckSpannerSinkOptions(SpannerSinkOptions()).message(),
              HasSubstr("project"));
  EXPECT_TRUE(kWriteMethodOption.CheckSpellings().ok());
  EXPECT_TRUE(kConstraintViolationPolicyOption.CheckSpellings().ok());
  EXPECT_TRUE(kRpcPriorityOption.CheckSpellings().ok());
  EXPECT_EQ(*kConstraintViolationPolicyOption.Parse("Route-To-Failure-Handler"),
            ConstraintViolationPolicy::kRouteToFailureHandler);
}

}  // namespace
}  // namespace gcpstream::spanner
