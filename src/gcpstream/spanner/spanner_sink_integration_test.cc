// The Spanner sink against the emulator: the status each refusal gets
// (measured, not assumed), where refused records go under each
// constraint-violation policy, a fail-job run resumed after the offending
// constraint is fixed, every column type, and the PostgreSQL dialect.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/file_dead_letter_queue.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.grpc.pb.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner {
namespace {

using ::testing::HasSubstr;

constexpr char kProject[] = "sink-project";
constexpr char kInstance[] = "sink-instance";

const std::vector<std::string> kOrdersDdl = {
    "CREATE TABLE Customers (CustomerId INT64 NOT NULL, Name STRING(MAX)) "
    "PRIMARY KEY (CustomerId)",
    "CREATE TABLE Orders (OrderId INT64 NOT NULL, CustomerId INT64, "
    "Code STRING(10), Email STRING(MAX), Amount INT64 NOT NULL, "
    "CONSTRAINT AmountPositive CHECK (Amount >= 0), "
    "CONSTRAINT FkCustomer FOREIGN KEY (CustomerId) "
    "REFERENCES Customers (CustomerId)) PRIMARY KEY (OrderId)",
    "CREATE UNIQUE NULL_FILTERED INDEX OrdersByEmail ON Orders (Email)"};

struct Order {
  int64_t id = 0;
  int64_t amount = 0;
  std::optional<int64_t> customer = std::nullopt;
  std::string code = "c";
  std::optional<std::string> email = std::nullopt;
  Operation operation = Operation::kInsertOrUpdate;
  bool null_amount = false;
};

Mutation ToMutation(const Order& order) {
  Mutation mutation = order.operation == Operation::kInsert
                          ? Mutation::Insert("Orders")
                      : order.operation == Operation::kUpdate
                          ? Mutation::Update("Orders")
                          : Mutation::InsertOrUpdate("Orders");
  if (order.operation == Operation::kDelete) {
    return Mutation::Delete("Orders").Key({Value::Int64(order.id)});
  }
  mutation.Set("OrderId", Value::Int64(order.id))
      .Set("Amount",
           order.null_amount ? Value::NullValue() : Value::Int64(order.amount))
      .Set("Code", Value::String(order.code));
  if (order.customer.has_value()) {
    mutation.Set("CustomerId", Value::Int64(*order.customer));
  }
  if (order.email.has_value()) {
    mutation.Set("Email", Value::String(*order.email));
  }
  return mutation;
}

MutationSerializer<Order> OrderSerializer() {
  return [](const Order& order,
            const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
    return ToMutation(order);
  };
}

class RecordingHandler final : public SpannerWriteEngine::Handler {
 public:
  explicit RecordingHandler(
      std::shared_ptr<std::vector<SpannerFailedElement>> out)
      : out_(std::move(out)) {}
  absl::Status Open(const FailureHandlerContext&) override {
    return absl::OkStatus();
  }
  absl::Status Handle(const SpannerFailedElement& failure) override {
    out_->push_back(failure);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  void Close() override {}

 private:
  std::shared_ptr<std::vector<SpannerFailedElement>> out_;
};

class SpannerSinkIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner)
            .ok());
    auto channel = auth::MakeChannel(auth::Service::kSpanner);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *channel;
  }

  // A fresh database per test, named after it.
  DatabaseDestination CreateDatabase(const std::vector<std::string>& ddl,
                                     bool postgresql = false) {
    std::string name = absl::AsciiStrToLower(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    name = name.substr(0, 28);
    absl::Status created =
        emulators::EnsureSpannerDatabase(channel_, kProject, kInstance, name,
                                         ddl, absl::Seconds(60), postgresql);
    EXPECT_TRUE(created.ok()) << created;
    return DatabaseDestination(kProject, kInstance, name);
  }

  static SpannerSinkOptions Options(const DatabaseDestination& database) {
    SpannerSinkOptions options;
    options.database = database;
    options.retry.backoff.initial_delay = absl::Milliseconds(5);
    return options;
  }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<Order>>> Writer(
      const SpannerSinkOptions& options,
      const std::shared_ptr<std::vector<SpannerFailedElement>>& failures =
          nullptr) {
    SpannerFailureHandlerFactory handler;
    if (failures != nullptr) {
      handler = [failures](const runtime::SinkWriterContext&)
          -> absl::StatusOr<std::unique_ptr<SpannerWriteEngine::Handler>> {
        return std::make_unique<RecordingHandler>(failures);
      };
    }
    SpannerSink<Order> sink(options, OrderSerializer(), handler);
    runtime::SinkWriterContext context;
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return sink.CreateWriter(context);
  }

  // The rows of `sql`, each cell as its wire string ("" for NULL).
  std::vector<std::vector<std::string>> Query(const DatabaseDestination& db,
                                              const std::string& sql) {
    auto stub = google::spanner::v1::Spanner::NewStub(channel_);
    google::spanner::v1::Session session;
    {
      grpc::ClientContext context;
      google::spanner::v1::CreateSessionRequest request;
      request.set_database(db.ResourceName());
      EXPECT_TRUE(stub->CreateSession(&context, request, &session).ok());
    }
    grpc::ClientContext context;
    google::spanner::v1::ExecuteSqlRequest query;
    query.set_session(session.name());
    query.set_sql(sql);
    google::spanner::v1::ResultSet result;
    grpc::Status status = stub->ExecuteSql(&context, query, &result);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : result.rows()) {
      std::vector<std::string> cells;
      for (const auto& value : row.values()) {
        cells.push_back(value.kind_case() == google::protobuf::Value::kBoolValue
                            ? (value.bool_value() ? "true" : "false")
                        : value.kind_case() ==
                                google::protobuf::Value::kNumberValue
                            ? absl::StrCat(value.number_value())
                            : value.string_value());
      }
      rows.push_back(std::move(cells));
    }
    return rows;
  }

  std::string Count(const DatabaseDestination& db, const std::string& table) {
    auto rows = Query(db, absl::StrCat("SELECT COUNT(*) FROM ", table));
    return rows.empty() ? "" : rows[0][0];
  }

  std::shared_ptr<grpc::Channel> channel_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
};

