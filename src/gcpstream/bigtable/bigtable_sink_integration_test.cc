// The Bigtable sink against the emulator: tables created per day from the
// records' event time, families added, create-never, undeclared families,
// partial failures, and the emulator's deviations from the service pinned.

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/bigtable/bigtable_sink_test_util.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::bigtable::testing {
namespace {

namespace admin = ::google::bigtable::admin::v2;
namespace v2 = ::google::bigtable::v2;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kProject[] = "it-project";
constexpr char kInstance[] = "it-instance";

struct Cell {
  std::string row;
  std::string family;
  std::string qualifier;
  int64_t timestamp_micros = 0;
  std::string value;
  friend bool operator==(const Cell&, const Cell&) = default;
};

std::string TableName(const std::string& table) {
  return TableDestination(kProject, kInstance, table).ResourceName();
}

// Every cell of `table`, every version, in the emulator's order.
std::vector<Cell> ReadAll(const std::shared_ptr<grpc::Channel>& channel,
                          const std::string& table) {
  auto stub = v2::Bigtable::NewStub(channel);
  grpc::ClientContext context;
  v2::ReadRowsRequest request;
  request.set_table_name(TableName(table));
  auto reader = stub->ReadRows(&context, request);
  std::vector<Cell> cells;
  Cell current;
  v2::ReadRowsResponse response;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (!chunk.row_key().empty()) current.row = chunk.row_key();
      if (chunk.has_family_name()) current.family = chunk.family_name().value();
      if (chunk.has_qualifier()) current.qualifier = chunk.qualifier().value();
      current.timestamp_micros = chunk.timestamp_micros();
      current.value += chunk.value();
      if (chunk.value_size() == 0) {
        cells.push_back(current);
        current.value.clear();
      }
    }
  }
  grpc::Status status = reader->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return cells;
}

absl::StatusOr<admin::Table> GetTable(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& table) {
  auto stub = admin::BigtableTableAdmin::NewStub(channel);
  grpc::ClientContext context;
  admin::GetTableRequest request;
  request.set_name(TableName(table));
  request.set_view(admin::Table::SCHEMA_VIEW);
  admin::Table response;
  grpc::Status status = stub->GetTable(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        status.error_message());
  }
  return response;
}

// Tables named after the day of the record's event time, the shape of a
// date-partitioned sink.
std::shared_ptr<DestinationResolver<Event, TableDestination>> DailyResolver() {
  return MakeResolver<Event, TableDestination>(
      [](const Event& event,
         const WriterContext&) -> absl::StatusOr<TableDestination> {
        const absl::Time time = absl::FromUnixMicros(event.timestamp_micros);
        return TableDestination(
            kProject, kInstance,
            absl::StrCat(
                event.table, "-",
                absl::FormatTime("%Y%m%d", time, absl::UTCTimeZone())));
      });
}

class BigtableSinkIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto channel = ::gcpstream::testing::TestEmulatorChannel(
        emulators::EmulatorKind::kBigtable);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *std::move(channel);
    failures_ = std::make_shared<std::vector<BigtableFailedElement>>();
    // Unique per run, so reruns against one emulator do not collide.
    suffix_ = absl::StrCat(absl::ToUnixMicros(absl::Now()) % 1'000'000'000);
  }

  static BigtableSinkOptions Options() {
    BigtableSinkOptions options;
    options.name = "events-sink";
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.write_progress_timeout = absl::Seconds(30);
    return options;
  }

  static BigtableSinkOptions CreateOptions() {
    BigtableSinkOptions options = Options();
    options.create_disposition = CreateDisposition::kCreateIfNeeded;
    options.table_create_options.column_families = {"cf", "audit"};
    options.table_create_options.gc_max_versions = 3;
    return options;
  }

  std::unique_ptr<runtime::SinkWriter<Event>> Writer(
      const BigtableSinkOptions& options,
      std::shared_ptr<DestinationResolver<Event, TableDestination>> resolver =
          nullptr) {
    if (resolver == nullptr) resolver = EventTableResolver(kProject, kInstance);
    BigtableSink<Event> sink(options, std::move(resolver), EventSerializer(),
                             ::gcpstream::testing::RecordingFactory(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  absl::Status Provision(const std::string& table,
                         const std::vector<std::string>& families) {
    return emulators::EnsureBigtableTable(channel_, kProject, kInstance, table,
                                          families);
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<std::vector<BigtableFailedElement>> failures_;
  ::gcpstream::testing::SinkTestTask task_;
  std::string suffix_;
};

TEST_F(BigtableSinkIntegrationTest, DailyTablesAreCreatedWithFamiliesAndRules) {
  const std::string orders = absl::StrCat("orders", suffix_);
  const int64_t day1 = absl::ToUnixMicros(absl::FromCivil(
      absl::CivilSecond(2026, 12, 4, 23, 59, 0), absl::UTCTimeZone()));
  const int64_t day2 = day1 + int64_t{120} * 1'000'000;
  auto writer = Writer(CreateOptions(), DailyResolver());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_
                  .WriteAll(*writer, {Event{.table = orders,
                                            .row = "o1",
                                            .value = "placed",
                                            .timestamp_micros = day1},
                                      Event{.table = orders,
                                            .row = "o2",
                                            .value = "placed",
                                            .family = "audit",
                                            .timestamp_micros = day2},
                                      Event{.table = orders,
                                            .row = "o1",
                                            .value = "paid",
                                            .timestamp_micros = day1 + 1000}})
                  .ok());
  const std::string first = absl::StrCat(orders, "-20261204");
  const std::string second = absl::StrCat(orders, "-20261205");
  for (const std::string& table : {first, second}) {
    absl::StatusOr<admin::Table> created = GetTable(channel_, table);
    ASSERT_TRUE(created.ok()) << created.status();
    ASSERT_TRUE(created->column_families().contains("cf")) << table;
    ASSERT_TRUE(created->column_families().contains("audit")) << table;
    EXPECT_EQ(created->column_families().at("cf").gc_rule().max_num_versions(),
              3);
  }
  EXPECT_THAT(ReadAll(channel_, first),
              ElementsAre(Cell{"o1", "cf", "q", day1 + 1000, "paid"},
                          Cell{"o1", "cf", "q", day1, "placed"}));
  EXPECT_THAT(ReadAll(channel_, second),
              ElementsAre(Cell{"o2", "audit", "q", day2, "placed"}));
  EXPECT_EQ(task_.Metric("tables_created"), "2");
  EXPECT_EQ(task_.Metric("batchers_active"), "2");
}

TEST_F(BigtableSinkIntegrationTest, CreateNeverFailsNamingTheOption) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status =
      task_.WriteAll(*writer, {Event{.table = absl::StrCat("missing", suffix_),
                                     .row = "r",
                                     .value = "v"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("option 'create-disposition'"));
  EXPECT_THAT(status.message(), HasSubstr("create-if-needed"));
}

TEST_F(BigtableSinkIntegrationTest, ADeclaredFamilyIsAddedAnUndeclaredFails) {
  const std::string table = absl::StrCat("families", suffix_);
  ASSERT_TRUE(Provision(table, {"cf"}).ok());
  {
    auto writer = Writer(CreateOptions());
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(task_
                    .WriteAll(*writer, {Event{.table = table,
                                              .row = "r1",
                                              .value = "v",
                                              .family = "audit",
                                              .timestamp_micros = 7'000}})
                    .ok());
    EXPECT_EQ(task_.Metric("column_families_added"), "1");
    EXPECT_THAT(ReadAll(channel_, table),
                ElementsAre(Cell{"r1", "audit", "q", 7'000, "v"}));
  }
  auto writer = Writer(CreateOptions());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(
      *writer,
      {Event{.table = table, .row = "r2", .value = "v", .family = "typo"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("family 'typo'"));
  EXPECT_THAT(status.message(), HasSubstr("option 'column-families'"));
}

// The emulator answers an unknown family (and a bad timestamp) with a
// per-entry INTERNAL, where the service answers a client-error code: the
// other entries of the request are written either way, and the sink fails
// the job naming the row and its families.
TEST_F(BigtableSinkIntegrationTest, EmulatorUnknownFamilyIsAPerEntryInternal) {
  const std::string table = absl::StrCat("partial", suffix_);
  ASSERT_TRUE(Provision(table, {"cf"}).ok());
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(
      *writer,
      {Event{.table = table, .row = "r1", .value = "a", .timestamp_micros = 0},
       Event{.table = table,
             .row = "r2",
             .value = "b",
             .family = "nofam",
             .timestamp_micros = 0},
       Event{
           .table = table, .row = "r3", .value = "c", .timestamp_micros = 0}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);  // Service: not 13.
  EXPECT_THAT(status.message(), HasSubstr("row 'r2' (families: nofam)"));
  EXPECT_THAT(*failures_, IsEmpty());
  EXPECT_THAT(ReadAll(channel_, table),
              ElementsAre(Cell{"r1", "cf", "q", 0, "a"},
                          Cell{"r3", "cf", "q", 0, "c"}));
}

// The emulator enforces none of the size limits, so they are the sink's:
// nothing over a limit is sent.
TEST_F(BigtableSinkIntegrationTest, TheSinkEnforcesLimitsTheEmulatorDoesNot) {
  const std::string table = absl::StrCat("limits", suffix_);
  ASSERT_TRUE(Provision(table, {"cf"}).ok());
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_
                  .WriteAll(*writer, {Event{.table = table,
                                            .row = std::string(5000, 'k'),
                                            .value = "v",
                                            .timestamp_micros = 0},
                                      Event{.table = table,
                                            .row = "ok",
                                            .value = "v",
                                            .timestamp_micros = 0}})
                  .ok());
  ASSERT_THAT(*failures_, SizeIs(1));
  EXPECT_THAT((*failures_)[0].status.message(), HasSubstr("5000 bytes"));
  EXPECT_THAT(ReadAll(channel_, table),
              ElementsAre(Cell{"ok", "cf", "q", 0, "v"}));
}

TEST_F(BigtableSinkIntegrationTest, ExplicitTimestampsMakeReplaysIdempotent) {
  const std::string table = absl::StrCat("replay", suffix_);
  ASSERT_TRUE(Provision(table, {"cf"}).ok());
  const std::vector<Event> events = {
      Event{
          .table = table, .row = "r1", .value = "v1", .timestamp_micros = 1000},
      Event{.table = table,
            .row = "r2",
            .value = "v2",
            .timestamp_micros = 2000}};
  for (int replay = 0; replay < 3; ++replay) {
    auto writer = Writer(Options());
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(task_.WriteAll(*writer, events).ok());
  }
  EXPECT_THAT(ReadAll(channel_, table),
              ElementsAre(Cell{"r1", "cf", "q", 1000, "v1"},
                          Cell{"r2", "cf", "q", 2000, "v2"}));
}

}  // namespace
}  // namespace gcpstream::bigtable::testing
