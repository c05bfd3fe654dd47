// The Bigtable sink against a scripted Bigtable server: what the emulator
// cannot produce on demand (per-entry transient and client-error codes,
// request-level refusals, streams that end early, admin answers).

#include "gcpstream/bigtable/bigtable_sink.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigtable/bigtable_sink_test_util.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gmock/gmock.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::bigtable::testing {
namespace {

namespace admin = ::google::bigtable::admin::v2;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::RecordedRequest;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::ScriptedServer;
using ::gcpstream::testing::Typed;
using ::google::bigtable::v2::MutateRowsRequest;
using ::google::bigtable::v2::MutateRowsResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kMutateRows[] = "google.bigtable.v2.Bigtable.MutateRows";
constexpr char kGetTable[] =
    "google.bigtable.admin.v2.BigtableTableAdmin.GetTable";
constexpr char kCreateTable[] =
    "google.bigtable.admin.v2.BigtableTableAdmin.CreateTable";
constexpr char kModifyFamilies[] =
    "google.bigtable.admin.v2.BigtableTableAdmin.ModifyColumnFamilies";
constexpr char kTable[] = "projects/p/instances/i/tables/events";

// Answers each entry with `code_of(row key)`.
::gcpstream::testing::Responder PerEntry(
    const std::function<grpc::StatusCode(const std::string&)>& code_of) {
  return Typed<MutateRowsRequest>([code_of](const MutateRowsRequest& request) {
    MutateRowsResponse response;
    for (int i = 0; i < request.entries_size(); ++i) {
      auto& entry = *response.add_entries();
      entry.set_index(i);
      entry.mutable_status()->set_code(code_of(request.entries(i).row_key()));
      entry.mutable_status()->set_message("scripted");
    }
    return Respond(response);
  });
}

::gcpstream::testing::Responder AllOk() {
  return PerEntry([](const std::string&) { return grpc::StatusCode::OK; });
}

const MutateRowsRequest& RequestOf(const RecordedRequest& recorded) {
  return static_cast<const MutateRowsRequest&>(*recorded.message);
}

class BigtableSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server =
        ScriptedServer::Start({"google.bigtable.v2.Bigtable",
                               "google.bigtable.admin.v2.BigtableTableAdmin"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->SetDefault(kMutateRows, AllOk());
    failures_ = std::make_shared<std::vector<BigtableFailedElement>>();
  }

  BigtableSinkOptions Options() const {
    BigtableSinkOptions options;
    options.name = "events-sink";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.recovery.backoff.initial_delay = absl::Milliseconds(1);
    options.recovery.backoff.max_delay = absl::Milliseconds(5);
    options.write_progress_timeout = absl::Seconds(20);
    return options;
  }

  std::unique_ptr<runtime::SinkWriter<Event>> Writer(
      const BigtableSinkOptions& options) {
    BigtableSink<Event> sink(options, EventTableResolver("p", "i"),
                             EventSerializer(),
                             ::gcpstream::testing::RecordingFactory(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  // Row keys of every entry the server received, in arrival order.
  std::vector<std::string> Received() const {
    std::vector<std::string> rows;
    for (const RecordedRequest& recorded : server_->Requests(kMutateRows)) {
      for (const auto& entry : RequestOf(recorded).entries()) {
        rows.push_back(entry.row_key());
      }
    }
    return rows;
  }

  static std::vector<Event> Events(int n, const std::string& table = "events") {
    std::vector<Event> events;
    events.reserve(n);
    for (int i = 0; i < n; ++i) {
      events.push_back(Event{.table = table,
                             .row = absl::StrCat("r", i),
                             .value = "v",
                             .timestamp_micros = 1'000'000});
    }
    return events;
  }

  std::unique_ptr<ScriptedServer> server_;
  std::shared_ptr<std::vector<BigtableFailedElement>> failures_;
  ::gcpstream::testing::SinkTestTask task_;
};

TEST_F(BigtableSinkTest, BatchesByElementCountWithTheRoutingHeader) {
  BigtableSinkOptions options = Options();
  options.batch_element_count = 100;
  options.app_profile_id = "batch";
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(250)).ok());
  const auto requests = server_->Requests(kMutateRows);
  ASSERT_EQ(requests.size(), 3u);
  std::vector<int> sizes;  // In arrival order, which is not send order.
  sizes.reserve(requests.size());
  for (const RecordedRequest& request : requests) {
    sizes.push_back(RequestOf(request).entries_size());
  }
  EXPECT_THAT(sizes, ::testing::UnorderedElementsAre(100, 100, 50));
  EXPECT_EQ(RequestOf(requests[0]).table_name(), kTable);
  EXPECT_EQ(RequestOf(requests[0]).app_profile_id(), "batch");
  auto params = requests[0].metadata.find("x-goog-request-params");
  ASSERT_NE(params, requests[0].metadata.end());
  EXPECT_THAT(params->second, HasSubstr("table_name=projects%2Fp"));
  EXPECT_THAT(params->second, HasSubstr("app_profile_id=batch"));
  EXPECT_EQ(task_.Metric("records_written"), "250");
  EXPECT_EQ(task_.Metric("in_flight_entries"), "0");
}

TEST_F(BigtableSinkTest, ByteSizeClosesABatchBeforeItWouldOverflow) {
  BigtableSinkOptions options = Options();
  options.batch_byte_size = 100;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(3);
  for (Event& event : events) event.value = std::string(60, 'x');
  ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  EXPECT_EQ(server_->CallCount(kMutateRows), 3);
}

TEST_F(BigtableSinkTest, OnlyTheRefusedEntryReachesTheHandler) {
  server_->Enqueue(kMutateRows, PerEntry([](const std::string& row) {
                     return row == "r1" ? grpc::StatusCode::INVALID_ARGUMENT
                                        : grpc::StatusCode::OK;
                   }));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(3)).ok());
  ASSERT_EQ(failures_->size(), 1u);
  const BigtableFailedElement& failed = failures_->front();
  EXPECT_EQ(failed.connector, "bigtable");
  EXPECT_EQ(failed.destination, kTable);
  EXPECT_EQ(failed.status.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(failed.entry.has_value());
  EXPECT_EQ(failed.entry->row_key(), "r1");
  ASSERT_TRUE(failed.payload.has_value());
  EXPECT_THAT(*failed.payload, HasSubstr("\"rowKey\":\"cjE=\""));  // "r1".
  EXPECT_EQ(server_->CallCount(kMutateRows), 1);
  EXPECT_EQ(task_.Metric("records_written"), "2");
  EXPECT_EQ(task_.Metric("records_routed"), "1");
  EXPECT_EQ(task_.Metric("mutate_errors_invalid_argument"), "1");
}

TEST_F(BigtableSinkTest, TransientEntriesAloneAreResent) {
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
        grpc::StatusCode::ABORTED, grpc::StatusCode::RESOURCE_EXHAUSTED}) {
    SCOPED_TRACE(code);
    SetUp();
    server_->Enqueue(kMutateRows, PerEntry([code](const std::string& row) {
                       return row == "r1" ? code : grpc::StatusCode::OK;
                     }));
    auto writer = Writer(Options());
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(task_.WriteAll(*writer, Events(3)).ok());
    EXPECT_THAT(Received(), ElementsAre("r0", "r1", "r2", "r1"));
    EXPECT_THAT(*failures_, IsEmpty());
  }
}