TEST_F(SpannerSinkIntegrationTest, EachRefusalGetsTheMeasuredStatus) {
  DatabaseDestination db = CreateDatabase(kOrdersDdl);
  auto failures = std::make_shared<std::vector<SpannerFailedElement>>();
  SpannerSinkOptions options = Options(db);
  options.constraint_violation_policy =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  auto writer = Writer(options, failures);
  ASSERT_TRUE(writer.ok()) << writer.status();
  WriterContext context;
  struct Case {
    const char* what;
    Order order;
    absl::StatusCode expected;  // kOk: written.
  };
  Order existing{.id = 1, .amount = 5, .email = "a@x"};
  Order duplicate = existing;
  duplicate.operation = Operation::kInsert;
  Order null_amount{.id = 2, .null_amount = true};
  Order too_long{.id = 3, .amount = 1, .code = "12345678901"};
  Order foreign{.id = 4, .amount = 1, .customer = 99};
  Order negative{.id = 5, .amount = -1};
  Order unique{.id = 6, .amount = 1, .email = "a@x"};
  unique.operation = Operation::kInsert;
  Order deleted{.id = 12345};
  deleted.operation = Operation::kDelete;
  const std::vector<Case> cases = {
      {"existing row", existing, absl::StatusCode::kOk},
      {"duplicate insert", duplicate, absl::StatusCode::kAlreadyExists},
      {"NULL in NOT NULL", null_amount, absl::StatusCode::kFailedPrecondition},
      {"value past the column length", too_long,
       absl::StatusCode::kFailedPrecondition},
      {"foreign key", foreign, absl::StatusCode::kFailedPrecondition},
      {"CHECK constraint", negative, absl::StatusCode::kOutOfRange},
      {"UNIQUE index collision", unique, absl::StatusCode::kAlreadyExists},
      {"delete of a missing row", deleted, absl::StatusCode::kOk},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE((*writer)->Write(c.order, context).ok()) << c.what;
    // One flush per case, so each refusal is its own.
    ASSERT_TRUE((*writer)->Flush(false).ok()) << c.what;
    if (c.expected == absl::StatusCode::kOk) continue;
    ASSERT_FALSE(failures->empty()) << c.what;
    EXPECT_EQ(failures->back().status.code(), c.expected)
        << c.what << ": " << failures->back().status;
  }
  EXPECT_EQ(failures->size(), 6U);
  (*writer)->Close();

  // Update of a missing row: NOT_FOUND fails the job whatever the policy.
  auto update_writer = Writer(options, failures);
  ASSERT_TRUE(update_writer.ok());
  Order missing{.id = 777, .amount = 1};
  missing.operation = Operation::kUpdate;
  ASSERT_TRUE((*update_writer)->Write(missing, context).ok());
  absl::Status flushed = (*update_writer)->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound) << flushed;
  (*update_writer)->Close();
  EXPECT_EQ(Count(db, "Orders"), "1");
}

