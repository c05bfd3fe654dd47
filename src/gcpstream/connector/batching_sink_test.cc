#include "gcpstream/connector/batching_sink.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Table : DestinationIdentity<Table> {
  Table() = default;
  explicit Table(std::string table) : name(std::move(table)) {}
  std::string name;
  std::string ResourceName() const { return name; }
};

struct FakeOptions {
  std::string name = "fake-sink";
};

struct FakeFailedElement : FailedElement {};

// Records what the kit's sink asks of an engine.
struct FakeEngine {
  std::vector<std::string> calls;
  const Table* fixed = nullptr;

  void CountIn() { calls.emplace_back("in"); }
  void CountSkipped() { calls.emplace_back("skipped"); }
  absl::Status RouteSerializationFailure(const Table& table,
                                         const absl::Status& status,
                                         const WriterContext&) {
    calls.push_back(absl::StrCat("routed ", table.name, " ", status.message()));
    return absl::OkStatus();
  }
  absl::Status Write(const std::string& row, const Table& table,
                     const WriterContext&) {
    calls.push_back(absl::StrCat("write ", table.name, " ", row));
    return absl::OkStatus();
  }
  absl::Status Flush(bool end_of_input) {
    calls.push_back(absl::StrCat("flush ", end_of_input));
    return absl::OkStatus();
  }
  absl::Status OnInputIdle() {
    calls.emplace_back("idle");
    return absl::OkStatus();
  }
  void Close() { calls.emplace_back("close"); }
};

// Engines the test inspects after the writer made them.
std::vector<FakeEngine*>& Engines() {
  static std::vector<FakeEngine*> engines;
  return engines;
}

struct FakeTraits {
  using Engine = FakeEngine;
  using Options = FakeOptions;
  using Destination = Table;
  using Serializer = connector::Serializer<int, std::string>;
  using FailedElement = FakeFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options&, const runtime::SinkWriterContext&,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const Table* fixed) {
    EXPECT_NE(handler, nullptr);
    auto engine = std::make_unique<FakeEngine>();
    engine->fixed = fixed;
    Engines().push_back(engine.get());
    return engine;
  }
  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const int& record, const Table& table,
                                  const WriterContext& context) {
    return SerializeThenWrite(engine, serializer, record, table, context);
  }
  static absl::Status CheckFixed(const Options& options, const Table& table) {
    if (!table.name.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(options.name + ": no table");
  }
};

using FakeSink = BatchingSink<int, FakeTraits>;

// Odd records are skipped, negative ones refused.
FakeTraits::Serializer RowSerializer() {
  return
      [](const int& record,
         const WriterContext&) -> absl::StatusOr<std::optional<std::string>> {
        if (record < 0) return absl::InvalidArgumentError("negative");
        if (record % 2 == 1) return std::nullopt;
        return std::optional<std::string>(absl::StrCat("row", record));
      };
}

FakeSink::HandlerFactory Handlers() {
  return [](const runtime::SinkWriterContext&)
             -> absl::StatusOr<std::unique_ptr<FakeSink::Handler>> {
    return FailJob<FakeFailedElement>();
  };
}

class BatchingSinkTest : public ::testing::Test {
 protected:
  void SetUp() override { Engines().clear(); }
};

TEST_F(BatchingSinkTest, SerializesSkipsAndRoutesEachRecordToItsDestination) {
  FakeSink sink(FakeOptions(), Table("orders"), RowSerializer(), Handlers());
  auto writer = sink.CreateWriter(runtime::SinkWriterContext());
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int record : {2, 3, -1}) {
    ASSERT_TRUE((*writer)->Write(record, WriterContext()).ok());
  }
  ASSERT_EQ(Engines().size(), 1u);
  EXPECT_THAT(Engines()[0]->calls,
              ElementsAre("in", "write orders row2", "in", "skipped", "in",
                          "routed orders negative"));
  ASSERT_NE(Engines()[0]->fixed, nullptr) << "the engine knows the fixed one";
  EXPECT_EQ(Engines()[0]->fixed->name, "orders");
}

TEST_F(BatchingSinkTest, AResolverNamesEachRecordsDestination) {
  auto resolver = MakeResolver<int, Table>(
      [](const int& record, const WriterContext&) -> absl::StatusOr<Table> {
        return Table(absl::StrCat("t", record % 3));
      });
  FakeSink sink(FakeOptions(), std::move(resolver), RowSerializer(),
                Handlers());
  auto writer = sink.CreateWriter(runtime::SinkWriterContext());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(4, WriterContext()).ok());
  ASSERT_TRUE((*writer)->Write(6, WriterContext()).ok());
  EXPECT_THAT(Engines()[0]->calls,
              ElementsAre("in", "write t1 row4", "in", "write t0 row6"));
  EXPECT_EQ(Engines()[0]->fixed, nullptr);
}

TEST_F(BatchingSinkTest, TheInputIdleSignalReachesTheEngine) {
  FakeSink sink(FakeOptions(), Table("orders"), RowSerializer(), Handlers());
  auto writer = sink.CreateWriter(runtime::SinkWriterContext());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->OnInputIdle().ok());
  ASSERT_TRUE((*writer)->Flush(true).ok());
  (*writer)->Close();
  EXPECT_THAT(Engines()[0]->calls, ElementsAre("idle", "flush 1", "close"));
}

TEST_F(BatchingSinkTest, RefusesAnUnusableFixedDestinationOrNoSerializer) {
  FakeSink unnamed(FakeOptions(), Table(), RowSerializer(), Handlers());
  EXPECT_THAT(
      unnamed.CreateWriter(runtime::SinkWriterContext()).status().message(),
      HasSubstr("fake-sink: no table"));
  FakeSink no_serializer(FakeOptions(), Table("t"), nullptr);
  EXPECT_THAT(no_serializer.CreateWriter(runtime::SinkWriterContext())
                  .status()
                  .message(),
              HasSubstr("a serializer"));
  EXPECT_TRUE(Engines().empty());
}

}  // namespace
}  // namespace gcpstream::connector