TEST_F(BigtableSinkTest, ARefusedEntryIsResentUntilItsBudgetEnds) {
  server_->SetDefault(kMutateRows, PerEntry([](const std::string& row) {
                        return row == "r1" ? grpc::StatusCode::UNAVAILABLE
                                           : grpc::StatusCode::OK;
                      }));
  BigtableSinkOptions options = Options();
  options.retry.max_attempts = 3;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Events(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("failed after 3 attempts"));
  EXPECT_THAT(status.message(), HasSubstr("'retry-max-attempts'"));
  EXPECT_THAT(Received(), ElementsAre("r0", "r1", "r1", "r1"));
  EXPECT_THAT(*failures_, IsEmpty());  // Never routed.
  EXPECT_EQ(task_.Metric("entries_resent"), "2");
}

TEST_F(BigtableSinkTest, EntriesTheStreamLeftUndecidedAreResent) {
  server_->Enqueue(
      kMutateRows, Typed<MutateRowsRequest>([](const MutateRowsRequest&) {
        MutateRowsResponse response;
        response.add_entries()->set_index(0);  // OK; 1 and 2 unreported.
        return ::gcpstream::testing::RespondStream(
            {&response}, grpc::Status(grpc::StatusCode::UNAVAILABLE, "reset"));
      }));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(3)).ok());
  EXPECT_THAT(Received(), ElementsAre("r0", "r1", "r2", "r1", "r2"));
  EXPECT_EQ(task_.Metric("records_written"), "3");
  EXPECT_EQ(task_.Metric("request_retries"), "1");
}