TEST_F(SpannerSinkIntegrationTest, EmulatorAnswersBatchWriteUnimplemented) {
  DatabaseDestination db = CreateDatabase(kOrdersDdl);
  auto writer = Writer(Options(db));
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int64_t id = 0; id < 50; ++id) {
    ASSERT_TRUE((*writer)->Write(Order{.id = id, .amount = id}, {}).ok());
  }
  absl::Status flushed = (*writer)->Flush(true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  (*writer)->Close();
  // Emulator 1.5.28 deviation, pinned: BatchWrite is UNIMPLEMENTED, so the
  // sink fell back to commit once.
  EXPECT_THAT(registry_.ExportPrometheusText(),
              HasSubstr("write_method_fallbacks{"));
  EXPECT_THAT(registry_.ExportPrometheusText(),
              HasSubstr("spanner_errors_unimplemented{"));
  EXPECT_EQ(Count(db, "Orders"), "50");
}

// A deterministic stream of orders with known bad ones: every 97th has a
// negative amount (CHECK), and record 500 inserts an id that exists.
Order GeneratedOrder(int64_t i) {
  Order order{.id = i, .amount = i};
  if (i % 97 == 50) order.amount = -i;
  if (i == 500) {
    order.id = 10;
    order.operation = Operation::kInsert;
  }
  return order;
}

absl::StatusOr<runtime::JobSummary> RunOrders(
    const SpannerSinkOptions& options, SpannerFailureHandlerFactory handler,
    const std::string& checkpoints, int64_t count, double rate) {
  runtime::PipelineOptions pipeline_options;
  pipeline_options.name = "spanner-orders";
  pipeline_options.checkpoint_directory = checkpoints;
  pipeline_options.checkpoint_interval = absl::Milliseconds(100);
  runtime::Pipeline pipeline(pipeline_options);
  runtime::GeneratorOptions generator;
  generator.count = count;
  generator.records_per_second = rate;
  generator.max_records_per_poll = 50;
  auto source = runtime::GeneratorSource<int64_t>::Create(
      "orders", [](int64_t i) { return i; }, generator);
  if (!source.ok()) return source.status();
  auto sink = std::make_shared<SpannerSink<Order>>(options, OrderSerializer(),
                                                   std::move(handler));
  pipeline
      .AddSource(std::shared_ptr<runtime::GeneratorSource<int64_t>>(
                     *std::move(source)),
                 1)
      .Map([](const int64_t& i) { return GeneratedOrder(i); })
      .SinkTo(sink, 2);
  return pipeline.Run();
}

int CountLines(const std::string& directory) {
  int lines = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) lines += line.empty() ? 0 : 1;
  }
  return lines;
}

