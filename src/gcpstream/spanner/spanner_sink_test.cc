// The Spanner sink against a scripted Spanner, for what the emulator cannot
// produce: BatchWrite streams with partial failures and unreported groups,
// transient storms, lost sessions, and the exact requests sent.

#include <memory>
#include <string>
#include <vector>

#include "gcpstream/spanner/spanner_sink_fixture.h"
#include "gcpstream/spanner/wire_write.h"

namespace gcpstream::spanner {
namespace {

using ::gcpstream::spanner::testing::GroupStatus;
using ::gcpstream::spanner::testing::IdOf;
using ::gcpstream::spanner::testing::kBatchWrite;
using ::gcpstream::spanner::testing::kCommit;
using ::gcpstream::spanner::testing::kCreateSession;
using ::gcpstream::spanner::testing::kDeleteSession;
using ::gcpstream::spanner::testing::kExecuteSql;
using ::gcpstream::spanner::testing::Row;
using ::gcpstream::spanner::testing::SpannerSinkTest;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::RespondStream;
using ::gcpstream::testing::Typed;
using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::BatchWriteResponse;
using ::google::spanner::v1::CommitRequest;
using ::google::spanner::v1::CommitResponse;
using ::testing::HasSubstr;

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

// A serializer with a wire encoder: the typed mutation is built for the
// writes that fail, and only for them; one whose typed form cannot be
// rebuilt (a defect of the serializer) is still reported by table and
// operation.
TEST_F(SpannerSinkTest, WireEncodedWritesBuildTheTypedMutationOnlyToReport) {
  std::vector<BatchWriteResponse> answers = {GroupStatus({0, 2}, 0),
                                             GroupStatus({1}, 6, "Row exists"),
                                             GroupStatus({3}, 6, "Row exists")};
  server_->Enqueue(
      kBatchWrite,
      Always(RespondStream({answers.data(), &answers[1], &answers[2]})));
  auto typed_built = std::make_shared<std::vector<int64_t>>();
  SpannerSerializer<Row> serializer(
      [typed_built](const Row& row, const WriterContext&)
          -> absl::StatusOr<std::optional<Mutation>> {
        typed_built->push_back(row.id);
        if (row.id == 3) return absl::InternalError("cannot");
        return Mutation::InsertOrUpdate("Orders")
            .Set("OrderId", Value::Int64(row.id))
            .Set("Amount", Value::Int64(row.amount));
      },
      [](const Row& row, const WriterContext&, const SchemaCatalog& catalog,
         google::protobuf::Arena& arena) -> std::optional<EncodedMutation> {
        auto write = WireWrite::Start(catalog, "Orders",
                                      Operation::kInsertOrUpdate, 2, arena);
        if (!write.has_value() ||
            !write->Add("OrderId", Value::Int64(row.id)).ok() ||
            !write->Add("Amount", Value::Int64(row.amount)).ok()) {
          return std::nullopt;
        }
        absl::StatusOr<EncodedMutation> encoded = std::move(*write).Finish();
        if (!encoded.ok()) return std::nullopt;
        return *encoded;
      });
  auto writer = WriterOf<Row>(Options(), std::move(serializer));
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int64_t id = 0; id < 4; ++id) {
    ASSERT_TRUE(Write(**writer, Row{id, id * 10}).ok());
  }
  EXPECT_TRUE(typed_built->empty());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  ASSERT_EQ(BatchWrites().size(), 1U);
  EXPECT_EQ(BatchWrites()[0]
                .mutation_groups(1)
                .mutations(0)
                .insert_or_update()
                .values(0)
                .values(0)
                .string_value(),
            "1");
  EXPECT_EQ(*typed_built, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(failures_->size(), 2U);
  EXPECT_EQ(*(*failures_)[0].payload,
            R"({"columns":{"Amount":"10","OrderId":"1"},)"
            R"("operation":"insert-or-update","table":"Orders"})");
  ASSERT_TRUE((*failures_)[0].mutation.has_value());
  EXPECT_EQ((*failures_)[0].mutation->values()[0], Value::Int64(1));
  EXPECT_EQ(
      *(*failures_)[1].payload,
      R"({"columns":{},"operation":"insert-or-update","table":"Orders"})");
  EXPECT_EQ(Metric("records_written"), "2");
  EXPECT_EQ(Metric("records_routed"), "2");
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