TEST_F(BigtableSinkTest, ServerTimestampedEntriesAreNotResentAfterAmbiguity) {
  server_->Enqueue(kMutateRows,
                   ::gcpstream::testing::Always(Fail(
                       grpc::StatusCode::UNAVAILABLE, "connection reset")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(2);
  events[1].timestamp_micros = kServerTimestamp;
  absl::Status status = task_.WriteAll(*writer, events);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("1 entries to"));
  EXPECT_THAT(status.message(), HasSubstr("server's timestamp"));
  EXPECT_EQ(server_->CallCount(kMutateRows), 1);
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(BigtableSinkTest, ServerTimestampedEntriesAreResentAfterARefusal) {
  // RESOURCE_EXHAUSTED refuses before applying anything: safe to resend.
  server_->Enqueue(kMutateRows, PerEntry([](const std::string&) {
                     return grpc::StatusCode::RESOURCE_EXHAUSTED;
                   }));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(1);
  events[0].timestamp_micros = kServerTimestamp;
  ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  EXPECT_EQ(server_->CallCount(kMutateRows), 2);
  EXPECT_EQ(RequestOf(server_->Requests(kMutateRows)[1])
                .entries(0)
                .mutations(0)
                .set_cell()
                .timestamp_micros(),
            -1);
}

TEST_F(BigtableSinkTest, ARequestLevelRefusalIsNeverRouted) {
  server_->Enqueue(kMutateRows,
                   ::gcpstream::testing::Always(Fail(
                       grpc::StatusCode::INVALID_ARGUMENT, "bad app profile")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Events(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("MutateRows of 2 entries to"));
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(BigtableSinkTest, AFatalEntryFailsTheJobNamingRowAndFamilies) {
  server_->Enqueue(kMutateRows, PerEntry([](const std::string& row) {
                     return row == "r1" ? grpc::StatusCode::PERMISSION_DENIED
                                        : grpc::StatusCode::OK;
                   }));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Events(3));
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(status.message(), HasSubstr("row 'r1' (families: cf)"));
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(BigtableSinkTest, TheGuardStopsASystematicRefusal) {
  server_->SetDefault(kMutateRows, PerEntry([](const std::string&) {
                        return grpc::StatusCode::INVALID_ARGUMENT;
                      }));
  BigtableSinkOptions options = Options();
  options.max_consecutive_rejections = 2;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Events(3));
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("max-consecutive-rejections"));
  EXPECT_EQ(failures_->size(), 1u);  // The second refusal in a row trips it.
}

TEST_F(BigtableSinkTest, EntriesOverALimitAreRoutedBeforeSending) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(4);
  events[0].row = std::string(4097, 'k');
  events[1].timestamp_micros = 1'000'001;
  events[2].value = "skip";
  events[3].value = "broken";
  ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  EXPECT_EQ(server_->CallCount(kMutateRows), 0);
  ASSERT_EQ(failures_->size(), 3u);
  EXPECT_THAT((*failures_)[0].status.message(), HasSubstr("4097 bytes"));
  EXPECT_THAT((*failures_)[1].status.message(), HasSubstr("multiple of 1000"));
  EXPECT_THAT((*failures_)[2].status.message(), HasSubstr("serializer"));
  EXPECT_EQ(task_.Metric("records_skipped"), "1");
}

TEST_F(BigtableSinkTest, WriterClockCellsAreStampedInMilliseconds) {
  FakeClock clock(absl::FromUnixMicros(1'700'000'000'123'456));
  BigtableSinkOptions options = Options();
  options.clock = &clock;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(1);
  events[0].timestamp_micros = kWriterClock;
  ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  EXPECT_EQ(RequestOf(server_->Requests(kMutateRows)[0])
                .entries(0)
                .mutations(0)
                .set_cell()
                .timestamp_micros(),
            1'700'000'000'123'000);
}

TEST_F(BigtableSinkTest, AMissingTableFailsUnderCreateNever) {
  server_->SetDefault(
      kMutateRows, ::gcpstream::testing::Always(
                       Fail(grpc::StatusCode::NOT_FOUND, "table not found")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Events(1));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("option 'create-disposition'"));
  EXPECT_EQ(server_->CallCount(kGetTable), 0);
}

class BigtableSinkCreateTest : public BigtableSinkTest {
 protected:
  BigtableSinkOptions CreateOptions() const {
    BigtableSinkOptions options = Options();
    options.create_disposition = CreateDisposition::kCreateIfNeeded;
    options.table_create_options.column_families = {"cf", "audit"};
    options.table_create_options.gc_max_versions = 2;
    options.table_create_options.gc_max_age = absl::Hours(24);
    return options;
  }

  static admin::Table TableWith(const std::vector<std::string>& families) {
    admin::Table table;
    for (const std::string& family : families) {
      (*table.mutable_column_families())[family];
    }
    return table;
  }
};

TEST_F(BigtableSinkCreateTest, AMissingTableIsCreatedWithFamiliesAndRules) {
  server_->Enqueue(kGetTable, ::gcpstream::testing::Always(
                                  Fail(grpc::StatusCode::NOT_FOUND, "no")));
  server_->SetDefault(kCreateTable, ::gcpstream::testing::Always(
                                        Respond(TableWith({"cf", "audit"}))));
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(3)).ok());
  ASSERT_EQ(server_->CallCount(kCreateTable), 1);
  const auto& create = static_cast<const admin::CreateTableRequest&>(
      *server_->Requests(kCreateTable)[0].message);
  EXPECT_EQ(create.parent(), "projects/p/instances/i");
  EXPECT_EQ(create.table_id(), "events");
  const admin::GcRule& rule =
      create.table().column_families().at("cf").gc_rule();
  ASSERT_EQ(rule.union_().rules_size(), 2);
  EXPECT_EQ(rule.union_().rules(0).max_num_versions(), 2);
  EXPECT_EQ(rule.union_().rules(1).max_age().seconds(), 86400);
  EXPECT_TRUE(create.table().column_families().contains("audit"));
  EXPECT_EQ(Received().size(), 3u);
  EXPECT_EQ(task_.Metric("tables_created"), "1");
  EXPECT_EQ(task_.Metric("parked_entries"), "0");
}

TEST_F(BigtableSinkCreateTest, ADeclaredFamilyTheTableLacksIsAdded) {
  server_->SetDefault(kGetTable,
                      ::gcpstream::testing::Always(Respond(TableWith({"cf"}))));
  server_->SetDefault(
      kModifyFamilies,
      ::gcpstream::testing::Always(Respond(TableWith({"cf", "audit"}))));
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(2);
  events[1].family = "audit";
  ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  ASSERT_EQ(server_->CallCount(kModifyFamilies), 1);
  const auto& modify = static_cast<const admin::ModifyColumnFamiliesRequest&>(
      *server_->Requests(kModifyFamilies)[0].message);
  ASSERT_EQ(modify.modifications_size(), 1);
  EXPECT_EQ(modify.modifications(0).id(), "audit");
  EXPECT_EQ(task_.Metric("column_families_added"), "1");
  EXPECT_EQ(Received().size(), 2u);
}

TEST_F(BigtableSinkCreateTest, AnUndeclaredFamilyFailsNamingIt) {
  server_->SetDefault(kGetTable, ::gcpstream::testing::Always(
                                     Respond(TableWith({"cf", "audit"}))));
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  std::vector<Event> events = Events(1);
  events[0].family = "typo";
  absl::Status status = task_.WriteAll(*writer, events);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("family 'typo'"));
  EXPECT_THAT(status.message(), HasSubstr(kTable));
  EXPECT_EQ(server_->CallCount(kMutateRows), 0);
}

TEST_F(BigtableSinkCreateTest, ATableCreatedByAnotherWriterIsReadAgain) {
  server_->Enqueue(kGetTable, ::gcpstream::testing::Always(
                                  Fail(grpc::StatusCode::NOT_FOUND, "no")));
  server_->SetDefault(kCreateTable,
                      ::gcpstream::testing::Always(
                          Fail(grpc::StatusCode::ALREADY_EXISTS, "exists")));
  server_->SetDefault(kGetTable, ::gcpstream::testing::Always(
                                     Respond(TableWith({"cf", "audit"}))));
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(1)).ok());
  EXPECT_EQ(server_->CallCount(kGetTable), 2);
  EXPECT_EQ(task_.Metric("tables_created"), "0");
}