TEST_F(SpannerSinkIntegrationTest, RoutePolicySendsRefusalsToTheFileQueue) {
  DatabaseDestination db = CreateDatabase(kOrdersDdl);
  SpannerSinkOptions options = Options(db);
  options.constraint_violation_policy =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  const std::string dead_letters = runtime::FreshTestDirectory() + "/dlq";
  SpannerFailureHandlerFactory to_file =
      [dead_letters](const runtime::SinkWriterContext&)
      -> absl::StatusOr<std::unique_ptr<SpannerWriteEngine::Handler>> {
    return SendToDeadLetterQueue<SpannerFailedElement>(
        std::make_unique<FileDeadLetterQueue>(dead_letters));
  };
  auto summary =
      RunOrders(options, to_file, runtime::FreshTestDirectory(), 1000,
                /*rate=*/0);
  ASSERT_TRUE(summary.ok()) << summary.status();
  // 10 negative amounts (50, 147, ..., 923) and the duplicate insert.
  int refused = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    refused += (i % 97 == 50) ? 1 : 0;
  }
  EXPECT_EQ(CountLines(dead_letters), refused + 1);
  EXPECT_EQ(Count(db, "Orders"), absl::StrCat(1000 - refused - 1));
  std::string line;
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(dead_letters)) {
    std::ifstream in(entry.path());
    while (std::getline(in, line)) all += line + "\n";
  }
  EXPECT_THAT(all, HasSubstr("\"error_code\":\"OUT_OF_RANGE\""));
  EXPECT_THAT(all, HasSubstr("\"error_code\":\"ALREADY_EXISTS\""));
}

TEST_F(SpannerSinkIntegrationTest,
       FailJobThenFixedConstraintResumesLosslessly) {
  DatabaseDestination db = CreateDatabase(kOrdersDdl);
  SpannerSinkOptions options = Options(db);
  const std::string checkpoints = runtime::FreshTestDirectory();
  // Paced so that checkpoints complete before record 50 fails the job.
  auto failed = RunOrders(options, nullptr, checkpoints, 400, /*rate=*/400);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kOutOfRange)
      << failed.status();
  EXPECT_THAT(failed.status().message(), HasSubstr("AmountPositive"));
  // The owner fixes the data's home: the constraint goes.
  ASSERT_TRUE(emulators::UpdateSpannerDdl(
                  channel_, db.ResourceName(),
                  {"ALTER TABLE Orders DROP CONSTRAINT AmountPositive"})
                  .ok());
  auto resumed = RunOrders(options, nullptr, checkpoints, 400, /*rate=*/0);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(Count(db, "Orders"), "400");
  auto negative = Query(db, "SELECT Amount FROM Orders WHERE OrderId = 50");
  ASSERT_EQ(negative.size(), 1U);
  EXPECT_EQ(negative[0][0], "-50");
}

TEST_F(SpannerSinkIntegrationTest, EveryColumnTypeRoundTrips) {
  DatabaseDestination db = CreateDatabase(
      {"CREATE TABLE AllTypes (Id INT64 NOT NULL, B BOOL, F32 FLOAT32, "
       "F64 FLOAT64, N NUMERIC, S STRING(MAX), Y BYTES(MAX), D DATE, "
       "T TIMESTAMP, C TIMESTAMP OPTIONS (allow_commit_timestamp = true), "
       "J JSON, A ARRAY<INT64>, Strs ARRAY<STRING(MAX)>) PRIMARY KEY (Id)"});
  SpannerSinkOptions options = Options(db);
  options.write_method = WriteMethod::kCommit;
  SpannerSink<int> sink(
      options,
      [](const int&,
         const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        return Mutation::Insert("AllTypes")
            .Set("Id", Value::Int64(1))
            .Set("B", Value::Bool(true))
            .Set("F32", Value::Float32(1.5F))
            .Set("F64", Value::Int64(3))  // widened to FLOAT64
            .Set("N", Value::NumericValue("12.50"))
            .Set("S", Value::String("snow ☃"))
            .Set("Y", Value::BytesValue(std::string("\x00\xff", 2)))
            .Set("D", Value::Date(absl::CivilDay(2026, 12, 2)))
            .Set("T", Value::Timestamp(absl::FromUnixMillis(1'764'633'600'123)))
            .Set("C", Value::CommitTimestampValue())
            .Set("J", Value::JsonValue(R"({"a":1})"))
            .Set("A", Value::ArrayOf({Value::Int64(1), Value::NullValue()}))
            .Set("Strs", Value::ArrayOf({Value::String("x")}));
      });
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox_);
  auto writer = sink.CreateWriter(context);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Write(0, WriterContext()).ok());
  absl::Status flushed = (*writer)->Flush(true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  (*writer)->Close();
  auto rows = Query(db,
                    "SELECT CAST(B AS STRING), CAST(F32 AS STRING), "
                    "CAST(F64 AS STRING), CAST(N AS STRING), S, Y, "
                    "CAST(D AS STRING), T, "
                    "CAST(C IS NOT NULL AS STRING), TO_JSON_STRING(J), "
                    "ARRAY_TO_STRING(ARRAY(SELECT CAST(x AS STRING) FROM "
                    "UNNEST(A) AS x WITH OFFSET o ORDER BY o), ','), "
                    "ARRAY_LENGTH(A) FROM AllTypes");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0][0], "true");
  EXPECT_EQ(rows[0][1], "1.5");
  EXPECT_EQ(rows[0][2], "3");
  EXPECT_EQ(rows[0][3], "12.5");
  EXPECT_EQ(rows[0][4], "snow ☃");
  EXPECT_EQ(rows[0][5], "AP8=");  // BYTES come back base64.
  EXPECT_EQ(rows[0][6], "2026-12-02");
  EXPECT_EQ(rows[0][7], "2025-12-02T00:00:00.123Z");
  EXPECT_EQ(rows[0][8], "true");
  EXPECT_EQ(rows[0][9], R"({"a":1})");
  EXPECT_EQ(rows[0][11], "2");
}

// The schema query behind dependency-safe batching (MutationBatch) reads
// the emulator's INFORMATION_SCHEMA as the sink expects, and parents and
// interleaved children written together all land.
TEST_F(SpannerSinkIntegrationTest, RelationsQueryReadsInterleavingAndKeys) {
  DatabaseDestination db = CreateDatabase(
      {"CREATE TABLE Singers (SingerId INT64 NOT NULL) PRIMARY KEY (SingerId)",
       "CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL)"
       " PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers",
       "CREATE TABLE Reviews (ReviewId INT64 NOT NULL, SingerId INT64, "
       "CONSTRAINT FkSinger FOREIGN KEY (SingerId) REFERENCES Singers "
       "(SingerId)) PRIMARY KEY (ReviewId)"});
  EXPECT_THAT(
      Query(db, SchemaCatalog::RelationsQuery(Dialect::kGoogleSql)),
      ::testing::UnorderedElementsAre(
          ::testing::ElementsAre("", "Albums", "INTERLEAVE", "", "Singers"),
          ::testing::ElementsAre("", "Reviews", "FOREIGN_KEY", "", "Singers")));
  SpannerSink<int64_t> sink(
      Options(db),
      [](const int64_t& i,
         const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        const int64_t singer = i / 3;
        switch (i % 3) {
          case 0:
            return Mutation::Insert("Singers").Set("SingerId",
                                                   Value::Int64(singer));
          case 1:
            return Mutation::Insert("Albums")
                .Set("SingerId", Value::Int64(singer))
                .Set("AlbumId", Value::Int64(1));
          default:
            return Mutation::Insert("Reviews")
                .Set("ReviewId", Value::Int64(singer))
                .Set("SingerId", Value::Int64(singer));
        }
      });
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox_);
  auto writer = sink.CreateWriter(context);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int64_t i = 0; i < 60; ++i) {
    absl::Status written = (*writer)->Write(i, WriterContext());
    ASSERT_TRUE(written.ok()) << written;
  }
  absl::Status flushed = (*writer)->Flush(true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  (*writer)->Close();
  EXPECT_EQ(Count(db, "Singers"), "20");
  EXPECT_EQ(Count(db, "Albums"), "20");
  EXPECT_EQ(Count(db, "Reviews"), "20");
}