TEST_F(BigtableSinkCreateTest, ATableDeletedWhileWritingIsCreatedAgain) {
  server_->SetDefault(kGetTable, ::gcpstream::testing::Always(
                                     Respond(TableWith({"cf", "audit"}))));
  server_->Enqueue(kMutateRows, ::gcpstream::testing::Always(Fail(
                                    grpc::StatusCode::NOT_FOUND, "deleted")));
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(2)).ok());
  EXPECT_EQ(server_->CallCount(kGetTable), 2);
  EXPECT_EQ(server_->CallCount(kMutateRows), 2);
  EXPECT_EQ(task_.Metric("records_written"), "2");
}

TEST_F(BigtableSinkTest, IdleBatchersAreEvictedAndRebuilt) {
  FakeClock clock(absl::FromUnixSeconds(1'000'000));
  BigtableSinkOptions options = Options();
  options.clock = &clock;
  options.destination_idle_timeout = absl::Minutes(1);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll(*writer, Events(1, "a")).ok());
  clock.Advance(absl::Minutes(2));
  ASSERT_TRUE(task_.WriteAll(*writer, Events(1, "b")).ok());
  EXPECT_EQ(task_.Metric("batchers_evicted"), "1");
  EXPECT_EQ(task_.Metric("batchers_active"), "1");
  ASSERT_TRUE(task_.WriteAll(*writer, Events(1, "a")).ok());
  EXPECT_EQ(task_.Metric("batchers_created"), "3");
  EXPECT_EQ(task_.Metric("records_written"), "3");
  // Never at end of input.
  clock.Advance(absl::Minutes(2));
  ASSERT_TRUE(writer->Flush(/*end_of_input=*/true).ok());
  EXPECT_EQ(task_.Metric("batchers_evicted"), "1");
}

TEST(BigtableSinkOptionsTest, ErrorsNameTheOption) {
  BigtableSinkOptions options;
  options.batch_element_count = 20'000;
  EXPECT_THAT(CheckBigtableSinkOptions(options).message(),
              HasSubstr("'batch-element-count' must be between 1 and 19999"));
  options = BigtableSinkOptions();
  options.create_disposition = CreateDisposition::kCreateIfNeeded;
  EXPECT_THAT(CheckBigtableSinkOptions(options).message(),
              HasSubstr("needs option 'column-families'"));
  options.table_create_options.column_families = {"ok", "-bad"};
  EXPECT_THAT(CheckBigtableSinkOptions(options).message(),
              HasSubstr("family '-bad'"));
  options = BigtableSinkOptions();
  options.table_create_options.column_families = {"cf"};
  EXPECT_THAT(CheckBigtableSinkOptions(options).message(),
              HasSubstr("no table or family would be created"));
}

}  // namespace
}  // namespace gcpstream::bigtable::testing