TEST_F(SpannerSinkIntegrationTest, PostgreSqlDialectThroughTheSamePath) {
  DatabaseDestination db = CreateDatabase(
      {"CREATE TABLE orders (order_id bigint NOT NULL PRIMARY KEY, "
       "amount bigint NOT NULL, note character varying(20), "
       "at timestamptz, tags text[], CONSTRAINT amount_positive CHECK "
       "(amount >= 0))"},
      /*postgresql=*/true);
  SpannerSinkOptions options = Options(db);
  options.constraint_violation_policy =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  auto failures = std::make_shared<std::vector<SpannerFailedElement>>();
  SpannerSink<int64_t> sink(
      options,
      [](const int64_t& i,
         const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        return Mutation::InsertOrUpdate("orders")
            .Set("order_id", Value::Int64(i))
            .Set("amount", Value::Int64(i == 3 ? -1 : i))
            .Set("note", Value::String("n"))
            .Set("at", Value::Timestamp(absl::FromUnixSeconds(i)))
            .Set("tags", Value::ArrayOf({Value::String("a")}));
      },
      [failures](const runtime::SinkWriterContext&)
          -> absl::StatusOr<std::unique_ptr<SpannerWriteEngine::Handler>> {
        return std::make_unique<RecordingHandler>(failures);
      });
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox_);
  auto writer = sink.CreateWriter(context);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int64_t i = 0; i < 10; ++i) {
    absl::Status written = (*writer)->Write(i, WriterContext());
    ASSERT_TRUE(written.ok()) << written;
  }
  absl::Status flushed = (*writer)->Flush(true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  (*writer)->Close();
  ASSERT_EQ(failures->size(), 1U);
  EXPECT_EQ(failures->front().status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Count(db, "orders"), "9");
}

TEST_F(SpannerSinkIntegrationTest, EmulatorDeviationsArePinned) {
  DatabaseDestination db = CreateDatabase(
      {"CREATE TABLE t (id bigint NOT NULL PRIMARY KEY)"}, /*postgresql=*/true);
  {
    auto admin =
        google::spanner::admin::database::v1::DatabaseAdmin::NewStub(channel_);
    grpc::ClientContext context;
    google::spanner::admin::database::v1::GetDatabaseRequest request;
    request.set_name(db.ResourceName());
    google::spanner::admin::database::v1::Database database;
    ASSERT_TRUE(admin->GetDatabase(&context, request, &database).ok());
    // The service says POSTGRESQL; emulator 1.5.28 leaves it unset.
    EXPECT_EQ(
        database.database_dialect(),
        google::spanner::admin::database::v1::DATABASE_DIALECT_UNSPECIFIED);
  }
  auto stub = google::spanner::v1::Spanner::NewStub(channel_);
  grpc::ClientContext context;
  google::spanner::v1::CreateSessionRequest request;
  request.set_database(db.ResourceName());
  request.mutable_session()->set_multiplexed(true);
  google::spanner::v1::Session session;
  ASSERT_TRUE(stub->CreateSession(&context, request, &session).ok());
  EXPECT_FALSE(session.multiplexed());
  grpc::ClientContext delete_context;
  google::spanner::v1::DeleteSessionRequest remove;
  remove.set_name(session.name() + "-no-such-session");
  google::protobuf::Empty empty;
  EXPECT_TRUE(stub->DeleteSession(&delete_context, remove, &empty).ok());
}

}  // namespace
}  // namespace gcpstream::spanner
